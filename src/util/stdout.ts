/**
 * What ion does when its output goes away. The reader of a pipe leaving (`ion … | head -n 1`) ends ion
 * quietly with status 141 — what a shell shows for a writer that SIGPIPE ended (`yes | head`). Bun
 * ignores SIGPIPE and reports EPIPE as an `error` event on process.stdout/stderr, which, unheard, is
 * printed as an uncaught error with a stack trace. Any other failed write (a full disk: `> /dev/full`)
 * is one `ion:` line and status 1: the output is lost, so success would be a lie.
 *
 * A command with work in flight registers `onStdoutClosed(stop)` — the run aborts its turn so that its
 * session is saved — and ion exits once the command has wound down (at most GRACE_MS later). With no
 * such hook registered ion exits at once.
 *
 * The fast paths (`--version`, `--help`) never touch process.stdout (see main.ts): `writeFast` reports a
 * failed write through Bun.write's promise instead, at the same cost as console.log. `ion run` writes
 * through fd-writer.ts (synchronous writes to fds 1 and 2, failures handled as here) and creates the
 * process streams — ~2 ms of start-up — only when it needs them (`useProcessStreams`, for a prompt).
 * This module imports nothing but error-text.ts (which imports nothing): even node:fs would cost
 * `--version` ~1 ms.
 */
import { errnoOf, messageOf } from "./error-text.ts";

/** 128 + SIGPIPE: the status a shell reports for `yes | head`. */
export const BROKEN_PIPE_STATUS = 141;
const WRITE_FAILED_STATUS = 1;
/** How long registered hooks get to wind a command down before ion exits anyway. */
const GRACE_MS = 5_000;

type Hook = () => void | Promise<void>;
type Exit = (code: number) => void;

interface Failure {
  status: number;
  /** The line for stderr; none for a closed pipe, which is not an error. */
  message: string | undefined;
}

/**
 * The real console.error, taken before a command routes console output elsewhere (console.ts sends
 * it nowhere in a run): the one line saying why the output failed must still reach stderr.
 */
const printError = console.error;

const hooks = new Set<Hook>();
let failure: Failure | undefined;
let hooksDone: Promise<void> = Promise.resolve();
let watching: Exit | undefined;
/** Whether process.stdout/stderr are listened to (and so exist, and are flushed at the end). */
let streamsWatched = false;

/**
 * Calls `hook` once if stdout or stderr is closed (or fails) while a command runs; the returned function
 * unregisters it. The hook should stop the command's work (abort a turn), not exit: ion exits when the
 * command returns.
 */
export function onStdoutClosed(hook: Hook): () => void {
  hooks.add(hook);
  return () => {
    hooks.delete(hook);
  };
}

/** Whether ion's output has gone away (then nothing more should be reported on it). */
export function stdoutClosed(): boolean {
  return failure !== undefined;
}

/** Node's "ENOSPC: no space left on device, write" as "no space left on device (ENOSPC)". */
function reason(err: unknown): string {
  const message = messageOf(err);
  const code = errnoOf(err);
  if (code === undefined) return message;
  const text = message.startsWith(`${code}: `)
    ? message.slice(code.length + 2).replace(/, \w+$/, "")
    : message;
  return `${text} (${code})`;
}

function failureFor(err: unknown, stream: "stdout" | "stderr"): Failure {
  if (errnoOf(err) === "EPIPE") return { status: BROKEN_PIPE_STATUS, message: undefined };
  return { status: WRITE_FAILED_STATUS, message: `ion: cannot write to ${stream}: ${reason(err)}` };
}

/**
 * The failure of writing to a stdout the caller closed (`ion run … >&-`). The runtime puts /dev/null
 * on a closed fd 1 at start (fd-modes.ts tells), where every write would "succeed" and be lost.
 */
export function closedStdoutError(): Error {
  return Object.assign(new Error("it is closed"), { code: "EBADF" });
}

function exitWith(exit: Exit, found: Failure): void {
  if (found.message !== undefined) printError(found.message);
  exit(found.status);
}

function failed(err: unknown, stream: "stdout" | "stderr", exit: Exit): void {
  if (failure) return;
  failure = failureFor(err, stream);
  const found = failure;
  if (hooks.size === 0) {
    exitWith(exit, found);
    return;
  }
  hooksDone = Promise.allSettled([...hooks].map(async (hook) => hook())).then((outcomes) => {
    for (const outcome of outcomes)
      if (outcome.status === "rejected") printError(`ion: ${String(outcome.reason)}`);
  });
  // A command that does not wind down after its hooks ran must not keep ion alive with nowhere to write.
  setTimeout(() => exitWith(exit, found), GRACE_MS).unref();
}

/**
 * Listens for failed writes on process.stdout/stderr. Call once, right before a command runs: touching
 * the streams costs start-up time the fast paths must not pay. `exit` ends the process with a status.
 * With `processStreams: false` the streams are left alone until `useProcessStreams()`: the command
 * writes through fd-writer.ts.
 */
export function watchOutputs(exit: Exit, options: { processStreams?: boolean } = {}): void {
  if (watching) return;
  watching = exit;
  if (options.processStreams !== false) useProcessStreams();
}

/** Creates process.stdout/stderr (if need be) and listens for their failed writes; once. */
export function useProcessStreams(): void {
  const exit = watching;
  if (!exit || streamsWatched) return;
  streamsWatched = true;
  process.stdout.on("error", (err) => failed(err, "stdout", exit));
  process.stderr.on("error", (err) => failed(err, "stderr", exit));
}

/**
 * A failed write on stdout or stderr made without the process streams (fd-writer.ts): handled as a
 * failure of those streams. Before `watchOutputs` it is simply thrown.
 */
export function writeFailed(err: unknown, stream: "stdout" | "stderr"): void {
  if (!watching) throw err;
  failed(err, stream, watching);
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (!stream.write("", () => resolve())) stream.once("drain", () => resolve());
  });
}

/**
 * After a command: flushes both streams and resolves to the exit status — `code` unless the output
 * failed, which wins (its hooks have then had their turn and its line is on stderr).
 */
export async function settleOutputs(code: number): Promise<number> {
  if (!failure && streamsWatched) await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // Bun reports a failed write after the callbacks of later writes (the flush above): one more turn of
  // the event loop lets that error event arrive.
  await new Promise((resolve) => setImmediate(resolve));
  if (!failure) return code;
  await hooksDone;
  if (failure.message !== undefined) printError(failure.message);
  return failure.status;
}

/**
 * Writes `text` to stdout without process.stdout (see the header) and resolves to the exit status:
 * 0, BROKEN_PIPE_STATUS when the reader has gone, or 1 with an `ion:` line when the write failed.
 */
export async function writeFast(text: string): Promise<number> {
  try {
    await Bun.write(Bun.stdout, text);
    return 0;
  } catch (err) {
    const found = failureFor(err, "stdout");
    if (found.message !== undefined) printError(found.message);
    return found.status;
  }
}
