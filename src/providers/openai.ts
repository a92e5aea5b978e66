/**
 * The OpenAI Chat Completions wire: OpenAI itself and every OpenAI-compatible vendor (Gemini's
 * OpenAI endpoint, Ollama's /v1, OpenRouter, Groq, vLLM, LM Studio, llama.cpp …). Vendor differences
 * in the stream (repeated finish chunks, whole tool calls in one delta, reasoning fields, usage in odd
 * places) are absorbed here, so the rest of ion only sees StreamEvents.
 */
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { redactText } from "../util/secrets.ts";
import {
  abortedError,
  classifyHttpError,
  droppedError,
  networkError,
  providerSecrets,
  record,
} from "./errors.ts";
import { idleFetch } from "./idle.ts";
import { completionAsChunk, isJsonResponse, webPageInstead } from "./json-answer.ts";
import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  type ProviderError,
  type StopReason,
  type StreamEvent,
  type StreamRequest,
  type ToolSpec,
  type Usage,
  type UserMessage,
} from "./types.ts";

type ToolCallDelta = ChatCompletionChunk.Choice.Delta.ToolCall;

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

/** What one response has streamed so far. */
interface StreamState {
  calls: Map<number, PendingCall>;
  finish: string | undefined;
  usage: Usage | undefined;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

// ── request ────────────────────────────────────────────────────────────────────────────────────

function assistantMessage(message: AssistantMessage): ChatCompletionMessageParam | undefined {
  // Thinking blocks have no place on this wire: vendors neither accept nor need them back.
  const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = message.content.flatMap((b) =>
    b.type === "tool_use"
      ? [{ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input) } }]
      : [],
  );
  if (toolCalls.length === 0) return text ? { role: "assistant", content: text } : undefined;
  return text
    ? { role: "assistant", content: text, tool_calls: toolCalls }
    : { role: "assistant", tool_calls: toolCalls };
}

/** Tool results must directly follow the assistant's tool calls, so they go before any user text. */
function userMessages(message: UserMessage): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      out.push({ role: "tool", tool_call_id: block.tool_use_id, content: block.content });
    }
  }
  const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n\n");
  if (text) out.push({ role: "user", content: text });
  return out;
}

function toChatMessages(system: string, messages: Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    if (message.role === "user") out.push(...userMessages(message));
    else {
      const mapped = assistantMessage(message);
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

function buildParams(request: StreamRequest): ChatCompletionCreateParamsStreaming {
  const { provider } = request;
  const params: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: toChatMessages(request.system, request.messages),
    stream: true,
  };
  if (provider.quirks.streamUsage !== false) params.stream_options = { include_usage: true };
  if (request.tools.length > 0) params.tools = toTools(request.tools);
  if (request.maxTokens !== undefined) {
    // OpenAI's reasoning models reject `max_tokens`; most compatible servers (Ollama's /v1, older
    // vLLM and llama.cpp) only read `max_tokens`.
    if (provider.quirks.maxTokensParam === "max_completion_tokens")
      params.max_completion_tokens = request.maxTokens;
    else params.max_tokens = request.maxTokens;
  }
  // `reasoning_effort` on every vendor, Ollama included: its /v1 endpoint reads `reasoning_effort`
  // (and `reasoning.effort`) and turns it into its native `think`, while a `think` field sent to /v1
  // is silently dropped. Levels map one to one; "off" sends nothing so non-reasoning models still work.
  if (request.thinking !== "off") params.reasoning_effort = request.thinking;
  return params;
}

function makeClient(request: StreamRequest): OpenAI {
  const { provider, log } = request;
  const secrets = providerSecrets(provider);
  const line =
    (level: string) =>
    (message: string, ...rest: unknown[]): void => {
      const parts = rest.map((r) => (typeof r === "string" ? r : Bun.inspect(r, { depth: 4 })));
      log?.(redactText([`openai ${level}:`, message, ...parts].join(" "), secrets));
    };
  return new OpenAI({
    baseURL: provider.baseURL,
    // A keyless endpoint (Ollama, a local server) gets no Authorization header at all: the SDK insists on
    // some key (and would read $OPENAI_API_KEY when given none), so a placeholder it never sends, with
    // the header explicitly removed.
    apiKey: provider.apiKey ?? "unused",
    defaultHeaders: provider.apiKey ? provider.headers : { Authorization: null, ...provider.headers },
    fetch: idleFetch(provider),
    // The user's OPENAI_ORG_ID / OPENAI_PROJECT_ID are OpenAI's business, not another vendor's.
    ...(provider.id === "openai" ? {} : { organization: null, project: null }),
    maxRetries: 0,
    logLevel: log ? "info" : "off",
    logger: { error: line("error"), warn: line("warn"), info: line("info"), debug: line("debug") },
  });
}

// ── stream ─────────────────────────────────────────────────────────────────────────────────────

/** Usage in ion's (Anthropic's) meaning: input excludes cache reads and, on OpenRouter, cache writes. */
function toUsage(raw: unknown): Usage | undefined {
  const usage = record(raw);
  if (!usage || typeof usage.prompt_tokens !== "number") return undefined;
  const details = record(usage.prompt_tokens_details);
  const cacheRead = count(details?.cached_tokens);
  const cacheWrite = count(details?.cache_write_tokens);
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - cacheRead - cacheWrite),
    output_tokens: count(usage.completion_tokens),
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
  };
}

