import { isUtf8 } from "node:buffer";
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { IonError } from "../errors.ts";
import {
  type Codec,
  CodecCapacityError,
  compressFrames,
  concat,
  defaultCodec,
  MAX_FRAME_CONTENT,
} from "./codec.ts";
import {
  contentSizeOf,
  encodeRecord,
  FrameError,
  type FrameRecord,
  MARKER_MAGIC,
  MARKER_SIZE,
  scanRecords,
  type TornTail,
  ZSTD_MAGIC,
  zstdFrameEnd,
} from "./frames.ts";
import { acquireLock, type SessionLock } from "./lock.ts";
import {
  type NewEntry,
  SESSION_VERSION,
  type SessionEntry,
  SessionEntrySchema,
  type SessionHeader,
  SessionHeaderSchema,
} from "./schema.ts";
import { entryTotals } from "./view.ts";

/**
 * The session store (spec §8): one file per session, `<dir>/<id>.jsonl.zst`, framed as `frames.ts`
 * describes. A save appends one record and fsyncs before it is reported; nothing is ever rewritten,
 * except that a torn tail is cut off when the session is next opened for appending. A damaged file is
 * moved aside, never overwritten.
 */

export const SESSION_FILE_SUFFIX = ".jsonl.zst";

export interface LoadedSession {
  header: SessionHeader;
  entries: SessionEntry[];
  /** One line each, for the user: e.g. a torn tail that was dropped. */
  warnings: string[];
  path: string;
}

export interface SessionSummary {
  id: string;
  path: string;
  header: SessionHeader;
  /** The file's mtime: the last save. */
  updated_at: string;
  /** Message entries (user and assistant). */
  messages: number;
  /** Summed over the assistant steps' usage; `input` includes cache reads and writes. */
  tokens: { input: number; output: number };
  title: string;
  cwd: string;
}

/** A session file that could not be read; it was renamed to `movedTo` and left untouched there. */
export class CorruptSessionError extends IonError {
  readonly movedTo: string;
  readonly id: string;
  readonly reason: string;

  constructor(id: string, movedTo: string, reason: string) {
    super("io", `session ${id} could not be read (${reason}); moved it to ${movedTo}`);
    this.name = "CorruptSessionError";
    this.id = id;
    this.movedTo = movedTo;
    this.reason = reason;
  }
}

/** A session file of a newer format than this ion reads: refused, and never moved or changed. */
export class NewerSessionFormatError extends IonError {
  readonly version: number;

  constructor(id: string, version: number) {
    super(
      "io",
      `session ${id} was written by a newer ion (session format version ${version}; this ion reads up to ${SESSION_VERSION})`,
      { hint: "upgrade ion to open it" },
    );
    this.name = "NewerSessionFormatError";
    this.version = version;
  }
}

export interface SessionWriter {
  readonly id: string;
  readonly path: string;
  /** n the next appended entry gets */
  readonly nextN: number;
  /** Numbers and timestamps the entries (`n`, `at`), appends them as ONE zstd frame, fsyncs, and only then resolves. O(new entries). */
  append(entries: NewEntry[]): Promise<SessionEntry[]>;
  /** Releases the lock. Idempotent. */
  close(): Promise<void>;
}

export interface StoreOptions {
  /** The zstd codec; default: native, else the zstd-codec fallback. */
  codec?: Codec;
}

export interface ListOptions {
  /** Only sessions whose header cwd equals this. */
  cwd?: string;
  /** Told about each session file that was skipped because it could not be read. */
  onWarning?: (message: string) => void;
}

/** Session ids are file names: UUIDv7 in practice; nothing that could leave the directory. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const LIST_CONCURRENCY = 16;
/** How much of a file `latestForCwd` reads to find its header; a longer first record is read whole. */
const HEAD_BYTES = 64 * 1024;
const MAX_LISTED_MATCHES = 5;
/** Records are decompressed in batches of about this many compressed bytes, off the main thread when possible. */
const BATCH_BYTES = 64 * 1024;
/**
 * Repacking (at openForAppend): once this many small records follow the last full one, they are
 * rewritten as records of up to MAX_FRAME_CONTENT bytes each. Small frames compress worse and
 * decompress slower; repacking keeps a long session's file small and its load fast.
 */
