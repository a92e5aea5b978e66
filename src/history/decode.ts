import { isUtf8 } from "node:buffer";
import { z } from "zod";
import { type Codec, CodecCapacityError } from "./codec.ts";
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
import {
  SESSION_VERSION,
  type SessionEntry,
  SessionEntrySchema,
  type SessionHeader,
  SessionHeaderSchema,
} from "./schema.ts";
import { NewerSessionFormatError } from "./session-errors.ts";

/**
 * Decoding a session file: its records (see `frames.ts`) → decompressed lines → the header, migrated
 * to the current format → validated entries. Pure: reads no files and moves nothing; a damaged file
 * is reported as a CorruptReason for the store to act on.
 */

/** Records are decompressed in batches of about this many compressed bytes, off the main thread when possible. */
const BATCH_BYTES = 64 * 1024;

/**
 * The header as this ion reads it. Each older format version gets a case that upgrades it by one
 * step and falls through to the next (e.g. `case 1: raw = v1ToV2(raw); // falls through`), ending at
 * the current version. A newer version than this ion knows is refused with a clear error (the file is
 * left alone); anything else invalid throws a ZodError (the caller treats the file as corrupt).
 */
export function migrateHeader(raw: unknown): SessionHeader {
  const fields = typeof raw === "object" && raw !== null ? raw : undefined;
  const version: unknown = fields ? Reflect.get(fields, "version") : undefined;
  if (fields && typeof version === "number" && Number.isInteger(version) && version > SESSION_VERSION) {
    const id: unknown = Reflect.get(fields, "id");
    throw new NewerSessionFormatError(typeof id === "string" ? id : "file", version);
  }
  // Each older version upgrades one step and falls through to the next; when format 2 arrives:
  //   case 1: current = headerV1ToV2(current); // falls through
  //   case 2: break;
  // (and entries of older files get the same treatment in decodeSession).
  const current: unknown = raw;
  switch (version) {
    case 1:
      break;
    default:
      break; // missing or invalid: the schema below says what is wrong
  }
  const header = SessionHeaderSchema.parse(current);
  if (header.version !== SESSION_VERSION) {
    throw new z.ZodError([
      {
        code: "custom",
        path: ["version"],
        message: `unknown session format version ${header.version}`,
        input: header.version,
      },
    ]);
  }
  return { ...header, version: SESSION_VERSION };
}

export interface Decoded {
  header: SessionHeader;
  entries: SessionEntry[];
  tail: TornTail | undefined;
  validEnd: number;
  records: FrameRecord[];
  warnings: string[];
}

/** Why a file is corrupt (internal: becomes a CorruptSessionError once the file is moved aside). */
export class CorruptReason extends Error {}

/**
 * Decodes and validates a whole file; throws CorruptReason, or IonError for a newer format version.
 * ion's records hold whole lines, so they are decompressed in batches — all started at once, off the
 * main thread when the codec can — and each batch is parsed while the next ones decompress.
 */
export async function decodeSession(id: string, bytes: Uint8Array, codec: Codec): Promise<Decoded> {
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
  let lineNumber = 0;
  let carry = "";
  const take = (line: string) => {
    lineNumber++;
    if (header === undefined) header = parseHeader(line);
    else if (line.trim() !== "") entries.push(parseEntry(line, lineNumber, entries.length));
  };
  for (let i = 0; i < batches.length; i++) {
    const [start, end] = batches[i]!;
    const outcome = jobs ? await jobs[i]! : settleSync(() => codec.decompress(bytes.subarray(start, end)));
    if (!outcome.ok) {
      if (outcome.error instanceof CodecCapacityError) throw outcome.error;
      throw new CorruptReason(`cannot decompress (${messageOf(outcome.error)})`);
    }
    const lines = `${carry}${utf8Text(outcome.data)}`.split("\n");
    carry = lines.pop()!;
    for (const line of lines) take(line);
  }
  if (carry !== "") take(carry);
  if (header === undefined) throw new CorruptReason("no header");
  const warnings: string[] = [];
  if (header.id !== id) warnings.push(`session ${id}: its header names another id (${header.id})`);
  return { header, entries, tail: scan.tail, validEnd: scan.validEnd, records: scan.records, warnings };
}

let compiledEntrySchema: typeof SessionEntrySchema | undefined;

/**
 * The entry schema, compiled by zod (`z.compile`: the same schema and errors, generated code on the
 * happy path — several times faster on a long session). Built on first use, not at import time.
 */
function entrySchema(): typeof SessionEntrySchema {
  compiledEntrySchema ??= z.compile(SessionEntrySchema);
  return compiledEntrySchema;
}

function parseEntry(line: string, lineNumber: number, n: number): SessionEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new CorruptReason(`entry ${n} (line ${lineNumber}) is not JSON`);
  }
  const parsed = entrySchema().safeParse(raw);
  if (!parsed.success) throw new CorruptReason(`entry ${n} (line ${lineNumber}): ${issueText(parsed.error)}`);
  if (parsed.data.n !== n)
    throw new CorruptReason(`entry on line ${lineNumber} has n=${parsed.data.n}, expected ${n}`);
  return parsed.data;
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
export function newerVersionError(bytes: Uint8Array, codec: Codec): NewerSessionFormatError | undefined {
  try {
    migrateHeader(rawHeader(bytes, codec));
  } catch (err) {
    if (err instanceof NewerSessionFormatError) return err;
    if (err instanceof z.ZodError) return undefined;
    throw err;
  }
  return undefined;
}

function parseHeader(line: string): SessionHeader {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new CorruptReason("the header is not JSON");
  }
  try {
    return migrateHeader(raw);
  } catch (err) {
    if (err instanceof z.ZodError) throw new CorruptReason(`invalid header: ${issueText(err)}`);
    throw err;
  }
}

/** The header from the file's first record only (for filtering by cwd without decoding everything). */
export function firstHeader(bytes: Uint8Array, codec: Codec): SessionHeader {
  return parseHeader(firstLine(bytes, codec));
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

export function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return `${where}${issue.message}`;
}
