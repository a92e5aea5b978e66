import { renderSystemPrompt } from "../agent/context.ts";
import { messageChars, tokensOfChars } from "../agent/tokens.ts";
import type { Message, ToolSpec } from "../providers/types.ts";
import type { BuiltSystemPrompt } from "./system-prompt.ts";

/**
 * What fills the context window, for `/context` in chat and `ion run -v`: the system prompt split into
 * its base (everything but the parts below), each instruction file, the skills index and the active
 * skill; then the tools' schemas and the conversation. Tokens are estimated as chars/4, like every
 * other estimate in ion; the provider's reported usage is the truth for the whole.
 *
 *   contextBreakdown({prompt, tools, messages, contextWindow?, mcpSearch?}) → ContextBreakdown
 */

export type BreakdownKind = "base" | "instructions" | "skills" | "active_skill" | "tools" | "history";

export interface BreakdownRow {
  kind: BreakdownKind;
  /** "system prompt", the instruction file's path, "skills index", "skill: NAME", "tools", "history". */
  label: string;
  tokens: number;
  /** tokens / context window; null when the window is unknown. */
  share: number | null;
}

export interface ContextBreakdown {
  rows: BreakdownRow[];
  total: number;
  contextWindow: number | undefined;
  /** total / window; null when the window is unknown. */
  share: number | null;
  /** MCP tools kept out of the window behind `mcp_search` (lazy loading); undefined when none is. */
  mcpSearch: McpSearchSaving | undefined;
}

/** What lazy loading keeps out of the window: not a part of the total, told beside it. */
export interface McpSearchSaving {
  /** MCP tools not listed (found through `mcp_search`, callable by name). */
  deferredTools: number;
  /** Their schemas' estimated tokens, less mcp_search's own. */
  tokensSaved: number;
}

export function contextBreakdown(options: {
  prompt: BuiltSystemPrompt;
  tools: readonly ToolSpec[];
  messages: readonly Message[];
  contextWindow?: number | undefined;
  mcpSearch?: McpSearchSaving | undefined;
}): ContextBreakdown {
  const { prompt, contextWindow } = options;
  const share = (tokens: number) => (contextWindow ? tokens / contextWindow : null);
  const row = (kind: BreakdownKind, label: string, chars: number): BreakdownRow => {
    const tokens = tokensOfChars(chars);
    return { kind, label, tokens, share: share(tokens) };
  };

  // The sections' sizes as rendered: the prompt without each section, subtracted from the whole.
  const total = prompt.text.length;
  const without = (changes: object) =>
    renderSystemPrompt({ ...prompt.input, ...changes }, prompt.template).length;
  const skillsChars = prompt.input.skills ? total - without({ skills: undefined }) : 0;
  const activeChars = prompt.input.activeSkill ? total - without({ activeSkill: undefined }) : 0;
  const files = prompt.instructions.map((file) => row("instructions", file.path, file.text.length));
  const filesChars = prompt.instructions.reduce((sum, file) => sum + file.text.length, 0);

  const rows: BreakdownRow[] = [row("base", "system prompt", total - skillsChars - activeChars - filesChars)];
  rows.push(...files);
  if (prompt.input.skills) rows.push(row("skills", "skills index", skillsChars));
  if (prompt.input.activeSkill)
    rows.push(row("active_skill", `skill: ${prompt.input.activeSkill.name}`, activeChars));
  const toolChars = options.tools.reduce((sum, tool) => sum + JSON.stringify(tool).length, 0);
  rows.push(row("tools", "tools", toolChars));
  const historyChars = options.messages.reduce((sum, message) => sum + messageChars(message), 0);
  rows.push(row("history", "history", historyChars));

  const sum = rows.reduce((acc, r) => acc + r.tokens, 0);
  const mcpSearch = options.mcpSearch?.deferredTools ? options.mcpSearch : undefined;
  return { rows, total: sum, contextWindow, share: share(sum), mcpSearch };
}
