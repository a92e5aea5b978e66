/**
 * A stdio server's process and everything it started (`npx` → `node`, `uvx` → `python`, a shell
 * wrapper → the real server). The SDK's transport only ends its own child, and a child's children are
 * re-parented away when it dies, so the tree is noted while the server runs and ended as a whole.
 *
 * Linux reads /proc (a process is identified by pid and start time, so a reused pid is never
 * signalled); elsewhere `ps` gives the parent links and the pid alone identifies a process.
 */
import { readdirSync, readFileSync } from "node:fs";
import { errnoOf } from "../util/error-text.ts";

export interface ProcessId {
  pid: number;
  /** Start time in clock ticks since boot (Linux); undefined where it is not known. */
  start?: string;
}

interface ProcessInfo {
  ppid: number;
  start?: string;
  zombie: boolean;
}

const onLinux = process.platform === "linux";

/** `/proc/<pid>/stat`: the command may hold spaces and parentheses, so fields count from the last `)`. */
function readProcStat(pid: number): ProcessInfo | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined; // gone, or never existed
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(fields[1]), start: fields[19], zombie: fields[0] === "Z" || fields[0] === "X" };
}

function processTable(): Map<number, ProcessInfo> {
  const table = new Map<number, ProcessInfo>();
  if (onLinux) {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const info = readProcStat(Number(entry));
      if (info) table.set(Number(entry), info);
    }
    return table;
  }
  // Bun.spawnSync rather than node:child_process, which would cost its load on every session with a server.
  const ps = Bun.spawnSync(["ps", "-A", "-o", "pid=,ppid=,stat="], { stderr: "ignore" });
  for (const line of ps.stdout.toString().split("\n")) {
    const [pid, ppid, stat] = line.trim().split(/\s+/);
    if (pid && ppid) table.set(Number(pid), { ppid: Number(ppid), zombie: (stat ?? "").startsWith("Z") });
  }
  return table;
}

/** The process as it is now (with its start time on Linux, so a later pid reuse is told apart). */
export function processId(pid: number): ProcessId {
  const start = onLinux ? readProcStat(pid)?.start : undefined;
  return start === undefined ? { pid } : { pid, start };
}

/** `root` and all its living descendants, root first. */
export function processTree(root: number): ProcessId[] {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, info] of table) {
    if (info.zombie) continue;
    const siblings = children.get(info.ppid) ?? [];
    siblings.push(pid);
    children.set(info.ppid, siblings);
  }
  const tree: ProcessId[] = [];
  const queue = [root];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const info = table.get(pid);
    if (!info || info.zombie) continue;
    tree.push(info.start === undefined ? { pid } : { pid, start: info.start });
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** Still running, and still the same process (not a zombie, not a reused pid). */
export function isRunning(process_: ProcessId): boolean {
  if (onLinux) {
    const info = readProcStat(process_.pid);
    return (
      info !== undefined && !info.zombie && (process_.start === undefined || info.start === process_.start)
    );
  }
  try {
    process.kill(process_.pid, 0);
  } catch {
    return false;
  }
  const ps = Bun.spawnSync(["ps", "-o", "stat=", "-p", String(process_.pid)], { stderr: "ignore" });
  return !ps.stdout.toString().trim().startsWith("Z");
}

/** Adds the processes of `more` that `into` does not hold yet. */
export function mergeProcesses(into: ProcessId[], more: readonly ProcessId[]): ProcessId[] {
  for (const candidate of more)
    if (!into.some((known) => known.pid === candidate.pid && known.start === candidate.start))
      into.push(candidate);
  return into;
}

/** Sends `signal` to each process that is still the one noted; a process that is gone is skipped. */
export function signalProcesses(processes: readonly ProcessId[], signal: NodeJS.Signals): void {
  for (const target of processes) {
    if (!isRunning(target)) continue;
    try {
      process.kill(target.pid, signal);
    } catch (err) {
      // ESRCH: it ended between the check and the signal. EPERM would mean it is not ours: leave it.
      const code = errnoOf(err);
      if (code !== "ESRCH" && code !== "EPERM") throw err;
    }
  }
}

const POLL_MS = 20;

/** Resolves true once none of `processes` runs, or false after `ms`. */
export async function waitForExit(processes: readonly ProcessId[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!processes.some((target) => isRunning(target))) return true;
    if (Date.now() >= deadline) return false;
    await Bun.sleep(POLL_MS);
  }
}

/**
 * Ends the processes in bounded time: waits up to `graceMs` for them to leave by themselves (the
 * caller has closed the server's stdin), then SIGTERM, up to `graceMs` more, then SIGKILL.
 */
export async function endProcesses(processes: readonly ProcessId[], graceMs: number): Promise<void> {
  if (await waitForExit(processes, graceMs)) return;
  signalProcesses(processes, "SIGTERM");
  if (await waitForExit(processes, graceMs)) return;
  signalProcesses(processes, "SIGKILL");
}