const REPACK_AT = 32;
/** A record holding at least this much text counts as full and is kept as it is. */
const FULL_RECORD = MAX_FRAME_CONTENT / 2;
const REPACK_SUFFIX = ".repack.tmp";

const encoder = new TextEncoder();

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

interface Decoded {
  header: SessionHeader;
  entries: SessionEntry[];
  tail: TornTail | undefined;
  validEnd: number;
  records: FrameRecord[];
  warnings: string[];
}

/** Why a file is corrupt (internal: becomes a CorruptSessionError once the file is moved aside). */
class CorruptReason extends Error {}

export class SessionStore {
  readonly dir: string;
  private readonly givenCodec: Codec | undefined;
  private codecPromise: Promise<Codec> | undefined;

  constructor(dir: string, options: StoreOptions = {}) {
    this.dir = dir;
    this.givenCodec = options.codec;
  }

  static forDataDir(dataDir: string, options: StoreOptions = {}): SessionStore {
    return new SessionStore(join(dataDir, "sessions"), options);
  }

  pathOf(id: string): string {
    return join(this.dir, `${checkId(id)}${SESSION_FILE_SUFFIX}`);
  }

  private lockPathOf(id: string): string {
    return join(this.dir, `${checkId(id)}.lock`);
  }

  private codec(): Promise<Codec> {
    if (this.givenCodec) return Promise.resolve(this.givenCodec);
    this.codecPromise ??= defaultCodec();
    return this.codecPromise;
  }

  /** New session: id = Bun.randomUUIDv7() unless given; writes the header durably; takes the lock. */
  async create(init: {
    id?: string;
    cwd: string;
    provider: string;
    model: string;
    title: string;
  }): Promise<SessionWriter> {
    const id = checkId(init.id ?? Bun.randomUUIDv7());
    const path = this.pathOf(id);
    const codec = await this.codec();
    const header = migrateHeader({
      type: "session",
      version: SESSION_VERSION,
      id,
      created_at: new Date().toISOString(),
      cwd: init.cwd,
      provider: init.provider,
      model: init.model,
      title: init.title,
    });
    const record = encodeRecord(compressFrames(codec, encoder.encode(`${JSON.stringify(header)}\n`)));
    ensureDir(this.dir);
    const lock = await acquireLock(this.lockPathOf(id), id);
    // The header is written to a temp file and renamed into place: the session file either does not
    // exist or starts with a complete header, whenever the process dies.
    const tmp = join(this.dir, `.${id}${SESSION_FILE_SUFFIX}.${process.pid}.tmp`);
    try {
      if (existsSync(path)) throw new IonError("usage", `session ${id} already exists`);
      const fd = openSync(tmp, "wx", 0o600);
      try {
        writeAll(fd, record);
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, path);
      syncDir(this.dir);
      return new FileSessionWriter(id, path, openSync(path, "a"), record.length, 0, codec, lock);
    } catch (err) {
      lock.release();
      rmSync(tmp, { force: true });
      throw asIoError(err, `cannot create session ${id} in ${this.dir}`);
    }
  }

  /**
   * Existing session for appending: takes the lock (a live holder → IonError "in use"), drops and
   * repairs a torn tail (warning in `loaded.warnings`), repacks many small records (see REPACK_AT).
   * Corrupt → the file is moved aside and CorruptSessionError thrown.
   */
  async openForAppend(id: string): Promise<{ writer: SessionWriter; loaded: LoadedSession }> {
    const path = this.pathOf(id);
    if (!existsSync(path)) throw noSuchSession(id);
    const codec = await this.codec();
    const lock = await acquireLock(this.lockPathOf(id), id);
    let fd: number | undefined;
    try {
      await this.removeRepackLeftovers(id);
      // Read and repair through one descriptor, so both act on the file that was read.
      fd = openSync(path, "r+");
      const bytes = readAll(fd);
      const decoded = await this.decodeOrMoveAside(id, path, bytes, codec);
      const warnings = [...decoded.warnings];
      if (decoded.tail) {
        ftruncateSync(fd, decoded.validEnd);
        fdatasyncSync(fd);
        warnings.push(`${tornWarning(id, decoded.tail)}; the file was repaired`);
      }
      closeSync(fd);
      fd = undefined;
      let size = decoded.validEnd;
      try {
        const keep = repackFrom(bytes, decoded.records);
        if (keep !== undefined)
          size = repack(path, this.dir, bytes.subarray(0, decoded.validEnd), keep, codec);
      } catch (err) {
        warnings.push(`session ${id}: could not repack the file (${messageOf(err)}); it was left as it was`);
      }
      fd = openSync(path, "a");
      const writer = new FileSessionWriter(id, path, fd, size, decoded.entries.length, codec, lock);
      return { writer, loaded: { header: decoded.header, entries: decoded.entries, warnings, path } };
    } catch (err) {
      if (fd !== undefined) closeSync(fd);
      lock.release();
      if (errnoOf(err) === "ENOENT") throw noSuchSession(id);
      throw asIoError(err, `cannot open session ${id}`);
    }
  }

