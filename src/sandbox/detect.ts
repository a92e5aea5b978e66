/**
 * Which sandbox this machine can give a command, found once per process. On Linux, bwrap on PATH is not
 * enough: a container without user namespaces (or a kernel that forbids them) makes it fail at once, so a
 * probe runs it the way a command would be run and takes its own message as the reason.
 */
import { messageOf } from "../util/error-text.ts";
import type { SandboxAvailability } from "./types.ts";

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";
/** A probe that has not answered by then counts as failed: a hung bwrap must not hold a session. */
const PROBE_TIMEOUT_MS = 3_000;

let found: Promise<SandboxAvailability> | undefined;

export function detectSandbox(): Promise<SandboxAvailability> {
  found ??= detect();
  return found;
}

async function detect(): Promise<SandboxAvailability> {
  if (process.platform === "darwin") {
    if (!(await Bun.file(SANDBOX_EXEC).exists()))
      return { kind: "none", reason: `${SANDBOX_EXEC} is missing` };
    const { seatbeltArgv } = await import("./seatbelt.ts");
    // The profile a command gets, applied once: a macOS that refuses it must not fail every command.
    const argv = seatbeltArgv(SANDBOX_EXEC, { writable: [], tmp: true, network: { kind: "none" } }, ["true"]);
    const failure = await probe(argv, "sandbox-exec");
    return failure
      ? { kind: "none", path: SANDBOX_EXEC, reason: failure }
      : { kind: "sandbox-exec", path: SANDBOX_EXEC };
  }
  if (process.platform !== "linux") return { kind: "none", reason: `no sandbox on ${process.platform}` };
  const bwrap = Bun.which("bwrap", { PATH: process.env.PATH ?? "" });
  if (!bwrap) return { kind: "none", reason: "bwrap is not installed (the bubblewrap package)" };
  const failure = await probe(
    [
      bwrap,
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--unshare-net",
      "--unshare-pid",
      "--die-with-parent",
      "--",
      "true",
    ],
    "bwrap",
  );
  return failure ? { kind: "none", path: bwrap, reason: failure } : { kind: "bwrap", path: bwrap };
}

/** Runs `true` the way a command would be run; undefined when it worked, else why not. */
async function probe(argv: string[], name: string): Promise<string | undefined> {
  let proc: Bun.Subprocess<"ignore", "ignore", "pipe">;
  try {
    proc = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  } catch (err) {
    return `${name} could not start: ${messageOf(err)}`;
  }
  const timer = setTimeout(() => proc.kill("SIGKILL"), PROBE_TIMEOUT_MS);
  try {
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    if (code === 0) return undefined;
    const said = stderr.trim().split("\n")[0]?.trim();
    if (proc.signalCode === "SIGKILL") return `${name} did not answer within ${PROBE_TIMEOUT_MS / 1000} s`;
    return `${name} cannot create a sandbox here: ${said || `exit ${code}`}`;
  } finally {
    clearTimeout(timer);
  }
}

/** Forgets the cached answer (tests that change PATH). */
export function resetSandboxDetection(): void {
  found = undefined;
}
