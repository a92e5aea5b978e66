import { isUtf8 } from "node:buffer";
import { type Codec, CodecCapacityError, concat } from "./codec.ts";
import {
  FrameError,
  type FrameRecord,
  MARKER_MAGIC,
  MARKER_SIZE,
  scanRecords,
  type TornTail,
  ZSTD_MAGIC,
  zstdFrameEnd,
} from "./frames.ts";
import { messageOf } from "./io.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import { NewerSessionFormatError } from "./session-errors.ts";

/**
 * Decoding a session file: its records (see `frames.ts`) → decompressed lines → the header, migrated
 * to the current format → validated entries. Pure: reads no files and moves nothing; a damaged file
 * is reported as a CorruptReason for the store to act on. The schemas (validate.ts) are imported on
 * first use, so that writing a new session never loads them.
 */

/** Records are decompressed in batches of about this many compressed bytes, off the main thread when possible. */
const BATCH_BYTES = 64 * 1024;

/**
 * A file at least this large (compressed) holds hundreds of entries: enough for compiling the entry
 * schema (validate.ts `checkEntry`) to pay for itself.
 */
const COMPILE_FROM_BYTES = 64 * 1024;

type Validators = typeof import("./validate.ts");
let validators: Promise<Validators> | undefined;

function validate(): Promise<Validators> {
  validators ??= import("./validate.ts");
  return validators;
}

export interface Decoded {
  header: SessionHeader;
  /** The entries this ion knows, in file order (skipped ones leave gaps in their `n`). */
  entries: SessionEntry[];
  /** The `n` the next appended entry gets: every entry line counts, skipped ones included. */
  nextN: number;
  tail: TornTail | undefined;
  validEnd: number;
  records: FrameRecord[];
  warnings: string[];
  /** For -v only: entries of types this ion does not know, skipped (they stay in the file). */
  notes: string[];
}

/** Why a file is corrupt (internal: becomes a CorruptSessionError once the file is moved aside). */
export class CorruptReason extends Error {}

/**
 * Decodes and validates a whole file; throws CorruptReason, or IonError for a newer format version.
 * ion's records hold whole lines, so they are decompressed in batches — all started at once, off the
 * main thread when the codec can — and each batch is parsed while the next ones decompress.
 */
export async function decodeSession(id: string, bytes: Uint8Array, codec: Codec): Promise<Decoded> {
  const check = await validate();
  const many = bytes.length >= COMPILE_FROM_BYTES;
  let scan: ReturnType<typeof scanRecords>;
  try {
    scan = scanRecords(bytes);
  } catch (err) {
    if (err instanceof FrameError) throw new CorruptReason(err.message);
    throw err;
  }
  const batches = batchesOf(scan.records, scan.validEnd);
  const decompressAsync = codec.decompressAsync?.bind(codec);
  const jobs = decompressAsync
    ? batches.map(([start, end]) => settle(decompressAsync(bytes.subarray(start, end))))
    : undefined;
  let header: SessionHeader | undefined;
  const entries: SessionEntry[] = [];
  /** Entry lines so far, known or not: the `n` the next one must have. */
  let position = 0;
  /** Lines of a type this ion does not know, by type: kept in the file, skipped here. */
  const skipped = new Map<string, number>();
  /** Lines before this batch's data (for the line numbers of errors). */
  let linesBefore = 0;
  let carry: Uint8Array | undefined;
  const take = (data: Uint8Array, final: boolean): Uint8Array | undefined => {
    if (!isUtf8(data)) throw new CorruptReason("the decompressed text is not UTF-8");
    // One native call parses every line of the batch (blank lines are skipped), straight from bytes.
    const { values, read, error } = Bun.JSONL.parseChunk(data);
    const lineOf = (index: number) => linesBefore + lineOfValue(data, index);
    for (let i = 0; i < values.length; i++) {
      if (header === undefined) {
        header = headerOf(values[i], check);
        continue;
      }
      const entry = entryOf(values[i], position++, () => lineOf(i), check, many);
      if ("unknownType" in entry) skipped.set(entry.unknownType, (skipped.get(entry.unknownType) ?? 0) + 1);
      else entries.push(entry);
    }
    const rest = data.subarray(read);
    if (error || (final && !isBlank(rest))) {
      if (header === undefined) throw new CorruptReason("the header is not JSON");
      throw new CorruptReason(`entry ${position} (line ${lineOf(values.length)}) is not JSON`);
    }
    linesBefore += countLines(data.subarray(0, read));
    return rest.length > 0 ? rest : undefined;
  };
  for (let i = 0; i < batches.length; i++) {
    const [start, end] = batches[i]!;
    const outcome = jobs ? await jobs[i]! : settleSync(() => codec.decompress(bytes.subarray(start, end)));
    if (!outcome.ok) {
      if (outcome.error instanceof CodecCapacityError) throw outcome.error;
      throw new CorruptReason(`cannot decompress (${messageOf(outcome.error)})`);
    }
    // ion's records hold whole lines; another tool's frames may cut one, which the next batch ends.
    carry = take(carry ? concat([carry, outcome.data]) : outcome.data, false);
  }
  if (carry) take(carry, true);
  if (header === undefined) throw new CorruptReason("no header");
  const warnings: string[] = [];
  if (header.id !== id) warnings.push(`session ${id}: its header names another id (${header.id})`);
  // Not a problem to warn about on every load: said with -v only.
  const notes = skipped.size > 0 ? [skippedWarning(id, skipped)] : [];
  return {
    header,
    entries,
    nextN: position,
    tail: scan.tail,
    validEnd: scan.validEnd,
    records: scan.records,
    warnings,
    notes,
  };
}

