import type { Message, ToolUseBlock } from "../providers/types.ts";
import type { CompactionEntry, ContextMessageEntry, MessageEntry, SessionEntry } from "./schema.ts";

/**
 * The conversation as the model sees it, with each message's entry number (`n`; -1 for a message
 * that is not in the file: a compaction summary, or the result given to an interrupted call).
 */
export interface ModelView {
  messages: Message[];
  ns: number[];
  /** The compaction in effect, if any. */
  compaction: CompactionEntry | undefined;
}

/** How a compaction summary is shown to the model: a user message it cannot mistake for the user's words. */
export function summaryMessage(summary: string): Message {
  return {
    role: "user",
    content: [
      {
        type: "text",
        text: `<conversation_summary>\nThe earlier part of this conversation was compacted. Summary:\n\n${summary}\n</conversation_summary>`,
      },
    ],
  };
}

/**
 * What the model is told about a call whose result was never saved although its step completed: ion
 * was stopped (killed, crashed) while the calls ran or waited for approval. The file keeps only the call.
 */
export const INTERRUPTED_CALL_RESULT =
  "interrupted: ion was stopped before this call finished, so it may have run, in part or in full, and its outcome is unknown. Check its effects before running it again.";

/**
 * Rebuilds the model's view: the latest compaction's summary, then every message entry from its
 * `first_kept` on; without a compaction, all message entries. A context message entry counts as a
 * message entry (its message keeps its `context` mark); other entries are not messages. Originals
 * before the cut stay on disk.
 * Calls of a completed step that have no result get one saying they were interrupted, right after
 * their step; calls of a step cut short (no stop reason: they never ran) are dropped.
 */
export function modelView(entries: readonly SessionEntry[]): ModelView {
  let compaction: CompactionEntry | undefined;
  for (const entry of entries) if (entry.type === "compaction") compaction = entry;
  const messages: Message[] = [];
  const ns: number[] = [];
  if (compaction) {
    messages.push(summaryMessage(compaction.summary));
    ns.push(-1);
  }
  const answered = new Set<string>();
  for (const entry of entries)
    if (isMessageEntry(entry))
      for (const b of entry.message.content) if (b.type === "tool_result") answered.add(b.tool_use_id);
  for (const entry of entries) {
    if (!isMessageEntry(entry) || (compaction && entry.n < compaction.first_kept)) continue;
    const message: Message = entry.message;
    messages.push(message);
    ns.push(entry.n);
    if (message.role !== "assistant" || entry.type !== "message" || entry.stop_reason === null) continue;
    const lost = message.content.filter(
      (b): b is ToolUseBlock => b.type === "tool_use" && !answered.has(b.id),
    );
    if (lost.length === 0) continue;
    messages.push({
      role: "user",
      content: lost.map((b) => ({
        type: "tool_result",
        tool_use_id: b.id,
        content: INTERRUPTED_CALL_RESULT,
        is_error: true,
      })),
    });
    ns.push(-1);
  }
  return { messages: dropDanglingToolUse(messages, ns), ns, compaction };
}

/** Entries whose message is part of the conversation: the user's and the model's, and context messages. */
function isMessageEntry(entry: SessionEntry): entry is MessageEntry | ContextMessageEntry {
  return entry.type === "message" || entry.type === "context_message";
}

/**
 * A run cut short can leave an assistant tool call without its result (or a result without its call);
 * providers reject both, so the view drops such halves. The file keeps them.
 */
export function dropDanglingToolUse(messages: Message[], ns?: number[]): Message[] {
  const answered = new Set<string>();
  const asked = new Set<string>();
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === "tool_result") answered.add(b.tool_use_id);
      if (b.type === "tool_use") asked.add(b.id);
    }
  }
  const out: Message[] = [];
  const keptNs: number[] = [];
  messages.forEach((m, i) => {
    const content =
      m.role === "assistant"
        ? m.content.filter((b) => b.type !== "tool_use" || answered.has(b.id))
        : m.content.filter((b) => b.type !== "tool_result" || asked.has(b.tool_use_id));
    if (content.length === 0) return;
    // Unchanged messages stay the same objects: the session finds compaction cuts by identity.
    out.push(content.length === m.content.length ? m : ({ ...m, content } as Message));
    if (ns) keptNs.push(ns[i]!);
  });
  ns?.splice(0, ns.length, ...keptNs);
  return out;
}

/** Message count and token totals of a session; input includes cache reads and writes. */
export function entryTotals(entries: readonly SessionEntry[]): {
  messages: number;
  input: number;
  output: number;
} {
  let messages = 0;
  let input = 0;
  let output = 0;
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    messages++;
    const usage = entry.usage;
    if (!usage) continue;
    input += usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
    output += usage.output_tokens;
  }
  return { messages, input, output };
}
