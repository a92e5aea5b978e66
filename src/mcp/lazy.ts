/**
 * Lazy MCP tool loading. When the MCP tools' schemas would take more than a tenth of the context
 * window (chars/4 of their JSON, as every estimate in ion), they are not listed to the model; one
 * `mcp_search` tool is listed instead, which finds tools by keywords (fuse.js over names, servers and
 * descriptions) and returns their full schemas as text. The tools stay callable by name.
 */
import Fuse from "fuse.js";
import { estimateTokens } from "../agent/tokens.ts";
import { truncateHead } from "../tools/limits.ts";
import type { AgentTool, ToolOutcome } from "../tools/types.ts";
import { MCP_MAX_OUTPUT_CHARS } from "./result.ts";
import type { McpTool } from "./tool.ts";

/** The share of the context window MCP tool schemas may take before they are searched instead. */
export const LAZY_SHARE = 0.1;
export const MCP_SEARCH_NAME = "mcp_search";
const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;

export interface McpToolPlan {
  /** What to offer the model: every MCP tool, or `mcp_search` alone. */
  listed: AgentTool[];
  /** Callable by name but not offered; empty when every tool is listed. */
  deferred: McpTool[];
  /** The estimated tokens of all MCP tool schemas. */
  schemaTokens: number;
  /** What not listing them saves (their schemas less mcp_search's own); 0 when they are listed. */
  tokensSaved: number;
}

export interface PlanOptions {
  /** Told which tools a search returned, e.g. to activate them in the session's registry. */
  onFound?(tools: readonly McpTool[]): void;
}

/** Lists the MCP tools, or hides them behind `mcp_search` when their schemas exceed 10 % of the window. */
export function planMcpTools(
  tools: readonly McpTool[],
  contextWindow: number,
  options: PlanOptions = {},
): McpToolPlan {
  const schemaTokens = estimateTokens(
    [],
    "",
    tools.map((tool) => tool.spec),
  );
  if (tools.length === 0 || schemaTokens <= contextWindow * LAZY_SHARE)
    return { listed: [...tools], deferred: [], schemaTokens, tokensSaved: 0 };
  const search = mcpSearchTool(tools, options);
  const searchTokens = estimateTokens([], "", [search.spec]);
  return {
    listed: [search],
    deferred: [...tools],
    schemaTokens,
    tokensSaved: Math.max(0, schemaTokens - searchTokens),
  };
}

function serverSummary(tools: readonly McpTool[]): string {
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(tool.server, (counts.get(tool.server) ?? 0) + 1);
  return [...counts].map(([server, n]) => `${server} (${n})`).join(", ");
}

function describeTool(tool: McpTool): string {
  const traits = [`server "${tool.server}"`, ...(tool.readOnly ? ["read-only"] : [])].join(", ");
  return `${tool.spec.name} (${traits})\n${tool.spec.description}\ninput schema: ${JSON.stringify(tool.spec.input_schema)}`;
}

/** Tools ranked by how many of the query's words they match, and how well. */
function rank(tools: readonly McpTool[], query: string): McpTool[] {
  const fuse = new Fuse([...tools], {
    keys: [
      { name: "spec.name", weight: 2 },
      { name: "mcpName", weight: 2 },
      { name: "server", weight: 1 },
      { name: "spec.description", weight: 1 },
    ],
    threshold: 0.4,
    ignoreLocation: true,
    includeScore: true,
  });
  const scores = new Map<McpTool, number>();
  const words = query.split(/\s+/).filter((word) => word !== "");
  for (const term of [query, ...(words.length > 1 ? words : [])])
    for (const hit of fuse.search(term))
      scores.set(hit.item, (scores.get(hit.item) ?? 0) + (1 - (hit.score ?? 1)) * (term === query ? 2 : 1));
  return [...scores].sort((a, b) => b[1] - a[1]).map(([tool]) => tool);
}

/** `select:a,b` picks by exact name; anything else is a keyword search. */
function find(tools: readonly McpTool[], query: string, limit: number): McpTool[] {
  if (query.startsWith("select:")) {
    const wanted = query
      .slice("select:".length)
      .split(",")
      .map((name) => name.trim());
    return tools
      .filter((tool) => wanted.includes(tool.spec.name) || wanted.includes(tool.mcpName))
      .slice(0, MAX_RESULTS);
  }
  const exact = tools.filter((tool) => tool.spec.name === query || tool.mcpName === query);
  return [...new Set([...exact, ...rank(tools, query)])].slice(0, limit);
}

export function mcpSearchTool(tools: readonly McpTool[], options: PlanOptions = {}): AgentTool {
  return {
    spec: {
      name: MCP_SEARCH_NAME,
      description: `Finds tools of the connected MCP servers, which are not listed here to save context: ${tools.length} tools from ${serverSummary(tools)}.
- Search with a few keywords for what the tool should do (or its server or name); the answer gives each match's name, description and input schema. Then call the tool by that name with arguments that fit its schema.
- \`select:<name>,<name>\` returns those tools by exact name.
- At most max_results tools (default ${DEFAULT_RESULTS}, up to ${MAX_RESULTS}) are returned, best first.`,
      input_schema: {
        type: "object",
        properties: {
          query: { type: "string", description: "Keywords, or select:<name>,<name>" },
          max_results: { type: "integer", minimum: 1, maximum: MAX_RESULTS },
        },
        required: ["query"],
        additionalProperties: false,
      },
    },
    readOnly: true,
    async execute(input): Promise<ToolOutcome> {
      const query = typeof input.query === "string" ? input.query.trim() : "";
      if (query === "")
        return {
          content: "invalid arguments for mcp_search: query: a non-empty string is required",
          is_error: true,
        };
      const wanted = input.max_results ?? DEFAULT_RESULTS;
      if (typeof wanted !== "number" || !Number.isInteger(wanted) || wanted < 1 || wanted > MAX_RESULTS)
        return {
          content: `invalid arguments for mcp_search: max_results: an integer from 1 to ${MAX_RESULTS}`,
          is_error: true,
        };
      const found = find(tools, query, wanted);
      if (found.length === 0)
        return {
          content: `No MCP tool matches "${query}". Servers and their tool counts: ${serverSummary(tools)}. Try other keywords.`,
          is_error: false,
        };
      options.onFound?.(found);
      const header = `${found.length} matching tool${found.length === 1 ? "" : "s"}; call any of them by its name:`;
      const content = [header, ...found.map(describeTool)].join("\n\n");
      return { content: truncateHead(content, MCP_MAX_OUTPUT_CHARS), is_error: false };
    },
  };
}
