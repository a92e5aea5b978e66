/**
 * One running MCP server: started (stdio) or reached (streamable HTTP, falling back to legacy SSE),
 * its tools listed, its calls made, and its end — whether ion closes it or it dies on its own.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type Progress, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { errnoOf, messageOf } from "../util/error-text.ts";
import { VERSION } from "../version.ts";
import type { AnyServerDefinition, RemoteServerDefinition, StdioServerDefinition } from "./config.ts";
import type { Environment } from "./expand.ts";
import { ServerLog } from "./log-file.ts";
import { ProcessTransport } from "./process-transport.ts";
import {
  endProcesses,
  isRunning,
  mergeProcesses,
  type ProcessId,
  processTree,
  signalProcesses,
} from "./process-tree.ts";
import { StdioServerProcess } from "./stdio-process.ts";

export interface ConnectOptions {
  /** The workspace root: a stdio server's working directory unless its definition names one. */
  cwd: string;
  /** The environment a stdio server starts with, before its own `env`. */
  env: Environment;
  logFile: string;
  /** Start, handshake and tool listing together must finish within this. */
  startupTimeoutMs: number;
  /** How long a closing server gets to leave by itself, and again after SIGTERM, before SIGKILL. */
  closeGraceMs: number;
  /** Aborts a start still in progress (ion is ending). */
  signal?: AbortSignal;
  /** The stdio server's process, already spawned with its log (LaunchedServers); else start() spawns it. */
  launched?: StdioServerProcess | undefined;
}

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?(progress: Progress): void;
}

/** A failure to start, with the one-line reason the status and warning carry. */
class McpStartError extends Error {
  override name = "McpStartError";
}

const MAX_TOOL_PAGES = 100;

/** A deadline and an outside abort over one start-up step; both reject with the reason in words. */
function bounded<T>(
  step: Promise<T>,
  deadline: number,
  timeoutText: string,
  signal?: AbortSignal,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new McpStartError(timeoutText)), Math.max(0, deadline - Date.now()));
    onAbort = () => reject(new McpStartError("start cancelled"));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([step, stop]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  });
}

export class McpConnection {
  tools: Tool[] = [];
  /** Why calls can no longer be made (the server died, or ion closed it); undefined while it runs. */
  private endedBecause: string | undefined;
  private closing: Promise<void> | undefined;
  /** Set once start-up succeeded: an end before that is a start failure, reported by start(). */
  private running = false;
  /** The tools made for this connection that are not closed yet. */
  private holders = 0;
  /** The stdio server's process tree as noted once it answered. */
  private processes: ProcessId[] = [];

  private readonly log: ServerLog;
  private readonly closeGraceMs: number;
  /** The stdio server's own process as spawned (pid and start time): a reused pid is never taken for it. */
  private root: ProcessId | undefined;
  private client: Client = newClient();
  /** The SDK's HTTP error class, once a remote server made it load (the remote transports load only then). */
  private httpErrorClass: typeof StreamableHTTPError | undefined;

  /** Opens the server's log (a launched server's is open already); nothing else runs until `start()`. */
  constructor(
    readonly definition: AnyServerDefinition,
    private readonly options: ConnectOptions,
  ) {
    this.log = options.launched?.log ?? new ServerLog(options.logFile);
    this.closeGraceMs = options.closeGraceMs;
  }

  /**
   * Starts or reaches the server and lists its tools, all within the start-up timeout. On failure it
   * throws McpStartError with the reason in one line and starts closing (the caller's `close()` waits).
   */
  async start(): Promise<void> {
    const { definition, options } = this;
    // A launched server's time runs from its spawn.
    const deadline = (options.launched?.startedAt ?? Date.now()) + options.startupTimeoutMs;
    try {
      if (definition.type === "stdio") await this.startStdio(definition, deadline);
      else if (definition.type === "sdk") {
        this.watch();
        const connecting = this.client.connect(definition.transport(), {
          timeout: Math.max(1, deadline - Date.now()),
        });
        await bounded(connecting, deadline, this.timeoutText(), options.signal);
      } else await this.reachRemote(definition, deadline);
      const listing = bounded(this.listTools(deadline), deadline, this.timeoutText(), options.signal);
      // Noted (a scan of /proc) while the server answers: it runs by now, and so does what it started.
      this.noteProcesses();
      await listing;
      this.running = true;
    } catch (err) {
      const reason = this.startFailure(err, definition);
      this.log.note(`start failed: ${reason}`);
      void this.close();
      throw new McpStartError(reason);
    } finally {
      this.log.release();
    }
  }

  private timeoutText(): string {
    return `no answer within the start-up timeout (${this.options.startupTimeoutMs} ms)`;
  }

  private async startStdio(definition: StdioServerDefinition, deadline: number): Promise<void> {
    const { options } = this;
    const server =
      options.launched ??
      new StdioServerProcess(definition, this.log, { cwd: options.cwd, env: options.env });
    // Noted at once, so a timeout or a cancelled start ends it too.
    this.root = server.root;
    this.watch();
    const connecting = this.client.connect(new ProcessTransport(server), {
      timeout: Math.max(1, deadline - Date.now()),
    });
    await bounded(connecting, deadline, this.timeoutText(), options.signal);
  }

