import type { AgentEvent } from "../agent/events.ts";
import type { AssistantBlock } from "../providers/types.ts";
import { jsonLine, type Renderer, type RenderOptions } from "./renderer.ts";

/** The wire form of an assistant block: thinking signatures are opaque provider data and stay internal. */
function publicBlock(block: AssistantBlock) {
  return block.type === "thinking" ? { type: "thinking", thinking: block.thinking } : block;
}

function toLine(event: AgentEvent, sessionId: string, partial: boolean): object | undefined {
  switch (event.type) {
    case "init": {
      const { type: _type, context_window: _window, ...init } = event;
      return { type: "system", subtype: "init", schema_version: 1, ...init };
    }
    case "assistant":
      return {
        type: "assistant",
        session_id: sessionId,
        message: {
          role: "assistant",
          content: event.message.content.map(publicBlock),
          stop_reason: event.stop_reason,
          usage: event.usage,
        },
      };
    case "tool_results":
      return { type: "user", session_id: sessionId, message: event.message };
    case "text_delta":
    case "thinking_delta":
      return partial
        ? { type: "stream_event", session_id: sessionId, event: { type: event.type, text: event.text } }
        : undefined;
    case "api_retry":
      return {
        type: "system",
        subtype: "api_retry",
        session_id: sessionId,
        attempt: event.attempt,
        max_retries: event.max_retries,
        retry_delay_ms: event.delay_ms,
        error_status: event.error.status ?? null,
        error: event.error.message,
      };
    case "compact_boundary":
      // The summary stays out of stdout: it is model-written context, not output (the session keeps it).
      return {
        type: "system",
        subtype: "compact_boundary",
        session_id: sessionId,
        trigger: event.trigger,
        pre_tokens: event.pre_tokens,
        post_tokens: event.post_tokens,
      };
    case "result":
      return event.result;
    default:
      return undefined;
  }
}

/** `-o stream-json`: JSON Lines in the order of SPEC §6, the result always last. */
export function streamJsonRenderer(options: RenderOptions): Renderer {
  let sessionId = "";
  return {
    onEvent(event) {
      if (event.type === "init") sessionId = event.session_id;
      const line = toLine(event, sessionId, options.partial);
      if (line) options.stdout.write(jsonLine(line));
    },
    close() {},
  };
}