/** Reasoning text: `reasoning_content` (DeepSeek, Groq, vLLM) or `reasoning` (OpenRouter, Ollama). */
function reasoningText(delta: unknown): string {
  const fields = record(delta);
  const text = fields?.reasoning_content ?? fields?.reasoning;
  return typeof text === "string" ? text : "";
}

/** Some vendors omit `index`: a new id starts a new call, anything else continues the last one. */
function callIndex(call: ToolCallDelta, state: StreamState): number {
  if (typeof call.index === "number") return call.index;
  const known = [...state.calls.entries()].find(([, c]) => call.id && c.id === call.id);
  if (known) return known[0];
  return call.id || state.calls.size === 0 ? state.calls.size : state.calls.size - 1;
}

function* toolCallEvents(call: ToolCallDelta, state: StreamState): Generator<StreamEvent> {
  const index = callIndex(call, state);
  let pending = state.calls.get(index);
  if (!pending) {
    pending = { id: call.id || `call_${index}`, name: call.function?.name ?? "", args: "" };
    state.calls.set(index, pending);
    yield { type: "tool_call_start", index, id: pending.id, name: pending.name };
  } else if (!pending.name && call.function?.name) {
    pending.name = call.function.name;
  }
  const piece = call.function?.arguments;
  if (piece) {
    pending.args += piece;
    yield { type: "tool_call_delta", index, arguments_delta: piece };
  }
}

function* chunkEvents(chunk: ChatCompletionChunk, state: StreamState): Generator<StreamEvent> {
  // Groq also puts usage in `x_groq.usage`; the top-level copy wins when both are there.
  const usage = toUsage(chunk.usage) ?? toUsage(record(record(chunk)?.x_groq)?.usage);
  if (usage) state.usage = usage;
  for (const choice of chunk.choices ?? []) {
    if (choice.index) continue; // only one choice is ever requested
    const delta = choice.delta ?? {};
    const thinking = reasoningText(delta);
    if (thinking) yield { type: "thinking_delta", text: thinking };
    if (typeof delta.content === "string" && delta.content) yield { type: "text_delta", text: delta.content };
    for (const call of delta.tool_calls ?? []) yield* toolCallEvents(call, state);
    if (choice.finish_reason) state.finish = choice.finish_reason;
  }
}

function parseArguments(args: string): { input: Record<string, unknown>; parse_error?: string } {
  if (!args.trim()) return { input: {} };
  try {
    const input = record(JSON.parse(args));
    return input ? { input } : { input: {}, parse_error: "tool arguments are not a JSON object" };
  } catch (err) {
    return { input: {}, parse_error: err instanceof Error ? err.message : String(err) };
  }
}

