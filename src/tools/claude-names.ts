/**
 * Claude Code's names of ion's tools, one table for everything that takes names written for Claude
 * Code: hook matchers and payloads, `--allowedTools` / `--disallowedTools`, custom agents' `tools`.
 * MCP tools are `mcp__<server>__<tool>` in both.
 */

/** ion's tool names → Claude Code's. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = {
  bash: "Bash",
  read_file: "Read",
  write_file: "Write",
  edit_file: "Edit",
  glob: "Glob",
  grep: "Grep",
  list_files: "LS",
  web_fetch: "WebFetch",
  task: "Task",
};

const ION_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries(CLAUDE_TOOL_NAMES).map(([ion, claude]) => [claude, ion]),
);

/** The file tools whose `path` is Claude Code's `file_path`. */
const FILE_PATH_TOOLS: readonly string[] = ["read_file", "write_file", "edit_file"];

/** A call's input as Claude Code's hooks and permission callbacks read it: file tools' `path` also as `file_path`. */
export function claudeToolInput(name: string, input: Record<string, unknown>): Record<string, unknown> {
  return FILE_PATH_TOOLS.includes(name) && "path" in input ? { ...input, file_path: input.path } : input;
}

/** An input written in Claude Code's terms back in ion's: `file_path` is the file tools' `path`. */
export function ionToolInput(name: string, input: Record<string, unknown>): Record<string, unknown> {
  if (!FILE_PATH_TOOLS.includes(name) || !("file_path" in input)) return input;
  const { file_path, ...rest } = input;
  return { ...rest, path: file_path };
}

/** A name in ion's terms: Claude Code's names mapped, anything else as it is. */
export function ionToolName(name: string): string {
  return ION_NAMES.get(name) ?? name;
}

/** An MCP tool's name (`mcp__server__tool`), or a whole server's (`mcp__server`), as Claude Code's rules take them. */
export const MCP_NAME = /^mcp__[A-Za-z0-9_-]+$/;

/** Whether `name` (a tool the model calls) is `rule` or one of the MCP server `rule` names. */
export function toolNameMatches(rule: string, name: string): boolean {
  if (rule === name) return true;
  return rule.startsWith("mcp__") && !rule.slice(5).includes("__") && name.startsWith(`${rule}__`);
}
