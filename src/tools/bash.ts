import { z } from "zod";
import { sandboxDenialNote, sandboxStartFailure } from "../sandbox/denial.ts";
import { messageOf } from "../util/error-text.ts";
import { commandEnvironment } from "./command-env.ts";
import { defineTool } from "./define.ts";
import { watchGroup } from "./group-watchdog.ts";
import { OutputTail } from "./output-tail.ts";
import type { ToolContext, ToolOutcome } from "./types.ts";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
/** Each of stdout and stderr is cut to its last this-many characters. */
const MAX_OUTPUT_CHARS = 30_000;
/** Bytes kept per stream while reading: enough for 30 000 characters of 4-byte UTF-8, and no more. */
const TAIL_BYTES = 128 * 1024;
/** Between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long background processes still holding the output pipes may keep writing. */
const DRAIN_MS = 200;

const schema = z.object({
  command: z.string().min(1, "must not be empty").describe("The shell command to run (bash -c)."),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(
      `Kill the command after this many milliseconds (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS}).`,
    ),
  sandbox: z
    .boolean()
    .optional()
    .describe(
      "false: run this command outside the sandbox. The user is always asked first. Only for a command the sandbox stopped (a write outside the workspace, the network) that really needs it.",
    ),
});

const description = `Run a shell command with bash (sh when bash is not installed) and return {"stdout","stderr","exit_code"} as JSON.

- Runs in the workspace root, in a fresh shell each call: \`cd\`, variables and other shell state do not carry over between calls. Chain steps with \`&&\` in one command, or use \`cd dir && …\`.
- Sandbox: where the user's sandbox is on, commands can write only inside the workspace (and the directories the user allowed, and a /tmp of their own that is emptied after each command) and reach the network only if the user allowed it; reading is not limited. A command the sandbox stopped gets a note saying so: if it truly needs more (installing into the user's home, pushing, downloading), call bash again with sandbox: false and the user is asked. Without a sandbox a command can read and change anything the user can. Either way, prefer commands that stay inside the workspace, and do nothing destructive the user did not ask for.
- No interactive input: stdin is empty (/dev/null) and there is no terminal, so anything that prompts gets end-of-file or fails. Use non-interactive flags (\`-y\`, \`--yes\`, \`--no-edit\`, \`git commit -m …\`). Pagers are disabled (PAGER=cat, GIT_PAGER=cat), git never prompts for credentials, and git's editor is a no-op.
- Timeout: ${DEFAULT_TIMEOUT_MS} ms by default; pass timeout_ms (up to ${MAX_TIMEOUT_MS}) for slow builds or test suites. On timeout or when the user cancels, the command and everything it started get SIGTERM, then SIGKILL ${KILL_GRACE_MS / 1000} s later; the result has exit_code null, the signal, and a note, plus the output so far.
- Background processes (\`cmd &\`, servers, watchers) are killed when the command finishes. To test against a server, start it, run the checks and stop it within one command. Never start a watcher or a command that runs forever.
- Output: stdout and stderr are each cut to their last ${MAX_OUTPUT_CHARS} characters, with a marker giving the full size. For big outputs, filter or narrow the command (\`| tail -n 50\`, \`| grep error\`, \`--quiet\`), or redirect to a file and inspect it.
- A non-zero exit code, a timeout or a kill is reported as an error; the output is still included.
- To read or search files, use read_file, grep, glob and list_files rather than cat, grep, find or ls: they are faster, capped and line-numbered. Use bash to build, test, run scripts, use git and install dependencies.`;

export const bashTool = defineTool({
  name: "bash",
  description,
  schema,
  readOnly: false,
  execute: (args, ctx) =>
    runCommand(args.command, args.timeout_ms ?? DEFAULT_TIMEOUT_MS, ctx, args.sandbox === false),
});

/** The last `capacity` bytes written to it (a ring), and how many bytes were written in all. */
export class TailBuffer {
  readonly #ring: Uint8Array;
  #total = 0;