function stopReason(finish: string | undefined, hasCalls: boolean): StopReason {
  if (finish === "length") return "max_tokens";
  if (finish === "content_filter") return "refusal";
  // Some vendors (Gemini's OpenAI endpoint among them) say "stop" after tool calls.
  if (finish === "tool_calls" || finish === "function_call" || hasCalls) return "tool_use";
  return "end_turn";
}

function* finishEvents(state: StreamState): Generator<StreamEvent> {
  const calls = [...state.calls.entries()].sort((a, b) => a[0] - b[0]);
  for (const [, call] of calls) {
    yield { type: "tool_call", id: call.id, name: call.name, ...parseArguments(call.args) };
  }
  if (state.usage) yield { type: "usage", usage: state.usage };
  yield {
    type: "done",
    stop_reason: stopReason(state.finish, calls.length > 0),
    usage: state.usage ?? emptyUsage(),
  };
}

// ── errors ─────────────────────────────────────────────────────────────────────────────────────

/** `started`: the response headers arrived, so a transport failure now is a dropped stream. */
function classify(request: StreamRequest, err: unknown, started: boolean): ProviderError {
  const { provider, model } = request;
  if (request.signal.aborted || err instanceof APIUserAbortError) return abortedError(provider);
  if (err instanceof APIConnectionError) return networkError(provider, err);
  if (err instanceof APIError) {
    // `err.error` is the body's `error` member; rewrap it so every body shape classifies the same.
    const body = err.error === undefined ? undefined : { error: err.error };
    // An error payload inside a 200 stream has no HTTP status; OpenRouter puts one in `error.code`.
    const code = record(err.error)?.code;
    const status = err.status ?? (typeof code === "number" && code >= 400 ? code : undefined);
    return classifyHttpError(provider, model, { status, headers: err.headers, body, message: err.message });
  }
  return started ? droppedError(provider, err) : networkError(provider, err);
}

function errorEvent(error: ProviderError, state: StreamState): StreamEvent {
  return state.usage ? { type: "error", error, usage: state.usage } : { type: "error", error };
}

/**
 * A plain JSON body where a stream was asked for: a complete answer (some proxies and mocks do this),
 * or an error object sent with a 2xx status.
 */
async function* jsonAnswer(response: Response): AsyncGenerator<ChatCompletionChunk> {
  const body: unknown = await response.json();
  const chunk = completionAsChunk(body);
  if (chunk) {
    yield chunk;
    return;
  }
  const error = record(body)?.error;
  if (error !== undefined) {
    throw new APIError(undefined, record(error) ?? { message: String(error) }, undefined, response.headers);
  }
  throw new Error("the server answered with JSON that is not a chat completion");
}

/** Streams one Chat Completions request. Never throws: failures end the stream with an `error` event. */
export async function* streamOpenAI(request: StreamRequest): AsyncGenerator<StreamEvent> {
  const state: StreamState = { calls: new Map(), finish: undefined, usage: undefined };
  let stream: AsyncIterable<ChatCompletionChunk>;
  try {
    const { data, response } = await makeClient(request)
      .chat.completions.create(buildParams(request), { signal: request.signal })
      .withResponse();
    const page = webPageInstead(response, request.provider);
    if (page) {
      await response.body?.cancel().catch(() => undefined); // the page itself is of no use
      yield errorEvent(page, state);
      return;
    }
    stream = isJsonResponse(response) ? jsonAnswer(response) : data;
  } catch (err) {
    yield errorEvent(classify(request, err, false), state);
    return;
  }
  try {
    for await (const chunk of stream) yield* chunkEvents(chunk, state);
  } catch (err) {
    yield errorEvent(classify(request, err, true), state);
    return;
  }
  // The SDK ends an aborted stream quietly, and a clean close is all a cut-off stream may show
  // (the SDK does not tell whether `[DONE]` arrived, so a missing finish_reason is the signal).
  if (request.signal.aborted) {
    yield errorEvent(abortedError(request.provider), state);
  } else if (state.finish === undefined) {
    yield errorEvent(droppedError(request.provider, "the stream ended before the model finished"), state);
  } else {
    yield* finishEvents(state);
  }
}
