/**
 * Which sandbox this machine can give a command. On Linux, bwrap on PATH is not enough: a container
 * without user namespaces (or a kernel that forbids them) makes it fail at once, so a probe runs it the
 * way a command would be run and takes its own message as the reason. The probe costs a few ms, so its
 * answer is kept in the cache dir under a key of everything it depends on (the program's path, size
 * and mtime, the user, the kernel and its namespace settings): a session reads one small file instead.
 * Should a stale answer say yes where bwrap now fails, the command is not run and says why (denial.ts).
 */
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { messageOf } from "../util/error-text.ts";
import { bwrapArgv } from "./bwrap.ts";
import type { SandboxAvailability } from "./types.ts";

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";
/** A probe that has not answered by then counts as failed: a hung bwrap must not hold a session. */
const PROBE_TIMEOUT_MS = 3_000;
/** The kernel's settings that decide whether an unprivileged user may create namespaces. */
const KERNEL_FACTS = [
  "/proc/sys/kernel/osrelease",
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

let found: Promise<SandboxAvailability> | undefined;

/** Found once per process; `cacheFile` keeps the probe's answer between processes. */
export function detectSandbox(cacheFile?: string): Promise<SandboxAvailability> {
  found ??= detect(cacheFile);
  return found;
}

/** Forgets the answer of this process (tests that change PATH). */
export function resetSandboxDetection(): void {
  found = undefined;
}

interface Candidate {
  kind: "bwrap" | "sandbox-exec";
  path: string;
  probe: string[];
}

async function detect(cacheFile: string | undefined): Promise<SandboxAvailability> {
  const candidate = await findCandidate();
  if (!("probe" in candidate)) return candidate;
  const key = cacheKey(candidate.path);
  const cached = key && cacheFile ? readCached(cacheFile, key) : undefined;
  if (cached) return cached;
  const failure = await probe(candidate.probe, candidate.kind);
  const answer: SandboxAvailability = failure
    ? { kind: "none", path: candidate.path, reason: failure }
    : { kind: candidate.kind, path: candidate.path };
  if (key && cacheFile) await writeCached(cacheFile, key, answer);
  return answer;
}

async function findCandidate(): Promise<Candidate | SandboxAvailability> {
  if (process.platform === "darwin") {
    if (!(await Bun.file(SANDBOX_EXEC).exists()))
      return { kind: "none", reason: `${SANDBOX_EXEC} is missing` };
    const { seatbeltArgv } = await import("./seatbelt.ts");
    // The profile a command gets, applied once: a macOS that refuses it must not fail every command.
    const probe = seatbeltArgv(SANDBOX_EXEC, { writable: [], tmp: true, network: { kind: "none" } }, [
      "true",
    ]);
    return { kind: "sandbox-exec", path: SANDBOX_EXEC, probe };
  }
  if (process.platform !== "linux") return { kind: "none", reason: `no sandbox on ${process.platform}` };
  const bwrap = Bun.which("bwrap", { PATH: process.env.PATH ?? "" });
  if (!bwrap) return { kind: "none", reason: "bwrap is not installed (the bubblewrap package)" };
  // Exactly the namespaces and mounts a command gets (bwrap.ts), with nothing writable.
  const probe = bwrapArgv(bwrap, { writable: [], isolateNetwork: true, cwd: "/" }, ["true"]);
  return { kind: "bwrap", path: bwrap, probe };
}

/** Everything the probe's answer depends on; undefined when the program cannot be looked at. */
function cacheKey(path: string): string | undefined {
  try {
    const stat = statSync(path);
    const facts = KERNEL_FACTS.map((file) => {
      try {
        return readFileSync(file, "utf8").trim();
      } catch {
        return "-"; // A setting this kernel does not have.
      }
    });
    return [path, stat.size, stat.mtimeMs, stat.mode, process.getuid?.() ?? "", ...facts].join("|");
  } catch {
    return undefined; // Not cacheable: probe every time.
  }
}

function readCached(file: string, key: string): SandboxAvailability | undefined {
  try {
    const saved = JSON.parse(readFileSync(file, "utf8")) as { key?: unknown; answer?: SandboxAvailability };
    return saved.key === key && saved.answer ? saved.answer : undefined;
  } catch {
    return undefined; // No cache yet, or a damaged one: probe again.
  }
}

async function writeCached(file: string, key: string, answer: SandboxAvailability): Promise<void> {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const { writeFileAtomic } = await import("../util/atomic-write.ts");
    await writeFileAtomic(file, `${JSON.stringify({ key, answer })}\n`);
  } catch {
    // A cache that cannot be written costs the next session a probe, nothing more.
  }
}

/** Removes the kept answer (a command found it stale). */
export async function forgetSandboxAnswer(cacheFile: string): Promise<void> {
  const { rm } = await import("node:fs/promises");
  await rm(cacheFile, { force: true });
  found = undefined;
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
