/**
 * A stdio server's process, spawned without the MCP SDK: a session spawns its servers as soon as
 * their definitions are known, while the SDK (~20 ms with zod) still loads, and the SDK's client
 * talks to the running process later through process-transport.ts. What the process says before
 * then is kept, so nothing is lost: its output, its errors, its end.
 *
 * The spawn is the SDK's own (StdioClientTransport's): the command and args without a shell, the
 * environment the SDK would give it, the server's working directory, stderr straight into its log.
 * Only made with Bun.spawn instead of node:child_process, whose first spawn costs a few milliseconds.
 */
import { resolve } from "node:path";
import type { Subprocess } from "bun";
import type { McpServerDefinition, StdioServerDefinition } from "./config.ts";
import type { Environment } from "./expand.ts";
import { ServerLog } from "./log-file.ts";
import { isRunning, type ProcessId, processId, processTree, signalProcesses } from "./process-tree.ts";

/** What StdioClientTransport passes on from ion's own environment (its `getDefaultEnvironment`). */
const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** The environment the SDK gives a stdio server: its inherited few, then ion's, then the server's `env`. */
function serverEnvironment(env: Environment, definition: StdioServerDefinition): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    // A value starting "()" is a shell function: the SDK leaves those out.
    if (value !== undefined && !value.startsWith("()")) merged[key] = value;
  }
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  return { ...merged, ...definition.env };
}

/** Where the process's events go once a transport listens. */
export interface ProcessListener {
  data(chunk: Buffer): void;
  error(error: Error): void;
  close(): void;
}

type ProcessEvent = { kind: "data"; chunk: Buffer } | { kind: "error"; error: Error } | { kind: "close" };

type ServerSubprocess = Subprocess<"pipe", "pipe", number>;

export class StdioServerProcess {
  /** The process; undefined when it could not be spawned (`spawnError` says why). */
  readonly child: ServerSubprocess | undefined;
  /** Why the spawn failed (ENOENT, EACCES…), for the transport's start() to report. */
  readonly spawnError: unknown;
  /** The process as spawned (pid and start time); undefined when the spawn failed. */
  readonly root: ProcessId | undefined;
  /** When it was spawned: the start-up timeout counts from here. */
  readonly startedAt = Date.now();
  private listener: ProcessListener | undefined;
  private readonly pending: ProcessEvent[] = [];
  private ended = false;

  /** Spawns the server now; its stderr goes to `log`, whose descriptor the caller releases once it started. */
  constructor(
    readonly definition: StdioServerDefinition,
    readonly log: ServerLog,
    options: { cwd: string; env: Environment },
  ) {
    log.note(`starting ${[definition.command, ...definition.args].join(" ")}`);
    let child: ServerSubprocess | undefined;
    try {
      child = Bun.spawn([definition.command, ...definition.args], {
        env: serverEnvironment(options.env, definition),
        cwd: resolve(options.cwd, definition.cwd ?? "."),
        stdin: "pipe",
        stdout: "pipe",
        stderr: log.descriptor,
      });
    } catch (err) {
      this.spawnError = err; // thrown by the transport's start(), as the SDK's spawn error would be
    }
    this.child = child;
    this.root = child === undefined ? undefined : processId(child.pid);
    if (child) void this.follow(child);
  }

  /** Its output until it ends, then its end: as node's "close", once it exited and its stdout is read. */
  private async follow(child: ServerSubprocess): Promise<void> {
    try {
      for await (const chunk of child.stdout)
        this.emit({ kind: "data", chunk: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) });
    } catch (err) {
      this.emit({ kind: "error", error: err instanceof Error ? err : new Error(String(err)) });
    }
    await child.exited;
    this.ended = true;
    this.emit({ kind: "close" });
  }

  /** Whether the process has ended (and its output was read to the end). */
  get closed(): boolean {
    return this.ended;
  }

  /**
   * From now on the process's events go to `listener`; what happened before is handed over first.
   * An end that came before is told on the next turn of the event loop, after the caller's first
   * message was sent — as a server ending just after its spawn would be.
   */
  listen(listener: ProcessListener): void {
    this.listener = listener;
    const earlier = this.pending.splice(0);
    const closedBefore = earlier.some((event) => event.kind === "close");
    for (const event of earlier) if (event.kind !== "close") this.deliver(event, listener);
    if (closedBefore) setImmediate(() => listener.close());
  }

  private emit(event: ProcessEvent): void {
    if (this.listener) this.deliver(event, this.listener);
    else this.pending.push(event);
  }

  private deliver(event: ProcessEvent, listener: ProcessListener): void {
    if (event.kind === "data") listener.data(event.chunk);
    else if (event.kind === "error") listener.error(event.error);
    else listener.close();
  }

  /** SIGKILL to the process and all it started, for an exit handler. */
  killNow(): void {
    if (this.root === undefined || !isRunning(this.root)) return;
    signalProcesses(processTree(this.root.pid), "SIGKILL");
  }
}

export interface LaunchOptions {
  /** The workspace root: a server's working directory unless it names one. */
  cwd: string;
  /** The environment a server starts with, before its own `env`. */
  env: Environment;
  logFile(server: string): string;
}

/**
 * A set's stdio servers spawned at once (the first definition of each name, the one startMcpServers
 * keeps), for startMcpServers to connect to once the SDK has loaded (`launched` in its options).
 */
export class LaunchedServers {
  private readonly waiting = new Map<McpServerDefinition, StdioServerProcess>();
  /** Until each is taken over (startMcpServers has its own exit handler), none outlives ion. */
  private readonly killWaiting = () => {
    for (const server of this.waiting.values()) server.killNow();
  };

  constructor(definitions: readonly McpServerDefinition[], options: LaunchOptions) {
    const names = new Set<string>();
    for (const definition of definitions) {
      if (names.has(definition.name)) continue;
      names.add(definition.name);
      if (definition.type !== "stdio") continue;
      let log: ServerLog | undefined;
      try {
        log = new ServerLog(options.logFile(definition.name));
        this.waiting.set(definition, new StdioServerProcess(definition, log, options));
      } catch {
        // Not spawned (its log cannot be opened, say): its connection tries again and reports why.
        log?.release();
      }
    }
    if (this.waiting.size > 0) process.on("exit", this.killWaiting);
  }

  /** The process spawned for `definition` (once); the caller owns it from now on. */
  take(definition: McpServerDefinition): StdioServerProcess | undefined {
    const server = this.waiting.get(definition);
    this.waiting.delete(definition);
    if (this.waiting.size === 0) process.off("exit", this.killWaiting);
    return server;
  }
}
