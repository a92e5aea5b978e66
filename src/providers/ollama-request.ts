/**
 * The body of an Ollama `/api/chat` request: ion's messages and tools in Ollama's shapes, `think` in
 * the form the model takes, and `options.num_ctx` so the server keeps the whole conversation.
 *
 * Shapes (Ollama docs/api.md "Generate a chat completion", api/types.go `Message`): tool calls carry
 * `arguments` as an object; a tool result is a `role: "tool"` message naming the tool (`tool_name`,
 * and `tool_call_id` on servers that read it).
 */
import type { OllamaModel } from "./ollama-show.ts";
import type {
  AssistantMessage,
  Message,
  StreamRequest,
  ThinkingLevel,
  ToolSpec,
  UserMessage,
} from "./types.ts";

export interface OllamaToolCall {
  id?: string;
  function: { name: string; arguments: Record<string, unknown> };
}

export interface OllamaMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  thinking?: string;
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
  tool_call_id?: string;
  /** Base64 images of a user message, without a data: prefix. */
  images?: string[];
}

export interface OllamaChatBody {
  model: string;
  messages: OllamaMessage[];
  stream: true;
  tools?: { type: "function"; function: { name: string; description: string; parameters: unknown } }[];
  think?: boolean | string;
  /** Structured output: the JSON Schema the answer must follow. */
  format?: Record<string, unknown>;
  options?: { num_ctx?: number; num_predict?: number };
}

/**
 * Levels named by the model's own template, by architecture, for servers whose /api/show does not
 * list `thinking.values`: gpt-oss takes "low" | "medium" | "high" (Ollama's thinking docs).
 */
const NAMED_LEVELS: Record<string, string[]> = { gptoss: ["low", "medium", "high"] };

function assistantMessage(message: AssistantMessage): OllamaMessage | undefined {
  const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  // Reasoning another wire produced (signed, or tagged with its wire) means nothing to this model.
  const thinking = message.content
    .flatMap((b) =>
      b.type === "thinking" && !b.signature && (!b.opaque || b.opaque.wire === "ollama") ? [b.thinking] : [],
    )
    .join("");
  const calls: OllamaToolCall[] = message.content.flatMap((b) =>
    b.type === "tool_use" ? [{ id: b.id, function: { name: b.name, arguments: b.input } }] : [],
  );
  if (!text && calls.length === 0) return undefined;
  return {
    role: "assistant",
    content: text,
    ...(thinking ? { thinking } : {}),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
}

/** Tool results first (they answer the assistant's calls), then the user's text. */
function userMessages(message: UserMessage, toolNames: Map<string, string>): OllamaMessage[] {
  const out: OllamaMessage[] = [];
  for (const block of message.content) {
    if (block.type !== "tool_result") continue;
    const name = toolNames.get(block.tool_use_id);
    out.push({
      role: "tool",
      content: block.content,
      ...(name ? { tool_name: name } : {}),
      tool_call_id: block.tool_use_id,
    });
  }
  const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n\n");
  // Ollama takes a message's images as bare base64 beside its text (api.md, "Chat request (with images)").
  const images = message.content.flatMap((b) => (b.type === "image" ? [b.data] : []));
  if (text || images.length > 0)
    out.push({ role: "user", content: text, ...(images.length > 0 ? { images } : {}) });
  return out;
}

export function toOllamaMessages(system: string, messages: Message[]): OllamaMessage[] {
  const out: OllamaMessage[] = system ? [{ role: "system", content: system }] : [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "user") {
      out.push(...userMessages(message, toolNames));
      continue;
    }
    for (const block of message.content) if (block.type === "tool_use") toolNames.set(block.id, block.name);
    const mapped = assistantMessage(message);
    if (mapped) out.push(mapped);
  }
  return out;
}

function toTools(tools: ToolSpec[]): OllamaChatBody["tools"] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.input_schema },
  }));
}

/** `think` for this model and level, and what the user should be told when the level is not sent as is. */
export function thinkFor(
  level: ThinkingLevel,
  label: string,
  canThink: boolean | null,
  model: OllamaModel | undefined,
): { think?: boolean | string; notice?: string } {
  if (canThink !== true) {
    // Off needs nothing (the model cannot think); `think` to a model without the capability is a 400.
    if (level === "off") return {};
    return {
      notice:
        canThink === false
          ? `${label} cannot think (Ollama lists no "thinking" capability): thinking level ${level} is ignored`
          : `Ollama does not say whether ${label} can think: thinking level ${level} is not requested`,
    };
  }
  // "Off" is sent: a thinking model left alone thinks by default.
  if (level === "off") return { think: false };
  const values = model?.thinkValues ?? NAMED_LEVELS[model?.architecture ?? ""] ?? [true, false];
  if (values.includes(level)) return { think: level };
  return {
    think: true,
    notice: `${label} takes thinking on or off, not levels: thinking level ${level} is sent as on`,
  };
}

export interface ChatPlan {
  body: OllamaChatBody;
  notices: string[];
}

/** What the wire knows of the model: /api/show's answer (when read), its thinking, the window to ask for. */
export interface ModelView {
  model: OllamaModel | undefined;
  canThink: boolean | null;
  numCtx: number | undefined;
}

export function chatBody(request: StreamRequest, { model, canThink, numCtx }: ModelView): ChatPlan {
  const label = `${request.provider.id}/${request.model}`;
  const body: OllamaChatBody = {
    model: request.model,
    messages: toOllamaMessages(request.system, request.messages),
    stream: true,
  };
  if (request.tools.length > 0) body.tools = toTools(request.tools);
  if (request.responseSchema) body.format = request.responseSchema.schema;
  const thinking = thinkFor(request.thinking, label, canThink, model);
  if (thinking.think !== undefined) body.think = thinking.think;
  const options: NonNullable<OllamaChatBody["options"]> = {};
  if (numCtx !== undefined) options.num_ctx = numCtx;
  if (request.maxTokens !== undefined) options.num_predict = request.maxTokens;
  if (Object.keys(options).length > 0) body.options = options;
  return { body, notices: thinking.notice ? [thinking.notice] : [] };
}
