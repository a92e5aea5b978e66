import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeSync,
} from "node:fs";
import { IonError } from "../errors.ts";
import { systemMessage } from "../util/error-text.ts";

/** Shared with code outside the session files; re-exported for the history modules. */
export { errnoOf, messageOf, systemMessage } from "../util/error-text.ts";

/** File-system helpers the session files share: durable writes, whole-file reads, errors as IonErrors. */

export function ensureDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw asIoError(err, `cannot create ${dir}`);
  }
}

/** Makes a new directory entry (a created or renamed file) durable. POSIX only: Windows cannot open directories. */
export function syncDir(dir: string): void {
  if (process.platform === "win32") return;
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `data` to the new file `tmp` (which must not exist), fdatasyncs it and renames it to `path`:
 * `path` then holds either its old content or all of `data`, whenever the process dies. The caller
 * removes `tmp` when this throws, and syncs the directory when it returns.
 */
export function writeFileDurably(tmp: string, path: string, data: Uint8Array): void {
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeAll(fd, data);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * Writes `data` to the new file `tmp` (which must not exist) and renames it to `path`, unsynced: a
 * crash of the process leaves either no `path` or all of `data` in it, but only a later sync of the
 * file and its directory makes it survive a crash of the machine. The caller removes `tmp` when this
 * throws.
 */
export function writeFileAtomically(tmp: string, path: string, data: Uint8Array): void {
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeAll(fd, data);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

export function readAll(fd: number): Uint8Array {
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

export function asIoError(err: unknown, what: string): Error {
  if (err instanceof IonError) return err;
  return new IonError("io", `${what} (${systemMessage(err)})`, { cause: err });
}
