/**
 * An MCP server's tool as an AgentTool: named `mcp__<server>__<tool>`, read-only only when the server
 * annotates it `readOnlyHint: true`, and executed with a time limit and the call's abort signal. Every
 * failure — a timeout, a cancel, a server that died — is an `is_error` outcome, never a throw.
 */
import { ErrorCode, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentTool, ToolContext, ToolOutcome } from "../tools/types.ts";
import { messageOf } from "../util/error-text.ts";
import { redactText } from "../util/secrets.ts";
import { definitionSecrets } from "./config.ts";
import type { McpConnection } from "./connection.ts";
import { outcomeOfResult } from "./result.ts";

/** Claude Code's cap on an MCP tool's description: enough for a manual, not a flood. */
export const MAX_DESCRIPTION_CHARS = 2048;

export interface McpTool extends AgentTool {
  /** The server's name as configured. */
  readonly server: string;
  /** The tool's name on its server (what `tools/call` is sent). */
  readonly mcpName: string;
  /** From the server's `readOnlyHint` annotation, the same for every call. */
  readonly readOnly: boolean;
  /** Releases the server: once every tool of a server is closed, the server is (McpServers.close() ends all). */
  close(): Promise<void>;
}

function description(tool: Tool, server: string): string {
  const text = (tool.description ?? "").trim();
  if (text === "") return `${tool.title ?? tool.name} (a tool of the MCP server "${server}")`;
  return text.length <= MAX_DESCRIPTION_CHARS
    ? text
    : `${text.slice(0, MAX_DESCRIPTION_CHARS)}… [description truncated]`;
}

/** The input schema sent to providers; `$schema` is dropped as for built-in tools. */
function inputSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = tool.inputSchema as Record<string, unknown>;
  return rest;
}

function failure(content: string): ToolOutcome {
  return { content, is_error: true };
}

function progressLine(progress: { progress: number; total?: number; message?: string }): string {
  const amount =
    progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`;
  return progress.message === undefined ? amount : `${amount} ${progress.message}`;
}

export function mcpAgentTool(
  connection: McpConnection,
  tool: Tool,
  name: string,
  timeoutMs: number,
): McpTool {
  const server = connection.definition.name;
  const label = `MCP tool ${tool.name} of server "${server}"`;
  const release = connection.hold();
  return {
    server,
    mcpName: tool.name,
    spec: { name, description: description(tool, server), input_schema: inputSchema(tool) },
    readOnly: tool.annotations?.readOnlyHint === true,
    close: release,
    async execute(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
      if (ctx.signal.aborted) return failure("cancelled before it started");
      const ended = connection.ended;
      if (ended !== undefined) return failure(`${label} cannot be called: ${ended}`);
      try {
        const result = await connection.callTool(tool.name, input, {
          signal: ctx.signal,
          timeoutMs,
          ...(ctx.onUpdate
            ? { onProgress: (progress) => ctx.onUpdate?.({ output_tail: progressLine(progress) }) }
            : {}),
        });
        return outcomeOfResult(result);
      } catch (err) {
        if (ctx.signal.aborted) return failure("cancelled by the user");
        const endedNow = connection.ended;
        if (endedNow !== undefined) return failure(`${label} failed: ${endedNow}`);
        if (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
          return failure(`${label} timed out after ${timeoutMs} ms`);
        // A remote server's error may quote the request, with its headers' values.
        const message = redactText(messageOf(err), definitionSecrets(connection.definition));
        return failure(`${label} failed: ${message}`);
      }
    },
  };
}
