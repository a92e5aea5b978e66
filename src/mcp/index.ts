/**
 * ion's MCP client: the user's MCP servers (Claude Code's `.mcp.json` format) as AgentTools.
 * Loaded only when servers are configured — nothing on ion's start-up path imports this folder.
 *
 *   parseMcpJson(text, source) / parseMcpServers(mcpServers, source) → {servers, warnings}
 *   startMcpServers(servers, {logFile, …}) → {statuses, tools, warnings, close(), killNow()}
 *   planMcpTools(tools, contextWindow) → {listed, deferred, schemaTokens, tokensSaved}
 */
export type {
  McpServerDefinition,
  McpServerList,
  RemoteServerDefinition,
  StdioServerDefinition,
} from "./config.ts";
export { parseMcpJson, parseMcpServers } from "./config.ts";
export {
  LAZY_SHARE,
  MCP_SEARCH_NAME,
  type McpToolPlan,
  mcpSearchTool,
  type PlanOptions,
  planMcpTools,
} from "./lazy.ts";
export { MAX_TOOL_NAME } from "./names.ts";
export { MCP_MAX_OUTPUT_CHARS } from "./result.ts";
export {
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type McpServerStatus,
  type McpServers,
  type StartOptions,
  startMcpServers,
} from "./servers.ts";
export type { McpTool } from "./tool.ts";
