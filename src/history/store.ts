import { closeSync, existsSync, fdatasyncSync, ftruncateSync, openSync, renameSync, rmSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { IonError } from "../errors.ts";
import { writeFileAtomicSync } from "../util/atomic-write.ts";
import { type Codec, CodecCapacityError, defaultCodec } from "./codec.ts";
import { CorruptReason, type Decoded, decodeSession, newerVersionError } from "./decode.ts";
import type { TornTail } from "./frames.ts";
import { asIoError, ensureDir, errnoOf, messageOf, readAll } from "./io.ts";
import { type ListOptions, latestSessionOf, listSessions, type SessionSummary } from "./listing.ts";
import { acquireLock } from "./lock.ts";
import { removeRepackLeftovers, repack, repackFrom } from "./repack.ts";
import { SESSION_VERSION, type SessionEntry, type SessionHeader } from "./schema.ts";
import type { SearchOptions } from "./search.ts";
import { CorruptSessionError } from "./session-errors.ts";
import { FileSessionWriter, linesRecord, type SessionWriter } from "./writer.ts";

export type { ListOptions, SessionSummary } from "./listing.ts";
export { CorruptSessionError, NewerSessionFormatError, SessionInUseError } from "./session-errors.ts";
export type { SessionWriter } from "./writer.ts";

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
  /** One line each, for -v: e.g. entries of types this ion does not know, skipped. */
  notes?: string[];
  path: string;
}

export interface StoreOptions {
  /** The zstd codec; default: native, else the zstd-codec fallback. */
  codec?: Codec;
}

/** Session ids are file names: UUIDv7 in practice; nothing that could leave the directory. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const MAX_LISTED_MATCHES = 5;

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

  /**
   * New session: id = Bun.randomUUIDv7() unless given; writes the header; takes the lock. The file
   * (and its directory entry) is synced by the writer's first `sync`.
   */
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
    const header: SessionHeader = {
      type: "session",
      version: SESSION_VERSION,
      id,
      created_at: new Date().toISOString(),
      cwd: init.cwd,
      provider: init.provider,
      model: init.model,
      title: init.title,
    };
    const record = linesRecord(codec, [header]);
    ensureDir(this.dir);
    const lock = await acquireLock(this.lockPathOf(id), id);
    // The header is written to a temp file and renamed into place: the session file either does not
    // exist or starts with a complete header, whenever the process dies. Unsynced here: the first
    // save syncs the new file and its directory (FileSessionWriter, `created`).
    try {
      if (existsSync(path)) throw new IonError("usage", `session ${id} already exists`);
      writeFileAtomicSync(path, record, { mode: 0o600, durability: "none" });
      const fd = openSync(path, "a");
      return new FileSessionWriter(id, path, fd, record.length, 0, codec, lock, { created: true });
    } catch (err) {
      lock.release();
      throw asIoError(err, `cannot create session ${id} in ${this.dir}`);
    }
  }

  /**
   * Existing session for appending: takes the lock (a live holder → IonError "in use"), drops and
   * repairs a torn tail (warning in `loaded.warnings`), repacks many small records (see REPACK_AT in
   * `repack.ts`). Corrupt → the file is moved aside and CorruptSessionError thrown.
   */
  async openForAppend(id: string): Promise<{ writer: SessionWriter; loaded: LoadedSession }> {
    const path = this.pathOf(id);
    if (!existsSync(path)) throw noSuchSession(id);
    const codec = await this.codec();
    const lock = await acquireLock(this.lockPathOf(id), id);
    let fd: number | undefined;
    try {
      await removeRepackLeftovers(path);
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
        if (keep !== undefined) size = repack(path, bytes.subarray(0, decoded.validEnd), keep, codec);
      } catch (err) {
        warnings.push(`session ${id}: could not repack the file (${messageOf(err)}); it was left as it was`);
      }
      fd = openSync(path, "a");
      // Entries this ion skipped keep their numbers: the next one follows the last line of the file.
      const writer = new FileSessionWriter(id, path, fd, size, decoded.nextN, codec, lock);
      return {
        writer,
        loaded: { header: decoded.header, entries: decoded.entries, warnings, notes: decoded.notes, path },
      };
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
    return { header: decoded.header, entries: decoded.entries, warnings, notes: decoded.notes, path };
  }

  /** Newest first (by last update); `cwd` filters to sessions whose header cwd equals it. */
  async list(options: ListOptions = {}): Promise<SessionSummary[]> {
    const ids = await this.ids();
    return listSessions(ids, (id) => this.pathOf(id), await this.codec(), options);
  }

  /**
   * The most recently updated session of `cwd`, reading only the files' headers, newest file first.
   * A newer file whose header cannot be read is returned too, so that opening it tells the user and
   * moves it aside instead of the damage going unnoticed.
   */
  async latestForCwd(cwd: string): Promise<string | undefined> {
    const ids = await this.ids();
    return latestSessionOf(
      cwd,
      ids,
      (id) => this.pathOf(id),
      () => this.codec(),
    );
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
    } catch (err) {
      throw asIoError(err, `cannot remove ${path}`);
    } finally {
      lock.release();
    }
  }

  /** Full-text search over the sessions `ids` (see search.ts): matches handed over newest first. */
  async search(ids: readonly string[], options: SearchOptions): Promise<void> {
    const { searchSessions } = await import("./search.ts"); // only this command pays for it
    return searchSessions(ids, (id) => this.pathOf(id), await this.codec(), options);
  }

  /** Ids of the session files in the directory (no corrupt, temp or lock files). */
  async ids(): Promise<string[]> {
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
      const newer = await newerVersionError(bytes, codec);
      if (newer) throw newer;
      throw new CorruptSessionError(id, moveAside(path), err.message);
    }
  }
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