  /** Read-only load (no lock, no repair): a torn tail is dropped with a warning; corrupt → moved aside. */
  async load(id: string): Promise<LoadedSession> {
    const path = this.pathOf(id);
    const codec = await this.codec();
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch (err) {
      if (errnoOf(err) === "ENOENT") throw noSuchSession(id);
      throw asIoError(err, `cannot read session ${id}`);
    }
    const decoded = await this.decodeOrMoveAside(id, path, bytes, codec);
    const warnings = [...decoded.warnings];
    if (decoded.tail) warnings.push(tornWarning(id, decoded.tail));
    return { header: decoded.header, entries: decoded.entries, warnings, path };
  }

  /** Newest first (by last update); `cwd` filters to sessions whose header cwd equals it. */
  async list(options: ListOptions = {}): Promise<SessionSummary[]> {
    const ids = await this.ids();
    const codec = await this.codec();
    const summaries = await mapLimit(ids, LIST_CONCURRENCY, (id) => this.summarize(id, codec, options));
    const found = summaries.filter((s): s is SessionSummary => s !== undefined);
    return found.sort((a, b) => compareNewest(a.updated_at, a.id, b.updated_at, b.id));
  }

  /**
   * The most recently updated session of `cwd`, reading only the files' headers, newest file first.
   * A newer file whose header cannot be read is returned too, so that opening it tells the user and
   * moves it aside instead of the damage going unnoticed.
   */
  async latestForCwd(cwd: string): Promise<string | undefined> {
    const ids = await this.ids();
    const dated = await mapLimit(ids, LIST_CONCURRENCY, async (id) => {
      try {
        return { id, mtime: (await stat(this.pathOf(id))).mtime.toISOString() };
      } catch (err) {
        if (errnoOf(err) === "ENOENT") return undefined; // removed meanwhile
        throw asIoError(err, `cannot read session ${id}`);
      }
    });
    const newest = dated
      .filter((d): d is { id: string; mtime: string } => d !== undefined)
      .sort((a, b) => compareNewest(a.mtime, a.id, b.mtime, b.id));
    const codec = await this.codec();
    for (const { id } of newest) {
      const headerCwd = await this.headerCwd(id, codec);
      if (headerCwd === cwd || headerCwd === null) return id;
    }
    return undefined;
  }

