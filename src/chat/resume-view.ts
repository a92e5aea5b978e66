import type { ModelView } from "../history/view.ts";
import type { Message } from "../providers/types.ts";
import type { Style } from "../ui/style.ts";
import { truncate } from "../ui/table.ts";
import { summarizeInput } from "../ui/tool-lines.ts";
import { safeForTerminal } from "../util/terminal-text.ts";

/**
 * What a reopened chat shows under its "resumed" line: the last few exchanges, dimmed and compact —
 * each prompt, the first line of each answer, a tool call as one line — so the user sees where they
 * were. It reads the view the session already loaded (no file is read again). The messages came from
 * a model and a user, so every line is made safe for the terminal and cut to its width.
 */

/** How many exchanges (a prompt and what answered it) are shown. */
const EXCHANGES = 3;
/** Lines under a prompt before the earlier ones are folded into a count. */
const BODY_LINES = 4;

/** The first non-blank line of a text, safe and on one row; `…` when more followed. */
function firstLine(text: string): string {
  const lines = safeForTerminal(text)
    .split("\n")
    .map((l) => l.replaceAll("\t", " ").trimEnd())
    .filter((l) => l.trim() !== "");
  if (lines.length === 0) return "";
  return lines.length > 1 ? `${lines[0]} …` : lines[0]!;
}

/** A message the user typed: not a summary or an interrupted call's result (n -1), nor a context message. */
const isPrompt = (m: Message, n: number | undefined) =>
  m.role === "user" &&
  n !== -1 &&
  m.context === undefined &&
  m.content.some((b) => b.type === "text" && b.text.trim() !== "");

/** What answered a prompt, one line per answer text and per tool call. */
function bodyLines(messages: readonly Message[]): string[] {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type === "text" && block.text.trim() !== "") lines.push(firstLine(block.text));
      if (block.type === "tool_use")
        lines.push(`● ${firstLine(block.name)}  ${summarizeInput(block.input, block.name)}`.trimEnd());
    }
  }
  if (lines.length <= BODY_LINES) return lines;
  const kept = lines.slice(-(BODY_LINES - 1));
  return [`… ${lines.length - kept.length} earlier lines`, ...kept];
}

/** The dimmed lines to print, or none for a session with no prompt yet. `columns`: the terminal's width. */
export function resumeView(view: ModelView, style: Style, columns: number | undefined): string[] {
  const { messages, ns } = view;
  const starts: number[] = [];
  for (const [i, message] of messages.entries()) if (isPrompt(message, ns[i])) starts.push(i);
  if (starts.length === 0) return [];
  const shown = starts.slice(-EXCHANGES);
  const lines: string[] = [];
  const earlier = shown[0]! - (view.compaction ? 1 : 0);
  const counted = `${earlier} earlier message${earlier === 1 ? "" : "s"}`;
  if (view.compaction)
    lines.push(
      earlier > 0
        ? `… ${counted}, and a summary of older ones`
        : "… earlier messages compacted into a summary",
    );
  else if (earlier > 0) lines.push(`… ${counted}`);
  for (const [k, start] of shown.entries()) {
    const end = shown[k + 1] ?? messages.length;
    const prompt = messages[start]!.content.find((b) => b.type === "text");
    lines.push(`> ${firstLine(prompt?.type === "text" ? prompt.text : "")}`);
    for (const line of bodyLines(messages.slice(start + 1, end))) lines.push(`  ${line}`);
  }
  // One row each: a wrapped line would break the compact view (and `columns - 1` keeps off the last cell).
  const fit = (line: string) => (columns ? truncate(line, Math.max(10, columns - 1)) : line);
  return lines.map((line) => style.dim(fit(line)));
}
