/**
 * The session's MCP servers: started as soon as the configuration is known, in parallel with the rest
 * of the session's set-up, and joined to the session's tool registry before its first model request
 * (which waits for them, bounded by `mcp.startup_timeout_ms`). Closed with the session.
 *
 * Nothing of src/mcp is imported unless a server is configured: `mcpConfigured` decides from what the
 * session already loaded (the merged config's `mcpServers`, and a trusted project's `.mcp.json` as the
 * trust gate read it), and the client loads only then.
 */
import type { Env } from "../config/paths.ts";
import { dataDir } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { SdkServerDefinition } from "../mcp/config.ts";
import type { McpServers } from "../mcp/servers.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { messageOf } from "../util/error-text.ts";
import { type EndingSignal, onEndingSignals } from "../util/signals.ts";
import type { ProjectTrust } from "./session-options.ts";

/** One server as `init.mcp_servers` and `/mcp` show it. */
export interface McpServerState {
  name: string;
  status: "connected" | "failed";
  /** Why it failed. */
  error?: string;
  /** How many tools it offers (connected). */
  tools?: number;
}

/** What a shell reports for a process the signal ended: 128 + its number. */
const SIGNAL_EXIT: Record<EndingSignal, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/** The session's MCP servers and how their tools were offered (`/mcp`). */
export interface McpOverview {
  servers: readonly McpServerState[];
  /** undefined when no server offered a tool. */
  offered: McpToolsOffered | undefined;
}

/** How the MCP tools were offered: all listed, or behind `mcp_search`. */
export interface McpToolsOffered {
  tools: number;
  deferred: number;
  tokensSaved: number;
}

function hasEntries(servers: Record<string, unknown> | undefined): boolean {
  return servers !== undefined && Object.keys(servers).length > 0;
}

/** Whether a session would start any MCP server: the user's or a trusted project's config, or a trusted `.mcp.json`. */
export function mcpConfigured(config: Config, trust: ProjectTrust | undefined): boolean {
  return hasEntries(config.mcpServers) || (trust?.trusted === true && hasEntries(trust.project.mcpServers));
}

export interface SessionMcpOptions {
  cwd: string;
  /** ion's environment: what a server's `env` in its config is expanded from. */
  env: Env;
  /** What a stdio server starts with before its own `env` (tools/command-env.ts); default `env`. */
  serverEnv?: Env;
  config: Config;
  trust: ProjectTrust | undefined;
  /** One line each for warnings. */
  notice: (line: string) => void;
  /** -v: how the tools were offered. */
  log?: ((line: string) => void) | undefined;
  /** A Claude Agent SDK program's in-process servers, after the configured ones. */
  programServers?: readonly SdkServerDefinition[] | undefined;
}

export class SessionMcp {
  /** Aborted on close: servers still starting fail at once. */
  private readonly abort = new AbortController();
  private readonly starting: Promise<McpServers | undefined>;
  private joining: Promise<void> | undefined;
  private closed = false;
  /**
   * A signal no one else handles (a chat still opening, or a run already closing) would end ion by
   * its default action, which runs no exit handler and could leave a server running. Then it ends
   * ion through process.exit instead, whose exit handler (startMcpServers) kills every server.
   */
  private readonly offSignals = onEndingSignals((signal) => {
    if (process.listenerCount(signal) === 1) process.exit(SIGNAL_EXIT[signal]);
  });
  /** Filled once the servers have started (or failed). */
  states: McpServerState[] = [];
  offered: McpToolsOffered | undefined;

  private constructor(private readonly options: SessionMcpOptions) {
    this.starting = this.start().catch((err: unknown) => {
      // E.g. the user's config became unreadable since it was loaded: said, and the session goes on without MCP.
      options.notice(`warning: MCP servers not started: ${messageOf(err)}`);
      return undefined;
    });
  }

