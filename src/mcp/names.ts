/**
 * The names the model calls MCP tools by: `mcp__<server>__<tool>`, as Claude Code names them.
 *
 * Providers accept `^[A-Za-z0-9_-]{1,64}$`, so each part has every other character replaced by `_`,
 * and the whole is at most 64 characters. The rule for the names that would not fit or would clash:
 *   1. every tool gets its plain name `mcp__<server>__<tool>` (sanitised);
 *   2. a plain name longer than 64 characters, or shared by two or more tools (`my.server` and
 *      `my_server`, `a-b` and `a_b`), is replaced — for each tool concerned, not only the later one —
 *      by its first 55 characters, `_` and 8 hex digits of the SHA-256 of the tool's original
 *      server and tool names.
 * The result depends only on the set of (server, tool) pairs, not on the order servers answered.
 */
import { createHash } from "node:crypto";

export const MAX_TOOL_NAME = 64;
const HASH_DIGITS = 8;

export function sanitiseNamePart(part: string): string {
  const clean = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return clean === "" ? "_" : clean;
}

export function plainToolName(server: string, tool: string): string {
  return `mcp__${sanitiseNamePart(server)}__${sanitiseNamePart(tool)}`;
}

function hashedToolName(server: string, tool: string): string {
  const digest = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, HASH_DIGITS);
  return `${plainToolName(server, tool).slice(0, MAX_TOOL_NAME - HASH_DIGITS - 1)}_${digest}`;
}

export interface ToolKey {
  server: string;
  tool: string;
}

/** The model-facing name of each (server, tool) pair, in the order given. */
export function assignToolNames(keys: readonly ToolKey[]): string[] {
  const plain = keys.map(({ server, tool }) => plainToolName(server, tool));
  const uses = new Map<string, number>();
  for (const name of plain) uses.set(name, (uses.get(name) ?? 0) + 1);
  return keys.map(({ server, tool }, index) => {
    const name = plain[index] ?? plainToolName(server, tool);
    return name.length <= MAX_TOOL_NAME && uses.get(name) === 1 ? name : hashedToolName(server, tool);
  });
}
