/**
 * The user's MCP servers as one set: all started in parallel, each within the start-up timeout; one
 * that fails, exits or times out is a `failed` status and a warning, never an error for the others.
 * Their tools become AgentTools; one `close()` ends every server.
 */
import { messageOf } from "../util/error-text.ts";
import { redactText } from "../util/secrets.ts";
import { type AnyServerDefinition, definitionSecrets } from "./config.ts";
import { McpConnection } from "./connection.ts";
import type { Environment } from "./expand.ts";
import { assignToolNames } from "./names.ts";
import type { LaunchedServers } from "./stdio-process.ts";
import { type McpTool, mcpAgentTool } from "./tool.ts";

export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
export const DEFAULT_CLOSE_GRACE_MS = 500;

export interface StartOptions {
  /** The log file of a server (its stderr, ion's notes), e.g. `<data>/mcp-logs/<server>.log`. */
  logFile(server: string): string;
  /** The workspace root; a stdio server's working directory unless it names one. Default: process.cwd(). */
  cwd?: string;
  /** The environment stdio servers start with, before their own `env`. Default: process.env, as Claude Code. */
  env?: Environment;
  /** Default 10 000 (config `mcp.startup_timeout_ms`). */
  startupTimeoutMs?: number;
  /** Default 120 000 (config `mcp.tool_timeout_ms`). */
  toolTimeoutMs?: number;
  /** Per step of closing a server (leave by itself, after SIGTERM) before SIGKILL. Default 500. */
  closeGraceMs?: number;
  /** Aborting it fails the servers still starting (ion is ending). */
  signal?: AbortSignal;
  /** Stdio servers spawned already, while this module (the SDK) loaded; the others are spawned here. */
  launched?: LaunchedServers;
}

/** For stream-json's `init.mcp_servers` (`{name, status}`) and `ion mcp` (the error). */
export type McpServerStatus =
  | { name: string; status: "connected" }
  | { name: string; status: "failed"; error: string };

export interface McpServers {
  /** One per server name (the first definition of a name is used), in the order given. */
  readonly statuses: readonly McpServerStatus[];
  /** The tools of every connected server, server by server in the order given. */
  readonly tools: readonly McpTool[];
  /** One line per failed server and per tool left out. */
  readonly warnings: readonly string[];
  /** Ends every server (stdio: its whole process tree) in bounded time; safe to call again. */
  close(): Promise<void>;
  /** Synchronous SIGKILL to every stdio server's process tree, for a `process.on("exit")` handler. */
  killNow(): void;
}

async function startOne(
  definition: AnyServerDefinition,
  options: StartOptions,
  connections: McpConnection[],
): Promise<McpServerStatus> {
  try {
    const connection = new McpConnection(definition, {
      cwd: options.cwd ?? process.cwd(),
      env: options.env ?? process.env,
      logFile: options.logFile(definition.name),
      startupTimeoutMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
      closeGraceMs: options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
      ...(options.signal ? { signal: options.signal } : {}),
      launched: definition.type === "sdk" ? undefined : options.launched?.take(definition),
    });
    connections.push(connection);
    await connection.start();
    return { name: definition.name, status: "connected" };
  } catch (err) {
    const reason = messageOf(err);
    return {
      name: definition.name,
      status: "failed",
      error: redactText(reason, definitionSecrets(definition)),
    };
  }
}

/** Server by server in the order given, each server's tools in its own order. */
function toolsOf(running: readonly McpConnection[], toolTimeoutMs: number, warnings: string[]): McpTool[] {
  const pairs = running.flatMap((connection) => connection.tools.map((tool) => ({ connection, tool })));
  const names = assignToolNames(
    pairs.map(({ connection, tool }) => ({ server: connection.definition.name, tool: tool.name })),
  );
  const tools: McpTool[] = [];
  const taken = new Set<string>();
  pairs.forEach(({ connection, tool }, index) => {
    const name = names[index] ?? "";
    if (taken.has(name)) {
      warnings.push(
        `MCP server "${connection.definition.name}" lists the tool "${tool.name}" twice; the second is left out`,
      );
      return;
    }
    taken.add(name);
    tools.push(mcpAgentTool(connection, tool, name, toolTimeoutMs));
  });
  return tools;
}

/** Starts every server in parallel; resolves when each has connected or failed. Never rejects. */
export async function startMcpServers(
  definitions: readonly AnyServerDefinition[],
  options: StartOptions,
): Promise<McpServers> {
  const connections: McpConnection[] = [];
  let closing: Promise<void> | undefined;
  const killNow = () => {
    for (const connection of connections) connection.killNow();
  };
  // A safety net for an exit that skips close(): no server process outlives ion.
  process.on("exit", killNow);
  const close = () => {
    closing ??= Promise.all(connections.map((connection) => connection.close())).then(() => {
      process.off("exit", killNow);
    });
    return closing;
  };

  const warnings: string[] = [];
  const unique: AnyServerDefinition[] = [];
  for (const definition of definitions) {
    if (unique.some((kept) => kept.name === definition.name))
      warnings.push(
        `MCP server "${definition.name}" is defined more than once; the first definition is used`,
      );
    else unique.push(definition);
  }
  const statuses = await Promise.all(unique.map((definition) => startOne(definition, options, connections)));
  for (const status of statuses)
    if (status.status === "failed")
      warnings.push(`MCP server "${status.name}" failed to start: ${status.error}`);
  const running = unique.flatMap((definition, index) => {
    const connection = connections.find((candidate) => candidate.definition === definition);
    return connection && statuses[index]?.status === "connected" ? [connection] : [];
  });
  const tools = toolsOf(running, options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, warnings);
  return {
    statuses,
    tools,
    warnings,
    close,
    killNow: () => {
      killNow();
      process.off("exit", killNow);
    },
  };
}
