import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { IonError } from "../errors.ts";
import {
  isHolderAlive,
  ownerLine,
  parseOwner,
  processStart,
  readLockText,
  removeIfMine,
  takeOver,
  tryCreateLock,
} from "../history/lock.ts";
import { errnoOf, errnoText } from "./error-text.ts";

/**
 * Serialises read-modify-write of a small file (config.json, keys.json, a project's config) across ion
 * processes: `<file>.lock`, created with O_EXCL and holding `<pid> <start>` as session locks do
 * (history/lock.ts). Unlike a session lock, a live holder is waited for — config edits take
 * milliseconds — and only after `timeoutMs` is the edit refused. A lock whose holder is gone is taken over.
 */

const FILE_LOCK_TIMEOUT_MS = 10_000;
/** A lock still without its owner line after this long was left by a creator that died before writing it. */
const UNWRITTEN_STALE_MS = 500;

export async function withFileLock<T>(
  file: string,
  fn: () => Promise<T>,
  timeoutMs: number = FILE_LOCK_TIMEOUT_MS,
): Promise<T> {
  const release = await acquire(file, timeoutMs);
  try {
    return await fn();
  } finally {
    release();
  }
}

async function acquire(file: string, timeoutMs: number): Promise<() => void> {
  const path = `${file}.lock`;
  const mine = ownerLine(process.pid, processStart(process.pid));
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw writeError(file, err);
  }
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    if (tryCreateLock(path, mine, (err) => writeError(file, err))) return () => removeIfMine(path, mine);
    const text = readLockText(path);
    if (text === undefined) continue; // released meanwhile
    const owner = parseOwner(text);
    if (owner ? !isHolderAlive(owner) : unwrittenTooLong(path)) {
      takeOver(path, text);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = owner ? `ion process ${owner.pid}` : "another ion process";
      throw new IonError("io", `${file} is being changed by ${who}; gave up after ${timeoutMs / 1000} s`, {
        hint: `nothing was written; if no ion is running, remove ${path} and try again`,
      });
    }
    // Jittered, growing waits: many parallel edits should not retry in lock-step.
    await Bun.sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
}

function writeError(file: string, err: unknown): IonError {
  return new IonError("io", `cannot write ${file} (${errnoText(err)})`, { cause: err });
}

function unwrittenTooLong(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > UNWRITTEN_STALE_MS;
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return false;
    throw err;
  }
}
