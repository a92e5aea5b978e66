import { errnoOf, messageOf } from "../util/error-text.ts";
import type { HookCommand } from "./config.ts";

/** How one hook command ended: its exit code (null when killed), its output, and whether it ran out of time. */
export interface HookRun {
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Signals the process group `pid` leads; a group already gone is fine. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch (err) {
    if (errnoOf(err) !== "ESRCH") throw err;
  }
}

/**
 * Runs one hook as Claude Code does: `sh -c command` in the session's cwd with the event's JSON on
 * stdin. It leads its own process group (detached: setsid), so on timeout everything it started is killed.
 */
export async function runHook(
  hook: HookCommand,
  payload: string,
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<HookRun> {
  let proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  try {
    proc = Bun.spawn(["sh", "-c", hook.command], {
      cwd: options.cwd,
      env: options.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch (err) {
    // A hook that cannot start (a cwd gone, no sh) is a failed hook: one warning, the session goes on.
    return {
      command: hook.command,
      code: null,
      stdout: "",
      stderr: `could not start: ${messageOf(err)}`,
      timedOut: false,
    };
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(proc.pid);
  }, hook.timeoutMs);
  try {
    proc.stdin.write(payload);
    await proc.stdin.end();
  } catch (err) {
    // A hook that exits without reading its input closes the pipe: that is its choice, not a failure.
    if (errnoOf(err) !== "EPIPE") throw err;
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { command: hook.command, code: timedOut ? null : code, stdout, stderr, timedOut };
}
