import { closeSync, fdatasyncSync, ftruncateSync } from "node:fs";
import { IonError } from "../errors.ts";
import { type Codec, compressFrames } from "./codec.ts";
import { encodeRecord } from "./frames.ts";
import { asIoError, messageOf, writeAll } from "./io.ts";
import type { SessionLock } from "./lock.ts";
import type { NewEntry, SessionEntry } from "./schema.ts";

/** Appending to a session file: one record per save, fdatasynced before it is reported, undone if it fails. */

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

const encoder = new TextEncoder();

/** One record (see `frames.ts`) holding `values` as JSON Lines, one line each. */
export function linesRecord(codec: Codec, values: readonly unknown[]): Uint8Array {
  const text = values.map((value) => `${JSON.stringify(value)}\n`).join("");
  return encodeRecord(compressFrames(codec, encoder.encode(text)));
}

export class FileSessionWriter implements SessionWriter {
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
    const record = linesRecord(this.codec, stamped);
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

/**
 * Numbers and timestamps an entry. Not validated: ion built it (its type is the schema's), and every
 * entry is validated when a file is read (validate.ts).
 */
function stampEntry(entry: NewEntry, n: number, at: string): SessionEntry {
  // `type` first, then `n` and `at`, for people reading the file with `zstd -dc`.
  return Object.assign({ type: entry.type, n, at }, entry) as SessionEntry;
}
