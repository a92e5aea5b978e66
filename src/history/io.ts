import { fstatSync, mkdirSync, readSync } from "node:fs";
import { IonError } from "../errors.ts";
import { systemMessage } from "../util/error-text.ts";

/** Shared with code outside the session files; re-exported for the history modules. */
export { errnoOf, messageOf, systemMessage } from "../util/error-text.ts";

/**
 * File-system helpers the session files share: whole writes and reads, errors as IonErrors (a file is
 * replaced with util/atomic-write.ts).
 */

export function ensureDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw asIoError(err, `cannot create ${dir}`);
  }
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
