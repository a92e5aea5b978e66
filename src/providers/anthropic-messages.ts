/**
 * ion's history → the Anthropic Messages API's `messages`. Reasoning goes back as the API gave it —
 * signed thinking unchanged, redacted thinking as its encrypted `data` — because a tool loop with
 * thinking must resend the assistant turn's thinking blocks (a 400 otherwise), but only what this
 * provider produced: another provider's signatures and opaque fields mean nothing here and would be
 * rejected, so they are dropped, as are unsigned thinking and empty text. Tool-call ids of other wires
 * are mapped to Anthropic's form.
 */
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { ANTHROPIC_TOOL_IDS, toolIdMap } from "./tool-ids.ts";
import type { Message, ThinkingBlock } from "./types.ts";

const EPHEMERAL = { type: "ephemeral" } as const;

/** The key under which a redacted_thinking block's `data` is kept in the thinking block's opaque fields. */
export const REDACTED_DATA = "redacted_data";

function thinkingBlock(block: ThinkingBlock, providerId: string): ContentBlockParam | undefined {
  const { opaque } = block;
  // Untagged signed blocks predate tagging; only the Anthropic wire ever made signatures, so they are kept.
  if (opaque && (opaque.provider !== providerId || opaque.wire !== "anthropic")) return undefined;
  const data = opaque?.fields[REDACTED_DATA];
  if (typeof data === "string") return { type: "redacted_thinking", data };
  if (block.signature) return { type: "thinking", thinking: block.thinking, signature: block.signature };
  return undefined;
}

export function toWireMessages(messages: Message[], providerId: string): MessageParam[] {
  // Ids another wire made (`functions.read:0`) break Anthropic's id pattern: each gets one of its form.
  const idOf = toolIdMap(messages, ANTHROPIC_TOOL_IDS);
  const out: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  for (const message of messages) {
    const content: ContentBlockParam[] = [];
    for (const block of message.content) {
      if (block.type === "text") {
        if (block.text) content.push({ type: "text", text: block.text });
      } else if (block.type === "thinking") {
        const wire = thinkingBlock(block, providerId);
        if (wire) content.push(wire);
      } else if (block.type === "tool_use") {
        content.push({ type: "tool_use", id: idOf(block.id), name: block.name, input: block.input });
      } else if (block.type === "image") {
        const source = { type: "base64", media_type: block.media_type, data: block.data } as const;
        content.push({ type: "image", source });
      } else {
        const { tool_use_id, content: text, is_error } = block;
        content.push({ type: "tool_result", tool_use_id: idOf(tool_use_id), content: text, is_error });
      }
    }
    if (content.length > 0) out.push({ role: message.role, content });
  }
  // A cache breakpoint on the newest user block: the next turn re-reads the whole conversation from cache.
  const last = out.at(-1);
  const block = last?.role === "user" ? last.content.at(-1) : undefined;
  if (block && (block.type === "text" || block.type === "tool_result")) block.cache_control = EPHEMERAL;
  return out;
}
