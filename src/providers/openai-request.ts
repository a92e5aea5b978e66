/**
 * The Chat Completions request body: ion's messages in the wire's shape, with what the vendor wants
 * back from earlier answers (Gemini's `extra_content` on a call, OpenRouter's `reasoning_details`,
 * DeepSeek's and Kimi's `reasoning_content`), and thinking in the values the model takes.
 *
 * Opaque fields go back only to the provider that produced them (tagged in the session with provider
 * id and wire); another provider's are dropped. Tool-call ids OpenAI refuses (a session begun
 * elsewhere) are sent mapped, the same on every turn (see tool-ids.ts).
 */
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { dataUrl } from "./image.ts";
import {
  GEMINI_SKIP_SIGNATURE,
  needsThoughtSignature,
  resendsReasoningContent,
  thinkingChoice,
} from "./openai-rules.ts";
import type {
  AssistantMessage,
  Message,
  OpaqueFields,
  StreamRequest,
  ToolSpec,
  ToolUseBlock,
  UserMessage,
} from "./types.ts";

/** How this request treats what earlier answers carried. */
interface EchoRules {
  provider: string;
  /** The id a call of the history is sent under (ids OpenAI refuses are mapped, see `refusedToolIds`). */
  toolId: (id: string) => string;
  reasoningContent: boolean;
  thoughtSignature: boolean;
}

/** The fields of `opaque` when this provider on this wire produced them. */
function ownFields(opaque: OpaqueFields | undefined, rules: EchoRules): Record<string, unknown> | undefined {
  return opaque && opaque.provider === rules.provider && opaque.wire === "openai" ? opaque.fields : undefined;
}

type ToolCallParam = ChatCompletionMessageFunctionToolCall & { extra_content?: unknown };

function toolCall(block: ToolUseBlock, first: boolean, rules: EchoRules): ToolCallParam {
  const call: ToolCallParam = {
    id: rules.toolId(block.id),
    type: "function",
    function: { name: block.name, arguments: JSON.stringify(block.input) },
  };
  const extra = ownFields(block.opaque, rules)?.extra_content;
  if (extra !== undefined) call.extra_content = extra;
  // Gemini 3 validates the first call of each step; only Gemini's own calls have a real signature.
  else if (first && rules.thoughtSignature)
    call.extra_content = { google: { thought_signature: GEMINI_SKIP_SIGNATURE } };
  return call;
}

type AssistantParam = ChatCompletionAssistantMessageParam & {
  reasoning_content?: string;
  reasoning_details?: unknown[];
};

function assistantMessage(
  message: AssistantMessage,
  rules: EchoRules,
): ChatCompletionMessageParam | undefined {
  const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const uses = message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
  const toolCalls = uses.map((b, i) => toolCall(b, i === 0, rules));
  let reasoning = "";
  const details: unknown[] = [];
  for (const block of message.content) {
    if (block.type !== "thinking") continue;
    const own = ownFields(block.opaque, rules);
    if (!own) continue;
    if (own.reasoning_content === true || own.reasoning === true) reasoning += block.thinking;
    if (Array.isArray(own.reasoning_details)) details.push(...own.reasoning_details);
  }
  if (toolCalls.length === 0 && !text) return undefined;
  const out: AssistantParam = { role: "assistant" };
  if (text) out.content = text;
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  // DeepSeek and Kimi want the field on every tool-call turn, empty when the turn had no reasoning of theirs.
  if (toolCalls.length > 0 && rules.reasoningContent) out.reasoning_content = reasoning;
  if (details.length > 0) out.reasoning_details = details;
  return out;
}

/** Tool results must directly follow the assistant's tool calls, so they go before any user text. */
function userMessages(message: UserMessage, rules: EchoRules): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      out.push({ role: "tool", tool_call_id: rules.toolId(block.tool_use_id), content: block.content });
    }
  }
  if (message.content.some((b) => b.type === "image")) {
    // Images go as content parts, in the order the user gave them, with the text around them.
    const parts: ChatCompletionContentPart[] = message.content.flatMap((b): ChatCompletionContentPart[] => {
      if (b.type === "image") return [{ type: "image_url", image_url: { url: dataUrl(b) } }];
      return b.type === "text" && b.text ? [{ type: "text", text: b.text }] : [];
    });
    out.push({ role: "user", content: parts });
    return out;
  }
  const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n\n");
  if (text) out.push({ role: "user", content: text });
  return out;
}

function toChatMessages(system: string, messages: Message[], rules: EchoRules): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    if (message.role === "user") out.push(...userMessages(message, rules));
    else {
      const mapped = assistantMessage(message, rules);
      if (mapped) out.push(mapped);
    }
  }
  return out;
}

function toTools(tools: ToolSpec[]): ChatCompletionFunctionTool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.input_schema },
  }));
}

/**
 * Whether the history holds a tool-call id OpenAI refuses: empty, or over its 40 characters ("Invalid
 * 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40"), as
 * vLLM's `chatcmpl-tool-<uuid>` ids are. Only a session begun on another server has one, so the
 * mapping (tool-ids.ts) is loaded only then.
 */
export function refusedToolIds(messages: Message[]): boolean {
  return messages.some((message) =>
    message.content.some((block) => {
      const id =
        block.type === "tool_use" ? block.id : block.type === "tool_result" ? block.tool_use_id : undefined;
      return id !== undefined && (id.length === 0 || id.length > 40);
    }),
  );
}

/** The request body, and what to tell the user about the thinking level (once a session). */
export function buildParams(
  request: StreamRequest,
  toolId: (id: string) => string = (id) => id,
): {
  params: ChatCompletionCreateParamsStreaming;
  notice?: string;
} {
  const { provider } = request;
  const rules: EchoRules = {
    provider: provider.id,
    toolId,
    reasoningContent: resendsReasoningContent(request),
    thoughtSignature: needsThoughtSignature(request),
  };
  const params: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: toChatMessages(request.system, request.messages, rules),
    stream: true,
  };
  if (provider.quirks.streamUsage !== false) params.stream_options = { include_usage: true };
  if (request.tools.length > 0) params.tools = toTools(request.tools);
  // Applies to the answer only: with tools offered the model may still call them first. Not strict:
  // strict mode refuses schemas without `additionalProperties: false` everywhere; ion validates anyway.
  if (request.responseSchema) {
    const { name, schema } = request.responseSchema;
    params.response_format = { type: "json_schema", json_schema: { name, schema, strict: false } };
  }
  if (request.maxTokens !== undefined) {
    // OpenAI's reasoning models reject `max_tokens`; most compatible servers (Ollama's /v1, older
    // vLLM and llama.cpp) only read `max_tokens`.
    if (provider.quirks.maxTokensParam === "max_completion_tokens")
      params.max_completion_tokens = request.maxTokens;
    else params.max_tokens = request.maxTokens;
  }
  // `reasoning_effort` on every vendor, Ollama included (its /v1 turns it into its native `think`),
  // where the model reasons and in the values it takes; vendor values such as Groq's "default" are
  // outside the SDK's type, hence the assign.
  const thinking = thinkingChoice(request);
  if (thinking.effort !== undefined) Object.assign(params, { reasoning_effort: thinking.effort });
  return thinking.notice ? { params, notice: thinking.notice } : { params };
}
