import type {
  AssistantBlock,
  AssistantMessage,
  Message,
  ProviderError,
  StopReason,
  StreamEvent,
  TextBlock,
  Usage,
} from "../providers/types.ts";
import { emptyUsage } from "../providers/types.ts";
import { currentTools } from "../tools/registry.ts";
import { messageOf } from "../util/error-text.ts";
import type { AgentEvent } from "./events.ts";
import type { AgentDeps, AgentInput } from "./loop.ts";

/**
 * One model request of the loop (a "step"): the request built from the view plus the per-request
 * context, the stream read to its end, deltas forwarded as events and the assistant message assembled
 * in arrival order.
 */

export interface StepOutcome {
  message: AssistantMessage;
  stopReason: StopReason | null;
  usage: Usage;
  error?: ProviderError;
  /** Tool calls whose arguments did not parse, by call id: answered with the parse error, never run. */
  parseErrors: Map<string, string>;
}

/** Builds the assistant message from a stream's events; `take` returns what to forward to the front end. */
class StepAssembler {
  readonly blocks: AssistantBlock[] = [];
  usage = emptyUsage();
  stopReason: StopReason | null = null;
  error: ProviderError | undefined;
  readonly parseErrors = new Map<string, string>();

  constructor(private readonly provider: AgentInput["provider"]) {}

  private last(): AssistantBlock | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  take(event: StreamEvent): AgentEvent | undefined {
    switch (event.type) {
      case "text_delta": {
        const block = this.last();
        if (block?.type === "text") block.text += event.text;
        else this.blocks.push({ type: "text", text: event.text });
        return { type: "text_delta", text: event.text };
      }
      case "thinking_delta": {
        const block = this.last();
        if (block?.type === "thinking") block.thinking += event.text;
        else this.blocks.push({ type: "thinking", thinking: event.text });
        return { type: "thinking_delta", text: event.text };
      }
      case "thinking_signature": {
        const block = [...this.blocks].reverse().find((b) => b.type === "thinking");
        if (block?.type === "thinking") block.signature = event.signature;
        return undefined;
      }
      case "thinking_opaque":
        this.opaqueThinking(event);
        return undefined;
      case "tool_call_start":
        return { type: "tool_use_start", index: event.index, id: event.id, name: event.name };
      case "tool_call_delta":
        return { type: "tool_use_delta", index: event.index, partial_json: event.arguments_delta };
      case "tool_call":
        this.toolCall(event);
        return undefined;
      case "notice":
        return { type: "notice", text: event.text };
      case "retry": {
        const { attempt, max_retries, delay_ms, error } = event;
        return { type: "api_retry", attempt, max_retries, delay_ms, error };
      }
      default:
        this.ending(event);
        return undefined;
    }
  }

  private opaqueThinking(event: Extract<StreamEvent, { type: "thinking_opaque" }>): void {
    let block = this.last();
    if (event.newBlock || block?.type !== "thinking") {
      block = { type: "thinking", thinking: "" };
      this.blocks.push(block);
    }
    if (block.type === "thinking") {
      const fields = { ...block.opaque?.fields, ...event.fields };
      block.opaque = { provider: this.provider.id, wire: this.provider.wire, fields };
    }
  }

  private toolCall(event: Extract<StreamEvent, { type: "tool_call" }>): void {
    const { provider } = this;
    this.blocks.push({
      type: "tool_use",
      id: event.id,
      name: event.name,
      input: event.input,
      ...(event.opaque
        ? { opaque: { provider: provider.id, wire: provider.wire, fields: event.opaque } }
        : {}),
    });
    if (event.parse_error !== undefined) this.parseErrors.set(event.id, event.parse_error);
  }

  /** Usage, the end of the stream, or its failure. */
  private ending(event: StreamEvent): void {
    if (event.type === "usage") this.usage = event.usage;
    else if (event.type === "done") {
      this.stopReason = event.stop_reason;
      this.usage = event.usage;
    } else if (event.type === "error") {
      this.error = event.error;
      if (event.usage) this.usage = event.usage;
    }
  }
}

/** Streams one model request, forwarding deltas and assembling the assistant message in arrival order. */
export async function* runStep(
  input: AgentInput,
  view: Message[],
  deps: AgentDeps,
): AsyncGenerator<AgentEvent, StepOutcome> {
  const step = new StepAssembler(input.provider);
  try {
    const messages = deps.contextBlocks ? withContext(view, await deps.contextBlocks(view)) : view;
    const stream = deps.stream({
      provider: input.provider,
      model: input.model,
      system: input.system,
      messages,
      tools: currentTools(input.tools).map((t) => t.spec),
      thinking: input.thinking,
      ...(input.modelInfo ? { modelInfo: input.modelInfo } : {}),
      ...(input.responseSchema ? { responseSchema: input.responseSchema } : {}),
      signal: input.signal,
      ...(deps.log ? { log: deps.log } : {}),
    });
    for await (const event of stream) {
      const forwarded = step.take(event);
      if (forwarded) yield forwarded;
    }
  } catch (err) {
    // A stream must end with an `error` event rather than throw; if one throws anyway (a bug in an
    // adapter), the run still ends with a result instead of an unhandled rejection.
    const detail = messageOf(err);
    step.error = input.signal.aborted
      ? { kind: "aborted", message: `request to ${input.provider.id} was cancelled` }
      : { kind: "stream_dropped", message: `request to ${input.provider.id} failed: ${detail}` };
  }
  return {
    message: { role: "assistant", content: step.blocks },
    stopReason: step.stopReason,
    usage: step.usage,
    parseErrors: step.parseErrors,
    ...(step.error ? { error: step.error } : {}),
  };
}

/**
 * The request's messages with the per-request context after the conversation: in its last user
 * message, or a new one. Never part of the conversation itself.
 */
function withContext(messages: Message[], blocks: TextBlock[]): Message[] {
  if (blocks.length === 0) return messages;
  const last = messages[messages.length - 1];
  if (last?.role === "user")
    return [...messages.slice(0, -1), { role: "user", content: [...last.content, ...blocks] }];
  return [...messages, { role: "user", content: blocks }];
}

export function textOf(message: AssistantMessage): string {
  return message.content
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");
}
