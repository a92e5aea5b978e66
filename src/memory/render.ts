import memoryTemplate from "../../templates/memory.eta" with { type: "text" };
import { tokensOfChars } from "../agent/tokens.ts";
import { memoryTemplateBody } from "../context/precompile.ts" with { type: "macro" };
import { renderTemplate } from "../context/template.ts";
import type { MemoryRecord } from "./types.ts";

/**
 * The "memory context" message: the recalled memories, oldest first (a conversation read in order),
 * each with the day it was learnt, rendered from templates/memory.eta. It goes into one user-role
 * message before the prompt, never into the system prompt (whose bytes the provider caches).
 */

// Compiled when ion is built (a macro), so a recall skips eta's parse of the template.
const TEMPLATE = {
  source: memoryTemplate,
  path: "templates/memory.eta (built-in)",
  compiled: memoryTemplateBody(),
};

export function renderMemoryContext(memories: readonly MemoryRecord[]): string {
  const shown = [...memories]
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((memory) => ({
      date: new Date(memory.createdAt).toISOString().slice(0, 10),
      // A memory of several lines stays one item of the list.
      content: memory.content.trim().replace(/\n/g, "\n  "),
    }));
  return renderTemplate(TEMPLATE, { memories: shown });
}

/** Tokens of the message with no memory in it: taken from the budget before filling it. */
export function frameTokens(): number {
  frame ??= tokensOfChars(renderMemoryContext([]).length);
  return frame;
}
let frame: number | undefined;