  constructor(readonly capacity: number) {
    this.#ring = new Uint8Array(capacity);
  }

  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Uint8Array): void {
    const cap = this.capacity;
    const data = chunk.length > cap ? chunk.subarray(chunk.length - cap) : chunk;
    const start = (this.#total + chunk.length - data.length) % cap;
    const first = Math.min(data.length, cap - start);
    this.#ring.set(data.subarray(0, first), start);
    if (first < data.length) this.#ring.set(data.subarray(first), 0);
    this.#total += chunk.length;
  }

  /** The retained bytes, oldest first. */
  bytes(): Uint8Array {
    if (this.#total <= this.capacity) return this.#ring.slice(0, this.#total);
    const pos = this.#total % this.capacity;
    const out = new Uint8Array(this.capacity);
    out.set(this.#ring.subarray(pos), 0);
    out.set(this.#ring.subarray(0, pos), this.capacity - pos);
    return out;
  }

  /**
   * The retained output as text, cut to its last `maxChars` characters with a marker when anything is
   * left out. The ring may start inside a multi-byte character and the cut may fall inside a surrogate
   * pair: both partial characters are dropped rather than shown as garbage.
   */
  text(maxChars: number): string {
    let bytes = this.bytes();
    const dropped = this.#total > bytes.length;
    if (dropped) {
      let skip = 0;
      while (skip < 3 && skip < bytes.length && ((bytes[skip] ?? 0) & 0xc0) === 0x80) skip++;
      bytes = bytes.subarray(skip);
    }
    const text = new TextDecoder().decode(bytes);
    if (!dropped && text.length <= maxChars) return text;
    let start = Math.max(0, text.length - maxChars);
    const code = text.charCodeAt(start);
    if (code >= 0xdc00 && code <= 0xdfff) start++;
    const shown = text.slice(start);
    return `[… truncated: ${this.#total} bytes of output, only the last ${shown.length} characters are shown]\n${shown}`;
  }
}

let shellName: string | undefined;
function shell(): string {
  shellName ??= Bun.which("bash") ? "bash" : "sh";
  return shellName;
}

/**
 * The session's command environment (no provider keys, no secret-like names; without a session, ion's
 * own filtered by the default rules), minus colour forcing, plus settings that keep tools from paging
 * or prompting.
 */
function childEnv(ctx: ToolContext): Record<string, string | undefined> {
  const base = ctx.commandEnv ?? commandEnvironment({ env: process.env });
  const { FORCE_COLOR: _force, CLICOLOR_FORCE: _clicolor, ...env } = base;
  return {
    ...env,
    PAGER: "cat",
    GIT_PAGER: "cat",
    MANPAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
    GIT_EDITOR: "true",
    DEBIAN_FRONTEND: "noninteractive",
  };
}

function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}

/** Signals the whole process group led by `pid`; false when the group no longer exists. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    if (isErrno(err, "ESRCH")) return false;
    throw err;
  }
}

/** Whether `promise` settled within `ms` (its rejection propagates). */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * SIGTERM to the group, then SIGKILL once `settled` (the shell exited and the output pipes closed) or
 * the grace period ran out. Membership is not polled with `kill(-pgid, 0)`: it also counts zombies, which
 * a container's init may never reap.
 */
async function terminateGroup(pid: number, settled: Promise<unknown>): Promise<void> {
  if (!signalGroup(pid, "SIGTERM")) return;
  await within(settled, KILL_GRACE_MS);
  signalGroup(pid, "SIGKILL");
}

/** Reads a stream into `tail` (and `onChunk`, for progress) until it ends or `cancel` is called. */
function pump(
  stream: ReadableStream<Uint8Array>,
  tail: TailBuffer,
  onChunk?: (chunk: Uint8Array) => void,
): { done: Promise<void>; cancel(): Promise<void> } {
  const reader = stream.getReader();
  const done = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      tail.push(value);
      onChunk?.(value);
    }
  })();
  return { done, cancel: () => reader.cancel() };
}

type Stop = "timeout" | "cancel";

function result(fields: {
  stdout: string;
  stderr: string;
  exit_code: number | null;
  signal?: string;
  note?: string;
}): string {
  return JSON.stringify(fields);
}

