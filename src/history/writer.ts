import { closeSync, fdatasync, fsync, ftruncateSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { IonError } from "../errors.ts";
import { writeAll } from "../util/atomic-write.ts";
import { type Codec, compressFrames } from "./codec.ts";
import { encodeRecord, rawFrame } from "./frames.ts";
import { asIoError, messageOf } from "./io.ts";
import type { SessionLock } from "./lock.ts";
import type { ContextMessageEntry, NewEntry, SessionEntry } from "./schema.ts";

/**
 * Appending to a session file: one record per save, written with one `write` (so a save survives
 * the process being killed the moment `append` returns), undone if it fails. `sync` then makes what
 * was written durable on the disk — fdatasync off the main thread, and the directory entry of a new
 * file — so the caller decides when to wait for the disk: a session starts a sync as soon as the
 * user's message is written, lets it run while the model answers, and waits for one sync at the end
 * of the turn, before the turn is reported complete.
 */

export interface SessionWriter {
  readonly id: string;
  readonly path: string;
  /** n the next appended entry gets */
  readonly nextN: number;
  /**
   * Numbers and timestamps the entries (`n`, `at`) and appends them as ONE record with one write.
   * O(new entries). Resolves once they are written (not yet synced: see `sync`), with the entries as
   * saved. Besides messages: `{ type: "context_message", source, message }` (the message is saved
   * marked with `context: { source }`) and `{ type: "extension_state", extension, data,
   * parent_tool_use_id? }`.
   */
  append(entries: NewEntry[]): Promise<SessionEntry[]>;
  /**
   * Makes everything appended so far durable (fdatasync, plus the directory for a file just created),
   * without blocking the event loop meanwhile; rejects when that, or an earlier sync not yet waited
   * for, failed.
   */
  sync(): Promise<void>;
  /** Waits for a sync in progress, then releases the lock. Idempotent. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/**
 * A save of less than this is stored, not compressed (frames.ts `rawFrame`): a session written one
 * small save at a time then loads ~15× faster than as thousands of tiny compressed frames, and the
 * space is won back when the file is next opened (repack.ts compresses its small records).
 */
export const RAW_RECORD_MAX = 8 * 1024;

/** One record (see `frames.ts`) holding `values` as JSON Lines, one line each. */
export function linesRecord(codec: Codec, values: readonly unknown[]): Uint8Array {
  const text = encoder.encode(values.map((value) => `${JSON.stringify(value)}\n`).join(""));
  return encodeRecord(text.length < RAW_RECORD_MAX ? rawFrame(text) : compressFrames(codec, text));
}

export class FileSessionWriter implements SessionWriter {
  private fd: number | undefined;
  private size: number;
  private n: number;
  /** Set when a failed save could not be undone: further saves would land after garbage. */
  private broken: string | undefined;
  /** Written since the last sync began. */
  private unsynced: boolean;
  /** The file was just created: its directory entry still has to be synced. */
  private newEntry: boolean;
  /** The latest sync; each sync also waits for (and reports the failure of) the one before. */
  private syncing: Promise<void> | undefined;

  constructor(
    readonly id: string,
    readonly path: string,
    fd: number,
    size: number,
    nextN: number,
    private readonly codec: Codec,
    private readonly lock: SessionLock,
    options: { created?: boolean } = {},
  ) {
    this.fd = fd;
    this.size = size;
    this.n = nextN;
    this.newEntry = options.created === true;
    this.unsynced = this.newEntry;
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
    const record = linesRecord(this.codec, stamped);
    try {
      writeAll(fd, record);
    } catch (err) {
      this.undo(fd, err);
      throw asIoError(err, `cannot save session ${this.id}`);
    }
    this.size += record.length;
    this.n += stamped.length;
    this.unsynced = true;
    return stamped;
  }

  sync(): Promise<void> {
    const fd = this.fd;
    if (fd === undefined)
      return Promise.reject(new IonError("internal", `session ${this.id} was closed; cannot sync it`));
    if (!this.unsynced && this.syncing) return this.syncing;
    if (!this.unsynced) return Promise.resolve();
    const directory = this.newEntry ? dirname(this.path) : undefined;
    this.unsynced = false;
    this.newEntry = false;
    const before = this.syncing;
    const current = Promise.all([before, syncData(fd), directory && syncDirectory(directory)]).then(
      () => undefined,
      (err: unknown) => {
        throw asIoError(err, `cannot save session ${this.id}`);
      },
    );
    this.syncing = current;
    return current;
  }

  async close(): Promise<void> {
    const fd = this.fd;
    if (fd === undefined) return;
    this.fd = undefined;
    try {
      // The descriptor must outlive a sync still running on it. Its failure, if any, was reported to
      // whoever waited for it; closing is not the place to report it again.
      await this.syncing?.catch(() => undefined);
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

function syncData(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

/** Makes a new directory entry durable. POSIX only: Windows cannot open directories. */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const fd = openSync(dir, "r");
  try {
    await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  } finally {
    closeSync(fd);
  }
}

/**
 * Numbers and timestamps an entry. Not validated: ion built it (its type is the schema's), and every
 * entry is validated when a file is read (validate.ts).
 */
function stampEntry(entry: NewEntry, n: number, at: string): SessionEntry {
  const context = contextMessageOf(entry);
  if (context) return { type: "context_message", n, at, source: context.source, message: context.message };
  // `type` first, then `n` and `at`, for people reading the file with `zstd -dc`.
  return Object.assign({ type: entry.type, n, at }, entry) as SessionEntry;
}

/**
 * A context message's source and its message marked with it. A user message that already carries the
 * mark is a context message too, whichever entry it was given as: the user's words and context never
 * share an entry type in the file.
 */
function contextMessageOf(entry: NewEntry): Pick<ContextMessageEntry, "source" | "message"> | undefined {
  if (entry.type === "context_message")
    return { source: entry.source, message: { ...entry.message, context: { source: entry.source } } };
  if (entry.type === "message" && entry.message.role === "user" && entry.message.context)
    return {
      source: entry.message.context.source,
      message: { ...entry.message, context: entry.message.context },
    };
  return undefined;
}