  /** Full id from a prefix; none or several matches are usage errors. */
  async resolveId(prefix: string): Promise<string> {
    const ids = await this.ids();
    if (prefix !== "" && ids.includes(prefix)) return prefix;
    const matches = prefix === "" ? [] : ids.filter((id) => id.startsWith(prefix));
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0) throw new IonError("usage", `no session matches ${prefix}`);
    const shown = matches.sort().reverse().slice(0, MAX_LISTED_MATCHES).join(", ");
    const more = matches.length > MAX_LISTED_MATCHES ? ", …" : "";
    throw new IonError("usage", `${prefix} matches ${matches.length} sessions: ${shown}${more}`, {
      hint: "give more of the id",
    });
  }

  /** Deletes a session's file; refused while another process has it open. Removing a missing session is a no-op. */
  async remove(id: string): Promise<void> {
    const path = this.pathOf(id);
    if (!existsSync(path)) return;
    const lock = await acquireLock(this.lockPathOf(id), id);
    try {
      rmSync(path, { force: true });
    } finally {
      lock.release();
    }
  }

  /** Ids of the session files in the directory (no corrupt, temp or lock files). */
  private async ids(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return [];
      throw asIoError(err, `cannot list sessions in ${this.dir}`);
    }
    const ids: string[] = [];
    for (const name of names) {
      if (!name.endsWith(SESSION_FILE_SUFFIX)) continue;
      const id = name.slice(0, -SESSION_FILE_SUFFIX.length);
      if (ID_PATTERN.test(id)) ids.push(id);
    }
    return ids;
  }

  private async summarize(
    id: string,
    codec: Codec,
    options: ListOptions,
  ): Promise<SessionSummary | undefined> {
    const path = this.pathOf(id);
    let bytes: Uint8Array;
    let mtime: Date;
    try {
      [bytes, mtime] = await Promise.all([readFile(path), stat(path).then((s) => s.mtime)]);
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return undefined; // removed or moved meanwhile
      throw asIoError(err, `cannot read session ${id}`);
    }
    let decoded: Decoded;
    try {
      if (options.cwd !== undefined && firstHeader(bytes, codec).cwd !== options.cwd) return undefined;
      decoded = await decodeSession(id, bytes, codec);
    } catch (err) {
      // An unreadable file is left for load/openForAppend to report and move aside; the list goes on.
      if (!isUnreadable(err)) throw err;
      options.onWarning?.(`skipped session ${id}: ${messageOf(err)}`);
      return undefined;
    }
    const { messages, input, output } = entryTotals(decoded.entries);
    const { header } = decoded;
    return {
      id,
      path,
      header,
      updated_at: mtime.toISOString(),
      messages,
      tokens: { input, output },
      title: header.title,
      cwd: header.cwd,
    };
  }

  /**
   * The cwd the header names (read without validating, so a newer format's file still matches); null
   * when there is no readable header; undefined when the file is gone.
   */
  private async headerCwd(id: string, codec: Codec): Promise<string | null | undefined> {
    let head: Uint8Array;
    try {
      head = await readHead(this.pathOf(id));
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return undefined;
      throw asIoError(err, `cannot read session ${id}`);
    }
    const raw = rawHeader(head, codec);
    const cwd = typeof raw === "object" && raw !== null ? Reflect.get(raw, "cwd") : undefined;
    return typeof cwd === "string" ? cwd : null;
  }

  /** Temp files of a repack cut short by a crash (no one else can be repacking: the caller holds the lock). */
  private async removeRepackLeftovers(id: string): Promise<void> {
    const prefix = `${id}${SESSION_FILE_SUFFIX}.`;
    for (const name of await readdir(this.dir)) {
      if (name.startsWith(prefix) && name.endsWith(REPACK_SUFFIX))
        rmSync(join(this.dir, name), { force: true });
    }
  }

  private async decodeOrMoveAside(
    id: string,
    path: string,
    bytes: Uint8Array,
    codec: Codec,
  ): Promise<Decoded> {
    try {
      return await decodeSession(id, bytes, codec);
    } catch (err) {
      if (err instanceof CodecCapacityError) {
        throw new IonError("io", `cannot read session ${id} with this runtime's zstd (${err.message})`, {
          hint: "use a Bun with built-in zstd",
          cause: err,
        });
      }
      if (!(err instanceof CorruptReason)) throw err;
      // A file of a newer format may look damaged to this ion: it is refused, never moved.
      const newer = newerVersionError(bytes, codec);
      if (newer) throw newer;
      throw new CorruptSessionError(id, moveAside(path), err.message);
    }
  }
}

class FileSessionWriter implements SessionWriter {
  private fd: number | undefined;
  private size: number;
  private n: number;
  /** Set when a failed save could not be undone: further saves would land after garbage. */
  private broken: string | undefined;

  constructor(
    readonly id: string,
    readonly path: string,
    fd: number,
    size: number,
    nextN: number,
    private readonly codec: Codec,
    private readonly lock: SessionLock,
  ) {
    this.fd = fd;
    this.size = size;
    this.n = nextN;
  }

  get nextN(): number {
    return this.n;
  }

