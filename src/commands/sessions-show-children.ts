import type { ExtensionStateEntry, SessionEntry } from "../history/schema.ts";
import { SUBAGENTS_EXTENSION } from "../subagents/session-subagents.ts";
import { type ChildTranscript, childTranscriptOf } from "../subagents/transcript.ts";

/**
 * Subagents' transcripts in `ion sessions show`. A child saves its whole conversation after each of
 * its steps (so a kill loses at most the step in flight); the transcript shows only the last save
 * of each tool call, where the child's conversation is complete.
 */

/** Subagent saves that a later save of the same tool call replaces: their number → the last save's. */
export function supersededChildSaves(entries: readonly SessionEntry[]): Map<number, number> {
  const last = new Map<string, number>();
  for (const entry of entries)
    if (
      entry.type === "extension_state" &&
      entry.extension === SUBAGENTS_EXTENSION &&
      entry.parent_tool_use_id
    )
      last.set(entry.parent_tool_use_id, entry.n);
  const superseded = new Map<number, number>();
  for (const entry of entries) {
    if (entry.type !== "extension_state" || entry.extension !== SUBAGENTS_EXTENSION) continue;
    const final = entry.parent_tool_use_id ? last.get(entry.parent_tool_use_id) : undefined;
    if (final !== undefined && final !== entry.n) superseded.set(entry.n, final);
  }
  return superseded;
}

/** A subagent's saved conversation, or undefined when the entry is not one (or not in a shape this ion reads). */
export function childTranscript(entry: ExtensionStateEntry): ChildTranscript | undefined {
  if (entry.extension !== SUBAGENTS_EXTENSION || !entry.parent_tool_use_id) return undefined;
  return childTranscriptOf(entry.data);
}

/** Tool call ids of a child's conversation by tool name, for naming its results. */
export function childToolNames(child: ChildTranscript, into: Map<string, string>): Map<string, string> {
  const names = new Map(into);
  for (const message of child.messages)
    for (const block of message.content) if (block.type === "tool_use") names.set(block.id, block.name);
  return names;
}