/** How many types a warning names before it says "…". */
const NAMED_TYPES = 5;

/** One line for all the entries a load skipped; the type names come from the file, so only printable ASCII of them is shown. */
function skippedWarning(id: string, skipped: ReadonlyMap<string, number>): string {
  let total = 0;
  for (const times of skipped.values()) total += times;
  const named = [...skipped].slice(0, NAMED_TYPES).map(([type, times]) => {
    const shown = JSON.stringify(type.replace(/[^\x20-\x7e]/g, "?").slice(0, 40));
    return times > 1 ? `${shown} ×${times}` : shown;
  });
  if (skipped.size > NAMED_TYPES) named.push("…");
  const what = total === 1 ? "an entry of a type" : `${total} entries of types`;
  const kept = total === 1 ? "it stays" : "they stay";
  return `session ${id}: skipped ${what} this ion does not know (${named.join(", ")}), written by a newer ion or an extension; ${kept} in the file`;
}

function headerOf(raw: unknown, check: Validators): SessionHeader {
  const checked = check.checkHeader(raw);
  if ("invalid" in checked) throw new CorruptReason(`invalid header: ${checked.invalid}`);
  return checked.header;
}

/** The entry, or the type of one this ion does not know (its `n` is not checked: its format is not ours). */
function entryOf(
  raw: unknown,
  n: number,
  lineNumber: () => number,
  check: Validators,
  many: boolean,
): SessionEntry | { unknownType: string } {
  const parsed = check.checkEntry(raw, many);
  if ("unknownType" in parsed) return parsed;
  if ("invalid" in parsed) throw new CorruptReason(`entry ${n} (line ${lineNumber()}): ${parsed.invalid}`);
  if (parsed.entry.n !== n)
    throw new CorruptReason(`entry on line ${lineNumber()} has n=${parsed.entry.n}, expected ${n}`);
  return parsed.entry;
}

const NEWLINE = 0x0a;

function countLines(data: Uint8Array): number {
  let lines = 0;
  for (let at = data.indexOf(NEWLINE); at >= 0; at = data.indexOf(NEWLINE, at + 1)) lines++;
  return lines;
}

function isBlank(data: Uint8Array): boolean {
  for (const byte of data) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  return true;
}

/** The 1-based line of the `index`-th value (0-based) in `data`, skipping blank lines as the parser does. */
function lineOfValue(data: Uint8Array, index: number): number {
  let seen = 0;
  let line = 1;
  let start = 0;
  while (start <= data.length) {
    const end = data.indexOf(NEWLINE, start);
    const stop = end < 0 ? data.length : end;
    if (!isBlank(data.subarray(start, stop))) {
      if (seen === index) return line;
      seen++;
    }
    if (end < 0) break;
    line++;
    start = end + 1;
  }
  return line;
}