  /** Starts the configured servers (without waiting for them); undefined when none is configured. */
  static start(options: SessionMcpOptions): SessionMcp | undefined {
    const program = (options.programServers?.length ?? 0) > 0;
    return program || mcpConfigured(options.config, options.trust) ? new SessionMcp(options) : undefined;
  }

  private async start(): Promise<McpServers | undefined> {
    const { cwd, env, config, trust, notice } = this.options;
    const [{ collectMcpServers, trustOptions }, { LaunchedServers }, { mcpLogFiles }] = await Promise.all([
      import("../mcp/sources.ts"),
      import("../mcp/stdio-process.ts"),
      import("../mcp/log-path.ts"),
    ]);
    const sources = await collectMcpServers({ cwd, env, ...trustOptions(trust) });
    for (const line of sources.warnings) notice(`warning: ${line}`);
    const configured = sources.servers.map((server) => server.definition);
    const definitions = [...configured, ...(this.options.programServers ?? [])];
    if (definitions.length === 0 || this.closed) return undefined;
    const logFile = mcpLogFiles(dataDir(env));
    // The stdio servers are spawned before the client (the SDK, ~20 ms) loads: they boot while it does.
    const serverEnv = this.options.serverEnv ?? env;
    const launched = new LaunchedServers(configured, { cwd, env: serverEnv, logFile });
    const { startMcpServers } = await import("../mcp/servers.ts");
    const timeouts = config.mcp;
    const servers = await startMcpServers(definitions, {
      logFile,
      cwd,
      env: serverEnv,
      signal: this.abort.signal,
      launched,
      ...(timeouts?.startup_timeout_ms === undefined
        ? {}
        : { startupTimeoutMs: timeouts.startup_timeout_ms }),
      ...(timeouts?.tool_timeout_ms === undefined ? {} : { toolTimeoutMs: timeouts.tool_timeout_ms }),
    });
    this.states = servers.statuses.map((s) =>
      s.status === "failed"
        ? { name: s.name, status: s.status, error: s.error }
        : { ...s, tools: servers.tools.filter((tool) => tool.server === s.name).length },
    );
    if (this.closed) await servers.close();
    return servers;
  }

  /**
   * Waits for the servers (until `signal` fires) and, once, adds their tools to `registry`: listed, or
   * deferred behind `mcp_search` when their schemas would take more than a tenth of `contextWindow`.
   */
  join(registry: ToolRegistry, contextWindow: number | undefined, signal: AbortSignal): Promise<void> {
    this.joining ??= this.register(registry, contextWindow);
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const stop = () => resolve();
      signal.addEventListener("abort", stop, { once: true });
      this.joining?.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
    });
  }

  private async register(registry: ToolRegistry, contextWindow: number | undefined): Promise<void> {
    const servers = await this.starting;
    if (!servers || this.closed) return;
    for (const line of servers.warnings) this.options.notice(`warning: ${line}`);
    if (servers.tools.length === 0) return;
    const { planMcpTools } = await import("../mcp/lazy.ts");
    const plan = planMcpTools(servers.tools, contextWindow ?? Number.POSITIVE_INFINITY, {
      onFound: (found) => {
        for (const tool of found) registry.activate(tool.spec.name);
      },
    });
    for (const tool of plan.listed) registry.add(tool);
    for (const tool of plan.deferred) registry.add(tool, { deferred: true });
    this.offered = {
      tools: servers.tools.length,
      deferred: plan.deferred.length,
      tokensSaved: plan.tokensSaved,
    };
    this.options.log?.(
      plan.deferred.length === 0
        ? `MCP: ${servers.tools.length} tools listed (~${plan.schemaTokens} tokens)`
        : `MCP: ${plan.deferred.length} tools behind mcp_search (~${plan.tokensSaved} tokens saved)`,
    );
  }

  /** Ends every server (their tools are closed with the registry); waits for any still starting. */
  async close(): Promise<void> {
    this.closed = true;
    this.abort.abort();
    this.offSignals();
    const servers = await this.starting;
    await servers?.close();
  }
}