  async append(entries: NewEntry[]): Promise<SessionEntry[]> {
    const fd = this.fd;
    if (fd === undefined) throw new IonError("internal", `session ${this.id} was closed; cannot save to it`);
    if (this.broken) throw new IonError("io", `session ${this.id} can no longer be saved (${this.broken})`);
    if (entries.length === 0) return [];
    const at = new Date().toISOString();
    const stamped = entries.map((entry, i) => stampEntry(entry, this.n + i, at));
    const text = stamped.map((entry) => `${JSON.stringify(entry)}\n`).join("");
    const record = encodeRecord(compressFrames(this.codec, encoder.encode(text)));
    try {
      writeAll(fd, record);
      fdatasyncSync(fd);
    } catch (err) {
      this.undo(fd, err);
      throw asIoError(err, `cannot save session ${this.id}`);
    }
    this.size += record.length;
    this.n += stamped.length;
    return stamped;
  }

  async close(): Promise<void> {
    const fd = this.fd;
    if (fd === undefined) return;
    this.fd = undefined;
    try {
      closeSync(fd);
    } finally {
      this.lock.release();
    }
  }

  /** Cuts a partly written record off again, so that the next save does not follow garbage. */
  private undo(fd: number, cause: unknown): void {
    try {
      ftruncateSync(fd, this.size);
    } catch (err) {
      this.broken = `${messageOf(cause)}; then could not undo the partial save: ${messageOf(err)}`;
    }
  }
}

/** Numbers and timestamps an entry and checks it against the schema: what is saved always loads. */
function stampEntry(entry: NewEntry, n: number, at: string): SessionEntry {
  // Validated before writing, so ion never saves an entry it would reject on load. The plain schema:
  // compiling it pays off only for the thousands of entries of a load, not a run's few appends.
  const parsed = SessionEntrySchema.safeParse({ ...entry, n, at });
  if (!parsed.success) {
    throw new IonError(
      "internal",
      `refusing to save an invalid ${entry.type} entry: ${issueText(parsed.error)}`,
    );
  }
  // `type` first, then `n` and `at`, for people reading the file with `zstd -dc`.
  const { type, n: number, at: time } = parsed.data;
  return Object.assign({ type, n: number, at: time }, parsed.data);
}

/**
 * Decodes and validates a whole file; throws CorruptReason, or IonError for a newer format version.
 * ion's records hold whole lines, so they are decompressed in batches — all started at once, off the
 * main thread when the codec can — and each batch is parsed while the next ones decompress.
 */
