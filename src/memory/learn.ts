import type { AgentEvent } from "../agent/events.ts";
import type { TurnEndInfo } from "../agent/session-extension.ts";
import { mainArgument } from "../tools/types.ts";
import type { NewMemory } from "./types.ts";

/**
 * What memory learns from a turn that ended: the user's message (its text, never a context message —
 * those are not in the prompt), the final answer, and one line per tool outcome
 * (`read_file notes.txt: ok`), each an episodic memory of the session. Secrets are redacted by the
 * caller's `redact`. A turn that failed before it had an answer teaches nothing.
 *
 *   turnMemories(turn, redact) → [{content: "user: I prefer tabs", …}, {content: "assistant: Noted.", …}, …]
 */

/** A pasted file or a long answer is kept up to here: a memory must fit a recall budget to be of use. */
export const MAX_MEMORY_CHARS = 4000;
/** A tool's main argument in its outcome line (a command, a path) is cut here. */
const MAX_ARGUMENT_CHARS = 200;

type ToolStart = Extract<AgentEvent, { type: "tool_start" }>;

export function turnMemories(
  turn: TurnEndInfo,
  redact: (text: string) => string,
  now = Date.now(),
): NewMemory[] {
  const { result } = turn;
  const answer = result.result.trim();
  if (result.is_error && answer === "") return [];
  const memory = (content: string): NewMemory => ({
    content: capped(redact(content)),
    source: turn.sessionId,
    type: "episodic",
    createdAt: now,
    validFrom: now,
  });
  const memories: NewMemory[] = [];
  const said = turn.prompt
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
  if (said !== "") memories.push(memory(`user: ${said}`));
  for (const line of toolOutcomes(turn.events)) memories.push(memory(line));
  if (answer !== "") memories.push(memory(`assistant: ${answer}`));
  return memories;
}

/** `bash npm test: error`, one per call of this agent (a subagent's own calls are its business). */
function toolOutcomes(events: readonly AgentEvent[]): string[] {
  const starts = new Map<string, ToolStart>();
  const lines: string[] = [];
  for (const event of events) {
    if (event.type === "result" || event.parent_tool_use_id !== undefined) continue;
    if (event.type === "tool_start") starts.set(event.id, event);
    if (event.type !== "tool_end") continue;
    const argument = argumentText(starts.get(event.id)?.input);
    const outcome = event.is_error ? "error" : "ok";
    lines.push(`${event.name}${argument ? ` ${argument}` : ""}: ${outcome}`);
  }
  return lines;
}

function argumentText(input: Record<string, unknown> | undefined): string {
  const value = input === undefined ? undefined : mainArgument(input);
  if (typeof value !== "string") return "";
  const line = value.replace(/\s+/g, " ").trim();
  return line.length > MAX_ARGUMENT_CHARS ? `${line.slice(0, MAX_ARGUMENT_CHARS - 1)}…` : line;
}

function capped(text: string): string {
  return text.length > MAX_MEMORY_CHARS ? `${text.slice(0, MAX_MEMORY_CHARS - 1)}…` : text;
}
