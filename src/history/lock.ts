import {
  closeSync,
  existsSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { IonError } from "../errors.ts";
import { errnoOf, messageOf, systemMessage } from "./io.ts";
import { holderKind } from "./lock-holder.ts";
import { SessionInUseError } from "./session-errors.ts";

/**
 * One writer per session: `<dir>/<id>.lock`, created with O_EXCL, holds `<pid> <start>` — the pid
 * and, on Linux, the process's start time (field 22 of /proc/<pid>/stat), so a pid reused by an
 * unrelated process is not mistaken for the holder. A lock whose holder is no longer running (gone,
 * a zombie, or a reused pid) is stale and is taken over.
 */

export interface LockOwner {
  pid: number;
  /** Start time in clock ticks since boot (Linux), when recorded. */
  start: string | undefined;
}

export interface SessionLock {
  readonly path: string;
  /** Removes the lock file if this process still holds it. Idempotent. */
  release(): void;
}

const HAS_PROC = process.platform === "linux" && existsSync("/proc/self/stat");
/** How long a reader waits for the holder to write its pid into a just-created, still-empty lock. */
const EMPTY_LOCK_WAIT_MS = 200;
const TAKEOVER_ATTEMPTS = 5;

/** Takes the lock at `path` for session `id`, or throws IonError("io") naming the live holder. */
export async function acquireLock(path: string, id: string): Promise<SessionLock> {
  const mine = ownerLine(process.pid, processStart(process.pid));
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
    if (tryCreateLock(path, mine, (err) => lockError(path, err))) return heldLock(path, mine);
    const seen = await readOwnerWaiting(path);
    if (seen === undefined) continue; // released meanwhile: try again
    if (seen.owner && isHolderAlive(seen.owner)) {
      throw new SessionInUseError(id, seen.owner.pid, holderKind(seen.owner.pid));
    }
    takeOver(path, seen.text);
  }
  throw new IonError("io", `could not take the lock ${path}: other ion processes keep taking it`);
}

/** The line a lock file holds: `<pid> <start>` (the start time tells a reused pid apart). */
export function ownerLine(pid: number, start: string | undefined): string {
  return start === undefined ? `${pid}\n` : `${pid} ${start}\n`;
}

function lockError(path: string, err: unknown): IonError {
  return new IonError("io", `cannot create the session lock ${path} (${systemMessage(err)})`, { cause: err });
}

/**
 * Creates the lock file `path` holding `content` (O_EXCL): false when it already exists; any other
 * failure is thrown as `failure(err)`. Also the file locks' (util/file-lock.ts).
 */
export function tryCreateLock(path: string, content: string, failure: (err: unknown) => Error): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if (errnoOf(err) === "EEXIST") return false;
    throw failure(err);
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Locks this process holds, released when it exits by any path (a forced exit after a signal too). */
const held = new Set<SessionLock>();
let releaseOnExit = false;

function releaseAll(): void {
  for (const lock of held) lock.release();
}

function heldLock(path: string, content: string): SessionLock {
  let isHeld = true;
  const lock: SessionLock = {
    path,
    release() {
      if (!isHeld) return;
      isHeld = false;
      held.delete(lock);
      removeIfMine(path, content);
    },
  };
  held.add(lock);
  if (!releaseOnExit) {
    releaseOnExit = true;
    process.on("exit", releaseAll);
  }
  return lock;
}

/**
 * The lock's text and owner. A lock without its final newline is still being written by its creator:
 * that is waited for briefly, then it counts as stale (its creator died between creating and writing).
 */
async function readOwnerWaiting(
  path: string,
): Promise<{ text: string; owner: LockOwner | undefined } | undefined> {
  const deadline = Date.now() + EMPTY_LOCK_WAIT_MS;
  for (;;) {
    const text = readLockText(path);
    if (text === undefined) return undefined;
    const owner = parseOwner(text);
    if (text.endsWith("\n") || Date.now() >= deadline) return { text, owner };
    await Bun.sleep(5);
  }
}

export function parseOwner(text: string): LockOwner | undefined {
  const match = /^(\d+)(?: (\d+))?\n$/.exec(text);
  if (!match) return undefined;
  const pid = Number(match[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, start: match[2] } : undefined;
}

/** Removes the lock file while it is still ours (`content`): after a takeover it belongs to someone else. */
export function removeIfMine(path: string, content: string): void {
  if (readLockText(path) === content) unlinkSync(path);
}

/**
 * Replaces a stale lock. The lock is first renamed to a private name, then checked: if what was moved
 * is not the stale lock that was judged (another process took it over in between), it is put back.
 */
export function takeOver(path: string, staleText: string): void {
  const aside = `${path}.stale-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return; // someone else removed it first
    throw new IonError("io", `cannot replace the stale lock ${path} (${messageOf(err)})`, { cause: err });
  }
  const moved = readLockText(aside);
  if (moved !== undefined && moved !== staleText) {
    // A fresh lock of another process: put it back unless yet another lock appeared meanwhile
    // (link never replaces), so the next attempt sees its live holder.
    try {
      linkSync(aside, path);
    } catch (err) {
      if (errnoOf(err) !== "EEXIST") throw err;
    }
  }
  unlinkSync(aside);
}

export function readLockText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return undefined;
    throw new IonError("io", `cannot read the lock ${path} (${messageOf(err)})`, { cause: err });
  }
}

/** Whether a lock's holder still runs (the same process, not a later one with its pid). */
export function isHolderAlive(owner: LockOwner): boolean {
  if (!isProcessRunning(owner.pid)) return false;
  if (owner.start === undefined) return true;
  const start = processStart(owner.pid);
  return start === undefined || start === owner.start;
}

/**
 * Whether `pid` is a running process. On Linux from /proc/<pid>/stat: a zombie (Z) or dead (X)
 * process is not running — dead processes can linger unreaped (e.g. in containers whose init does not
 * reap). Elsewhere `kill(pid, 0)`: EPERM means it exists but belongs to someone else.
 */
export function isProcessRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (HAS_PROC) {
    const state = procStat(pid)?.state;
    return state !== undefined && state !== "Z" && state !== "X" && state !== "x";
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if (errnoOf(err) === "EPERM") return true;
    if (errnoOf(err) === "ESRCH") return false;
    throw err;
  }
}

/** The process's start time (Linux), to tell it from a later process with the same pid. */
export function processStart(pid: number): string | undefined {
  return HAS_PROC ? procStat(pid)?.start : undefined;
}

/** State and start time from /proc/<pid>/stat; the command name in parentheses may hold spaces. */
function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (err) {
    const code = errnoOf(err);
    if (code === "ENOENT" || code === "ESRCH") return undefined;
    throw err;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After "pid (comm) ": field 3 (state) is fields[0], field 22 (starttime) is fields[19].
  const state = fields[0];
  const start = fields[19];
  return state === undefined || start === undefined ? undefined : { state, start };
}