async function decodeSession(id: string, bytes: Uint8Array, codec: Codec): Promise<Decoded> {
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
function isUnreadable(err: unknown): boolean {
  return (
    err instanceof CorruptReason ||
    err instanceof CodecCapacityError ||
    err instanceof NewerSessionFormatError
  );
}

/** The "newer format" error when the file's header says so, else undefined (nothing readable: corrupt). */
function newerVersionError(bytes: Uint8Array, codec: Codec): NewerSessionFormatError | undefined {
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
function firstHeader(bytes: Uint8Array, codec: Codec): SessionHeader {
  return parseHeader(firstLine(bytes, codec));
}

function firstLine(bytes: Uint8Array, codec: Codec): string {
  const text = decompressText(firstFrame(bytes), codec);
  const newline = text.indexOf("\n");
  return newline < 0 ? text : text.slice(0, newline);
}

/** The first line as JSON, unvalidated; undefined when there is no readable first line. */
function rawHeader(bytes: Uint8Array, codec: Codec): unknown {
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

/** The first HEAD_BYTES of a file, or all of it when its first record is longer. */
async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const head = buffer.subarray(0, bytesRead);
    if (bytesRead < HEAD_BYTES) return head;
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const isMarked = view.getUint32(0, true) === MARKER_MAGIC;
    if (isMarked && MARKER_SIZE + view.getUint32(8, true) <= bytesRead) return head;
    return await readFile(path);
  } finally {
    await handle.close();
  }
}

/**
 * Where repacking starts: after the header record and the full records that follow it; undefined
 * when there are fewer than REPACK_AT records after that, or the file has frames ion did not write.
 */
function repackFrom(bytes: Uint8Array, records: readonly FrameRecord[]): number | undefined {
  if (records.length === 0 || !records.every((r) => r.kind === "marked")) return undefined;
  let k = 1;
  while (k < records.length) {
    const record = records[k]!;
    const size = contentSizeOf(bytes, record.frameStart, record.end);
    if (size === undefined || size < FULL_RECORD) break;
    k++;
  }
  return records.length - k >= REPACK_AT ? records[k]!.start : undefined;
}

/**
 * Rewrites the records from `from` on as records of whole lines of up to MAX_FRAME_CONTENT bytes;
 * what comes before is copied byte for byte. The new records are checked (they must decompress to
 * the same text), the file is written to a temp file, fsynced and renamed over the old one: a crash
 * leaves one or the other, never a mix. The caller holds the lock. Returns the new size.
 */
function repack(path: string, dir: string, bytes: Uint8Array, from: number, codec: Codec): number {
  const text = codec.decompress(bytes.subarray(from));
  const records: Uint8Array[] = [];
  for (const piece of lineChunks(text, MAX_FRAME_CONTENT)) {
    const record = encodeRecord(compressFrames(codec, piece));
    if (!sameBytes(codec.decompress(record.subarray(MARKER_SIZE)), piece)) {
      throw new Error("the repacked data did not decompress to the original");
    }
    records.push(record);
  }
  const next = concat([bytes.subarray(0, from), ...records]);
  const tmp = `${path}.${process.pid}${REPACK_SUFFIX}`;
  try {
    const fd = openSync(tmp, "wx", 0o600);
    try {
      writeAll(fd, next);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncDir(dir);
  return next.length;
}

/** `text` cut after newlines into pieces of at most `max` bytes (a longer line is a piece of its own). */
function lineChunks(text: Uint8Array, max: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + max, text.length);
    if (end < text.length) {
      const newline = text.lastIndexOf(0x0a, end - 1);
      if (newline >= start) end = newline + 1;
      else {
        const next = text.indexOf(0x0a, end);
        end = next < 0 ? text.length : next + 1;
      }
    }
    pieces.push(text.subarray(start, end));
    start = end;
  }
  return pieces;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** Renames a damaged file to `<name>.corrupt-<time>` (never over an existing file); returns the new path. */
function moveAside(path: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  let target = `${path}.corrupt-${stamp}`;
  for (let i = 1; existsSync(target); i++) target = `${path}.corrupt-${stamp}-${i}`;
  try {
    renameSync(path, target);
  } catch (err) {
    throw new IonError(
      "io",
      `session file ${path} is damaged and could not be moved aside (${messageOf(err)})`,
      {
        cause: err,
      },
    );
  }
  return target;
}

function tornWarning(id: string, tail: TornTail): string {
  return `session ${id}: dropped a torn tail of ${tail.bytes} byte(s) at offset ${tail.offset} (${tail.reason}) — the last save was interrupted`;
}

function checkId(id: string): string {
  if (!ID_PATTERN.test(id)) throw new IonError("usage", `invalid session id ${JSON.stringify(id)}`);
  return id;
}

function noSuchSession(id: string): IonError {
  return new IonError("usage", `no session matches ${id}`);
}

function ensureDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw asIoError(err, `cannot create ${dir}`);
  }
}

/** Makes a new directory entry (a created or renamed file) durable. POSIX only: Windows cannot open directories. */
function syncDir(dir: string): void {
  if (process.platform === "win32") return;
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

function readAll(fd: number): Uint8Array {
  const size = fstatSync(fd).size;
  const bytes = new Uint8Array(size);
  let offset = 0;
  while (offset < size) {
    const read = readSync(fd, bytes, offset, size - offset, offset);
    if (read === 0) break;
    offset += read;
  }
  return bytes.subarray(0, offset);
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function compareNewest(aTime: string, aId: string, bTime: string, bId: string): number {
  if (aTime !== bTime) return aTime < bTime ? 1 : -1;
  return aId < bId ? 1 : aId > bId ? -1 : 0;
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return `${where}${issue.message}`;
}

function asIoError(err: unknown, what: string): Error {
  if (err instanceof IonError) return err;
  return new IonError("io", `${what} (${messageOf(err)})`, { cause: err });
}

function errnoOf(err: unknown): string | undefined {
  return err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