  private async reachRemote(definition: RemoteServerDefinition, deadline: number): Promise<void> {
    const { options } = this;
    if (!URL.canParse(definition.url)) throw new McpStartError(`not a valid URL: ${definition.url}`);
    const url = new URL(definition.url);
    const requestInit = { headers: definition.headers };
    const timeout = () => ({ timeout: Math.max(1, deadline - Date.now()) });
    if (definition.type === "http") {
      const { StreamableHTTPClientTransport, StreamableHTTPError } = await import(
        "@modelcontextprotocol/sdk/client/streamableHttp.js"
      );
      this.httpErrorClass = StreamableHTTPError;
      try {
        const transport = new StreamableHTTPClientTransport(url, { requestInit });
        this.watch();
        await bounded(
          this.client.connect(transport, timeout()),
          deadline,
          this.timeoutText(),
          options.signal,
        );
        return;
      } catch (err) {
        // The MCP spec's fallback: a 4xx to the POST means a server of the older HTTP+SSE transport.
        const status = err instanceof StreamableHTTPError ? err.code : undefined;
        if (status === undefined || status < 400 || status >= 500 || status === 401) throw err;
        this.log.note(`streamable HTTP refused (${status}); trying the legacy SSE transport`);
        const refused = this.client;
        this.client = newClient(); // first, so closing the refused one is not taken for the server's end
        await refused.close();
      }
    }
    const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
    const transport = new SSEClientTransport(url, { requestInit });
    this.watch();
    await bounded(this.client.connect(transport, timeout()), deadline, this.timeoutText(), options.signal);
  }

  /** Transport errors go to the log; an end ion did not ask for makes every later call an error. */
  private watch(): void {
    const client = this.client;
    client.onerror = (error) => this.log.note(`transport error: ${error.message}`);
    client.onclose = () => {
      if (!this.running || client !== this.client || this.endedBecause !== undefined) return;
      const last = this.log.lastServerLine();
      this.endedBecause = `the server ${this.definition.type === "stdio" ? "exited" : "closed the connection"}${last === undefined ? "" : ` (last output: ${last})`}`;
      this.log.note(`connection closed: ${this.endedBecause}`);
      // Whatever it started may still run, now without a parent: end it.
      const orphans = this.processes;
      if (orphans.length > 0) void endProcesses(orphans, this.closeGraceMs);
    };
  }

  private async listTools(deadline: number): Promise<void> {
    if (this.client.getServerCapabilities()?.tools === undefined) return;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await this.client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: Math.max(1, deadline - Date.now()),
      });
      this.tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (cursor === undefined) return;
    }
    this.log.note(`stopped listing tools after ${MAX_TOOL_PAGES} pages`);
  }

  /** Notes the server's process tree, so its children can be ended even after it is gone. */
  private noteProcesses(): void {
    this.processes = this.currentTree();
  }

  private startFailure(err: unknown, definition: AnyServerDefinition): string {
    const last = this.log.lastServerLine();
    const withOutput = (text: string) => (last === undefined ? text : `${text}; last output: ${last}`);
    if (err instanceof McpStartError) return withOutput(err.message);
    if (definition.type === "stdio" && errnoOf(err) === "ENOENT")
      return `command not found: ${definition.command}`;
    if (definition.type === "stdio" && errnoOf(err) === "EACCES")
      return `command not executable: ${definition.command}`;
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed)
      return withOutput(
        definition.type === "stdio"
          ? "the server exited during start-up"
          : "the connection closed during start-up",
      );
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
      return withOutput("no answer within the start-up timeout");
    if (this.httpErrorClass && err instanceof this.httpErrorClass && err.code === 401)
      return "the server asks for authorization (HTTP 401); ion does not do OAuth: set an Authorization header";
    return withOutput(messageOf(err).replace(/\s+/g, " ").trim());
  }

  /**
   * One more user of the connection (a tool); the function it gets releases it once, and the last
   * release closes the connection — so closing every tool of a server, as a session's registry does,
   * ends the server.
   */
  hold(): () => Promise<void> {
    this.holders++;
    let released = false;
    return () => {
      if (released) return Promise.resolve();
      released = true;
      this.holders--;
      return this.holders === 0 ? this.close() : Promise.resolve();
    };
  }

  /** Why calls fail now, or undefined while the server runs. */
  get ended(): string | undefined {
    return this.endedBecause;
  }

  async callTool(name: string, input: Record<string, unknown>, options: CallOptions) {
    return this.client.callTool({ name, arguments: input }, undefined, {
      signal: options.signal,
      timeout: options.timeoutMs,
      ...(options.onProgress ? { onprogress: options.onProgress } : {}),
    });
  }

  /**
   * Ends the server in bounded time (stdin closed, then SIGTERM and SIGKILL to its whole process tree,
   * each after `closeGraceMs`). Safe to call again: later calls wait for the first.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.endedBecause ??= "ion closed the connection to the server";
    try {
      const tree = this.currentTree();
      const clientClosed = this.client.close().catch((err: unknown) => {
        this.log.note(`close: ${messageOf(err)}`);
      });
      await endProcesses(tree, this.closeGraceMs);
      // The SDK's own close waits for the process it spawned: gone by now, or the wait is cut short.
      await Promise.race([clientClosed, Bun.sleep(this.closeGraceMs)]);
    } catch (err) {
      // Closing happens on the way out (a signal, the end of a session): say why in the log, never throw.
      this.log.note(`close failed: ${messageOf(err)}`);
    }
  }

  /** For an exit handler, where nothing can be awaited: SIGKILL to the whole tree at once. */
  killNow(): void {
    this.endedBecause ??= "ion closed the connection to the server";
    signalProcesses(this.currentTree(), "SIGKILL");
  }

  /** The processes noted before, plus the server's descendants now if it still runs. */
  private currentTree(): ProcessId[] {
    const root = this.root;
    if (root === undefined) return [];
    const now = isRunning(root) ? processTree(root.pid) : [];
    return mergeProcesses(mergeProcesses([root], this.processes), now);
  }
}

function newClient(): Client {
  return new Client({ name: "ion", version: VERSION }, { capabilities: {} });
}