/** Byte ranges to decompress: runs of ion's records of about BATCH_BYTES; a file with foreign frames in one piece. */
function batchesOf(records: readonly FrameRecord[], validEnd: number): [number, number][] {
  if (records.length === 0) return [];
  if (!records.every((r) => r.kind === "marked")) return [[0, validEnd]];
  const batches: [number, number][] = [];
  let start = records[0]!.start;
  for (const record of records) {
    if (record.end - start >= BATCH_BYTES) {
      batches.push([start, record.end]);
      start = record.end;
    }
  }
  if (start < validEnd) batches.push([start, validEnd]);
  return batches;
}

type Outcome = { ok: true; data: Uint8Array } | { ok: false; error: unknown };

function settle(promise: Promise<Uint8Array>): Promise<Outcome> {
  return promise.then(
    (data) => ({ ok: true, data }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function settleSync(fn: () => Uint8Array): Outcome {
  try {
    return { ok: true, data: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

function utf8Text(data: Uint8Array): string {
  if (!isUtf8(data)) throw new CorruptReason("the decompressed text is not UTF-8");
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8");
}

function decompressText(data: Uint8Array, codec: Codec): string {
  let plain: Uint8Array;
  try {
    plain = codec.decompress(data);
  } catch (err) {
    if (err instanceof CodecCapacityError) throw err;
    throw new CorruptReason(`cannot decompress (${messageOf(err)})`);
  }
  return utf8Text(plain);
}

/** Whether `err` means "this file cannot be read" (as opposed to a failure of the machine or a bug). */
export function isUnreadable(err: unknown): boolean {
  return (
    err instanceof CorruptReason ||
    err instanceof CodecCapacityError ||
    err instanceof NewerSessionFormatError
  );
}

/** The "newer format" error when the file's header says so, else undefined (nothing readable: corrupt). */
export async function newerVersionError(
  bytes: Uint8Array,
  codec: Codec,
): Promise<NewerSessionFormatError | undefined> {
  const check = await validate();
  try {
    check.checkHeader(rawHeader(bytes, codec));
  } catch (err) {
    if (err instanceof NewerSessionFormatError) return err;
    throw err;
  }
  return undefined;
}

function parseHeader(line: string, check: Validators): SessionHeader {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new CorruptReason("the header is not JSON");
  }
  const checked = check.checkHeader(raw);
  if ("invalid" in checked) throw new CorruptReason(`invalid header: ${checked.invalid}`);
  return checked.header;
}

/** The header from the file's first record only (for filtering by cwd without decoding everything). */
export async function firstHeader(bytes: Uint8Array, codec: Codec): Promise<SessionHeader> {
  return parseHeader(firstLine(bytes, codec), await validate());
}

function firstLine(bytes: Uint8Array, codec: Codec): string {
  const text = decompressText(firstFrame(bytes), codec);
  const newline = text.indexOf("\n");
  return newline < 0 ? text : text.slice(0, newline);
}

/** The first line as JSON, unvalidated; undefined when there is no readable first line. */
export function rawHeader(bytes: Uint8Array, codec: Codec): unknown {
  try {
    return JSON.parse(firstLine(bytes, codec));
  } catch (err) {
    if (err instanceof CorruptReason || err instanceof SyntaxError || err instanceof CodecCapacityError) {
      return undefined;
    }
    throw err;
  }
}

function firstFrame(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= MARKER_SIZE && view.getUint32(0, true) === MARKER_MAGIC) {
    const end = MARKER_SIZE + view.getUint32(8, true);
    if (end > bytes.length) throw new CorruptReason("first record is incomplete");
    return bytes.subarray(MARKER_SIZE, end);
  }
  if (bytes.length >= 4 && view.getUint32(0, true) === ZSTD_MAGIC) {
    const end = zstdFrameEnd(bytes, 0);
    if (typeof end !== "number") throw new CorruptReason("first frame is incomplete");
    return bytes.subarray(0, end);
  }
  throw new CorruptReason("not a zstd file (bad magic)");
}
