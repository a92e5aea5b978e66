/**
 * ion's history → Mistral's chat messages, under the rules Mistral's request validator enforces
 * (mistral-common `protocol/instruct/validator.py`, which the API answers with):
 * - tool-call ids are `^[a-zA-Z0-9]{9}$`; ids from other wires are mapped (see tool-ids.ts);
 * - after a `tool` message only `assistant` or `tool` may follow, so a user message after tool results
 *   (a run stopped by --max-turns or an interrupt during tools, then the next prompt) gets an assistant
 *   turn saying so in front of it. Both changes are made in the request only, never in the session.
 */
import type {
  ChatCompletionStreamRequestMessage,
  ContentChunk,
  ToolCall,
} from "@mistralai/mistralai/models/components";
import { dataUrl } from "./image.ts";
import { MISTRAL_TOOL_IDS, toolIdMap } from "./tool-ids.ts";
import type { Message } from "./types.ts";

/** The assistant turn put between tool results and a user message that follows them directly. */
export const UNANSWERED_TOOL_RESULTS = "(interrupted)";

export function toMistralMessages(system: string, messages: Message[]): ChatCompletionStreamRequestMessage[] {
  const out: ChatCompletionStreamRequestMessage[] = [];
  if (system) out.push({ role: "system", content: system });
  const wireId = toolIdMap(messages, MISTRAL_TOOL_IDS);
  const toolNames = new Map<string, string>();
  const pushUser = (message: ChatCompletionStreamRequestMessage) => {
    if (out.at(-1)?.role === "tool") out.push({ role: "assistant", content: UNANSWERED_TOOL_RESULTS });
    out.push(message);
  };
  for (const message of messages) {
    if (message.role === "assistant") {
      const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      const toolCalls: ToolCall[] = [];
      for (const block of message.content) {
        if (block.type !== "tool_use") continue;
        toolNames.set(block.id, block.name);
        toolCalls.push({
          id: wireId(block.id),
          type: "function",
          function: { name: block.name, arguments: JSON.stringify(block.input) },
          index: toolCalls.length,
        });
      }
      // Thinking is not sent back; an assistant turn with nothing else left would be rejected.
      if (!text && toolCalls.length === 0) continue;
      out.push({
        role: "assistant",
        ...(text ? { content: text } : {}),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      });
      continue;
    }
    const texts: string[] = [];
    const chunks: ContentChunk[] = []; // text and images in order, used when there are images
    for (const block of message.content) {
      if (block.type === "text") {
        texts.push(block.text);
        chunks.push({ type: "text", text: block.text });
        continue;
      }
      if (block.type === "image") {
        chunks.push({ type: "image_url", imageUrl: dataUrl(block) });
        continue;
      }
      const name = toolNames.get(block.tool_use_id);
      out.push({
        role: "tool",
        toolCallId: wireId(block.tool_use_id),
        content: block.content,
        ...(name ? { name } : {}),
      });
    }
    if (chunks.length > texts.length) pushUser({ role: "user", content: chunks });
    else if (texts.length === 1) pushUser({ role: "user", content: texts[0]! });
    else if (texts.length > 1)
      pushUser({ role: "user", content: texts.map((text) => ({ type: "text", text })) });
  }
  return out;
}