async function runCommand(
  command: string,
  timeoutMs: number,
  ctx: ToolContext,
  outsideSandbox: boolean,
): Promise<ToolOutcome> {
  if (ctx.signal.aborted) {
    return {
      is_error: true,
      content: result({ stdout: "", stderr: "", exit_code: null, note: "cancelled before it started" }),
    };
  }

  const sandbox = ctx.sandbox?.enforced && !outsideSandbox ? ctx.sandbox : undefined;
  const wrapped = sandbox
    ? await sandbox.wrap([shell(), "-c", command], ctx.cwd, ctx.cwd)
    : { argv: [shell(), "-c", command], env: {} };
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    // detached: setsid() in the child, so it leads a new process group (and session, without a
    // controlling terminal) and `kill(-pid)` reaches everything it starts. Under bwrap the group is
    // bwrap alone: its PID namespace dies with it, and everything the command started with it.
    proc = Bun.spawn(wrapped.argv, {
      cwd: ctx.cwd,
      env: { ...childEnv(ctx), ...wrapped.env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch (err) {
    const message = messageOf(err);
    throw new Error(`could not start ${shell()} in ${ctx.cwd}: ${message}`, { cause: err });
  }
  // If ion dies before the command ends, the group dies with it.
  const watchdog = watchGroup(proc.pid);

  const stdout = new TailBuffer(TAIL_BYTES);
  const stderr = new TailBuffer(TAIL_BYTES);
  // The latest output line, for the front end's status line while the command runs.
  const progress = ctx.onUpdate ? new OutputTail(ctx.onUpdate) : undefined;
  const outPump = pump(proc.stdout, stdout, progress?.stream());
  const errPump = pump(proc.stderr, stderr, progress?.stream());
  const pumps = Promise.all([outPump.done, errPump.done]);
  const settled = Promise.all([proc.exited, pumps]);

  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<Stop>((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    onAbort = () => resolve("cancel");
    ctx.signal.addEventListener("abort", onAbort, { once: true });
  });

  let stop: Stop | undefined;
  let leftovers = false;
  try {
    const first = await Promise.race([proc.exited.then(() => "exit" as const), stopped]);
    if (first === "exit") {
      // Background processes may still hold the pipes: let them finish writing briefly, then kill them.
      leftovers = !(await within(pumps, DRAIN_MS));
      await terminateGroup(proc.pid, settled);
    } else {
      stop = first;
      await terminateGroup(proc.pid, settled);
      await within(proc.exited, KILL_GRACE_MS);
    }
    // Anything still holding a pipe left the group (setsid, a daemon): stop reading rather than wait for it.
    await within(pumps, DRAIN_MS);
  } finally {
    watchdog.stop();
    progress?.close();
    clearTimeout(timer);
    if (onAbort) ctx.signal.removeEventListener("abort", onAbort);
    await Promise.all([outPump.cancel(), errPump.cancel()]);
  }
  await pumps;

  const notes: string[] = [];
  if (stop === "timeout")
    notes.push(`timed out after ${timeoutMs} ms; the command and its children were killed`);
  if (stop === "cancel") notes.push("cancelled by the user; the command and its children were killed");
  if (leftovers) notes.push("background processes still running when the command finished were killed");

  const exitCode = proc.exitCode;
  const out = stdout.text(MAX_OUTPUT_CHARS);
  const err = stderr.text(MAX_OUTPUT_CHARS);
  const startFailure =
    sandbox && stop === undefined ? sandboxStartFailure(sandbox.current, exitCode, out, err) : undefined;
  if (startFailure) await sandbox?.startFailed();
  const denial =
    startFailure ??
    (sandbox && stop === undefined && exitCode !== 0
      ? sandboxDenialNote(sandbox.current, `${err}\n${out}`)
      : undefined);
  if (denial) notes.push(denial);
  const signal = proc.signalCode === null ? undefined : String(proc.signalCode);
  return {
    is_error: stop !== undefined || exitCode !== 0,
    metadata: {
      exitCode,
      ...(stop === "timeout" ? { stopped: { reason: "timeout", after_ms: timeoutMs } } : {}),
      ...(stop === "cancel" ? { stopped: { reason: "cancel" } } : {}),
    },
    content: result({
      stdout: out,
      stderr: err,
      exit_code: exitCode,
      ...(signal ? { signal } : {}),
      ...(notes.length > 0 ? { note: notes.join("; ") } : {}),
    }),
  };
}
