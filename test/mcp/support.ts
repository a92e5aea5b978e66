/**
 * Helpers for the MCP tests: the real servers from node_modules (run with this bun, so nothing is
 * downloaded), the tests' own small servers, a ToolContext, and /proc readings written apart from
 * src/mcp/process-tree.ts so the tests do not check the code with itself.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { StdioServerDefinition } from "../../src/mcp/config.ts";
import type { McpServers } from "../../src/mcp/servers.ts";
import type { McpTool } from "../../src/mcp/tool.ts";
import type { ToolContext } from "../../src/tools/types.ts";

const MODULES = join(import.meta.dir, "../../node_modules/@modelcontextprotocol");
export const FILESYSTEM_SERVER = join(MODULES, "server-filesystem/dist/index.js");
export const EVERYTHING_SERVER = join(MODULES, "server-everything/dist/index.js");
export const MANY_TOOLS_SERVER = join(import.meta.dir, "servers/many-tools.ts");
export const SILENT_SERVER = join(import.meta.dir, "servers/silent.ts");
const LOCALHOST_ONLY = join(import.meta.dir, "servers/localhost-only.ts");

export function bunServer(
  name: string,
  args: string[],
  env: Record<string, string> = {},
): StdioServerDefinition {
  return { name, type: "stdio", command: process.execPath, args, env };
}

export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  const ctx = { cwd: process.cwd(), allow: [], signal, callId: "toolu_test_1", sessionId: "test-session" };
  return ctx;
}

export function toolNamed(servers: McpServers, name: string): McpTool {
  const tool = servers.tools.find((candidate) => candidate.spec.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${servers.tools.map((t) => t.spec.name).join(", ")}`);
  return tool;
}

/** Polls `check` until it returns a value, or fails after `ms`. */
export async function waitFor<T>(what: string, check: () => T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

export interface LiveProcess {
  pid: number;
  ppid: number;
  /** Start time in clock ticks: tells a process from a later one with the same pid. */
  start: string;
  state: string;
  cmdline: string;
}

function readProcess(pid: number): LiveProcess | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    return { pid, ppid: Number(fields[1]), start: fields[19] ?? "", state: fields[0] ?? "", cmdline };
  } catch {
    return undefined; // it ended while being read
  }
}

/** Every process below `root` (not `root` itself), from a fresh scan of /proc. */
export function descendantsOf(root: number): LiveProcess[] {
  const all = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => readProcess(Number(entry)) ?? []);
  const found: LiveProcess[] = [];
  let parents = new Set([root]);
  while (parents.size > 0) {
    const children = all.filter((p) => parents.has(p.ppid) && !found.includes(p));
    found.push(...children);
    parents = new Set(children.map((p) => p.pid));
  }
  return found;
}

/** True while the process runs: in /proc, the same start time, and not a zombie. */
export function stillRunning(process_: LiveProcess): boolean {
  const now = readProcess(process_.pid);
  return now !== undefined && now.start === process_.start && now.state !== "Z" && now.state !== "X";
}

export interface HttpServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * server-everything in its HTTP mode (`streamableHttp` or the legacy `sse`), on 127.0.0.1 and a port
 * the system picked; resolves once it listens.
 */
export async function startEverythingOverHttp(mode: "streamableHttp" | "sse"): Promise<HttpServer> {
  const server = Bun.spawn([process.execPath, "--preload", LOCALHOST_ONLY, EVERYTHING_SERVER, mode], {
    env: { ...process.env, PORT: "0" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const stop = async () => {
    server.kill();
    await server.exited;
  };
  // stderr is read to its end (a closed pipe could kill the server when it logs), the port from its start.
  const port = new Promise<string>((resolve, reject) => {
    const decoder = new TextDecoder();
    let seen = "";
    void (async () => {
      for await (const chunk of server.stderr) {
        seen += decoder.decode(chunk, { stream: true });
        const found = /listening on port (\d+)/.exec(seen)?.[1];
        if (found !== undefined) resolve(found);
      }
      reject(new Error(`server-everything ${mode} ended before it listened: ${seen}`));
    })();
  });
  const timer = setTimeout(() => server.kill(), 10_000);
  try {
    return { url: `http://127.0.0.1:${await port}${mode === "sse" ? "/sse" : "/mcp"}`, stop };
  } finally {
    clearTimeout(timer);
  }
}
