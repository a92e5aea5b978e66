import { IMAGE_TOKENS } from "../providers/image.ts";
import type { Message, ToolSpec, Usage } from "../providers/types.ts";

/**
 * Token estimates for compaction decisions. Without a tokenizer per model, characters / 4 is the usual
 * rough measure for English and code; it is only used to decide *when* to compact and *where* to cut,
 * and the provider-reported usage replaces it whenever there is one.
 */
const CHARS_PER_TOKEN = 4;

/**
 * The characters of one message as a model reads them: text, thinking, tool inputs and results as
 * JSON; an image as the characters of its usual token cost (IMAGE_TOKENS).
 */
export function messageChars(message: Message): number {
  let chars = 0;
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        chars += block.text.length;
        break;
      case "thinking":
        // The signature is opaque provider data, not tokens the model reads.
        chars += block.thinking.length;
        break;
      case "tool_use":
        chars += block.name.length + JSON.stringify(block.input).length;
        break;
      case "tool_result":
        chars += block.content.length;
        break;
      case "image":
        chars += IMAGE_TOKENS * CHARS_PER_TOKEN;
        break;
    }
  }
  return chars;
}

export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** chars/4 of the messages, the system prompt and (when given) the tools' JSON schemas. */
export function estimateTokens(
  messages: readonly Message[],
  system = "",
  tools: readonly ToolSpec[] = [],
): number {
  let chars = system.length;
  for (const message of messages) chars += messageChars(message);
  for (const tool of tools) chars += JSON.stringify(tool).length;
  return tokensOfChars(chars);
}

/** Everything the provider counted for one request: its whole input (cached or not) plus its output. */
export function usageTotal(usage: Usage): number {
  return (
    usage.input_tokens +
    usage.output_tokens +
    usage.cache_read_input_tokens +
    usage.cache_creation_input_tokens
  );
}

/**
 * How full the context is before the next request. When the provider reported usage for the last
 * request, that request's input + cache reads + cache writes + output (its answer is part of the next
 * request) plus chars/4 of what was appended since; otherwise chars/4 of everything. A usage of all
 * zeros means the provider reported none (e.g. a server without `stream_options.include_usage`).
 */
export function contextEstimate(
  lastUsage: Usage | undefined,
  messagesSince: readonly Message[],
  everything: { messages: readonly Message[]; system: string; tools?: readonly ToolSpec[] },
): number {
  if (lastUsage !== undefined && usageTotal(lastUsage) > 0)
    return usageTotal(lastUsage) + estimateTokens(messagesSince);
  return estimateTokens(everything.messages, everything.system, everything.tools);
}
