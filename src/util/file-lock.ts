import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { IonError } from "../errors.ts";
import { errnoOf, messageOf } from "../history/io.ts";
import { isProcessRunning, type LockOwner, parseOwner, processStart } from "../history/lock.ts";
import { errnoText } from "./errno-text.ts";

/**
 * Serialises read-modify-write of a small file (config.json, keys.json, a project's config) across ion
 * processes: `<file>.lock`, created with O_EXCL and holding `<pid> <start>` as session locks do
 * (history/lock.ts). Unlike a session lock, a live holder is waited for — config edits take
 * milliseconds — and only after `timeoutMs` is the edit refused. A lock whose holder is gone is taken over.
 */

export const FILE_LOCK_TIMEOUT_MS = 10_000;
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
  const start = processStart(process.pid);
  const mine = start === undefined ? `${process.pid}\n` : `${process.pid} ${start}\n`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new IonError("io", `cannot write ${file} (${errnoText(err)})`, { cause: err });
  }
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    if (tryCreate(path, file, mine)) return () => releaseIfMine(path, mine);
    const text = readText(path);
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

function tryCreate(path: string, file: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if (errnoOf(err) === "EEXIST") return false;
    throw new IonError("io", `cannot write ${file} (${errnoText(err)})`, { cause: err });
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function releaseIfMine(path: string, content: string): void {
  // After a takeover the file belongs to someone else: only our own lock is removed.
  if (readText(path) === content) unlinkSync(path);
}

function isHolderAlive(owner: LockOwner): boolean {
  if (!isProcessRunning(owner.pid)) return false;
  if (owner.start === undefined) return true;
  const start = processStart(owner.pid);
  return start === undefined || start === owner.start;
}

function unwrittenTooLong(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > UNWRITTEN_STALE_MS;
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return false;
    throw err;
  }
}

/** Moves a stale lock aside; if what moved is not the lock judged stale, it is put back (link never replaces). */
function takeOver(path: string, staleText: string): void {
  const aside = `${path}.stale-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return;
    throw new IonError("io", `cannot replace the stale lock ${path} (${messageOf(err)})`, { cause: err });
  }
  if (readText(aside) !== staleText) {
    try {
      linkSync(aside, path);
    } catch (err) {
      if (errnoOf(err) !== "EEXIST") throw err;
    }
  }
  unlinkSync(aside);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return undefined;
    throw new IonError("io", `cannot read the lock ${path} (${messageOf(err)})`, { cause: err });
  }
}
