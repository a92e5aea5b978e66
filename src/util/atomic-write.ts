/**
 * The one way ion replaces a file: the data goes to a temp file in the same directory, is flushed to
 * the disk, and the temp file is renamed over the target — a reader, or a crash of the process or of
 * the machine, sees the old file or the new one, never a mix or an empty file. When anything fails
 * the temp file is removed and the old file is left as it was; the error is thrown as it came, for
 * the caller to put in its own words. The directory must exist.
 *
 * Async for everything on the event loop (a tool's write must not stall the UI while the disk
 * syncs); sync for the session files, whose code is synchronous by design (history/).
 */
import {
  closeSync,
  fchmodSync,
  fdatasyncSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errnoOf } from "./error-text.ts";

export interface AtomicWriteOptions {
  /**
   * The file's permission bits, set exactly (the umask cannot loosen or tighten them): 0o600 for a
   * file holding secrets. Default: the bits of the file being replaced, else 0o666 less the umask,
   * like any new file.
   */
  mode?: number;
  /**
   * How much is on the disk when the call returns. "file" (default): the data, before the rename. "directory":
   * the rename too (the directory is synced after it), for what the user would have to enter again.
   * "none": nothing is synced, for a caller that syncs the new file and its directory itself later.
   */
  durability?: "none" | "file" | "directory";
  /**
   * The temp file, when the caller must recognise leftovers of a write a crash cut short (it must be
   * in the target's directory). Default: `.<name>.<pid>.<random>.tmp` beside the target.
   */
  temp?: string;
}

/** Replaces (or creates) `path` with `data`, atomically; see the module comment. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temp = tempPathOf(path, options);
  const mode = options.mode ?? (await existingMode(path));
  let created = false;
  try {
    const handle = await open(temp, "wx", options.mode ?? 0o666);
    created = true;
    try {
      await handle.writeFile(data);
      // After open: the mode given to open is masked by the umask, chmod is not.
      if (mode !== undefined) await handle.chmod(mode);
      if (options.durability !== "none") await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    // Only a temp file this call made is removed: another's, of the same name, is not ours.
    if (created) await rm(temp, { force: true });
    throw err;
  }
  if (options.durability === "directory") syncDirectory(dirname(path));
}

/** writeFileAtomic for synchronous code. */
export function writeFileAtomicSync(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): void {
  const temp = tempPathOf(path, options);
  const mode = options.mode ?? existingModeSync(path);
  let created = false;
  try {
    const fd = openSync(temp, "wx", options.mode ?? 0o666);
    created = true;
    try {
      writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
      if (mode !== undefined) fchmodSync(fd, mode);
      if (options.durability !== "none") fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    if (created) rmSync(temp, { force: true });
    throw err;
  }
  if (options.durability === "directory") syncDirectory(dirname(path));
}

function tempPathOf(path: string, options: AtomicWriteOptions): string {
  if (options.temp === undefined) {
    const tag = `${process.pid}.${crypto.randomUUID().slice(0, 8)}`;
    return join(dirname(path), `.${basename(path)}.${tag}.tmp`);
  }
  if (dirname(options.temp) !== dirname(path))
    throw new Error(`the temp file ${options.temp} is not in the directory of ${path}`);
  return options.temp;
}

/** Permission bits of the file being replaced; undefined when there is none. */
async function existingMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch (err) {
    return missing(err);
  }
}

function existingModeSync(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch (err) {
    return missing(err);
  }
}

/** Nothing to replace (the open of the temp file reports a path that cannot be written). */
function missing(err: unknown): undefined {
  const code = errnoOf(err);
  if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return undefined;
  throw err;
}

/** Writes all of `data` at the file's offset (one `write` may take only part of it). */
export function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/** Makes a new directory entry durable. POSIX only: Windows cannot open a directory. */
function syncDirectory(dir: string): void {
  if (process.platform === "win32") return;
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
