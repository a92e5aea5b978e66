/**
 * The OpenAI Chat Completions wire: OpenAI itself and every OpenAI-compatible vendor (Gemini's
 * OpenAI endpoint, Ollama's /v1, OpenRouter, Groq, vLLM, LM Studio, llama.cpp …). Vendor differences
 * in the stream (repeated finish chunks, whole tool calls in one delta, reasoning fields, usage in odd
 * places) are absorbed here, so the rest of ion only sees StreamEvents.
 */
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
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
import {
  ClassifiedError,
  completionAsChunk,
  isJsonResponse,
  jsonBody,
  webPageInstead,
} from "./json-answer.ts";
import { buildParams, refusedToolIds } from "./openai-request.ts";
import { parseToolArguments } from "./tool-arguments.ts";
import {
  emptyUsage,
  type ProviderError,
  type ResolvedProvider,
  type StopReason,
  type StreamEvent,
  type StreamRequest,
  type Usage,
} from "./types.ts";

type ToolCallDelta = ChatCompletionChunk.Choice.Delta.ToolCall;

interface PendingCall {
  id: string;
  /** Whether the vendor named the call (else ion made up its id). */
  named: boolean;
  name: string;
  args: string;
  /** Gemini's `extra_content` (its thought signature), sent back with the call. */
  extra?: unknown;
}

/** What one response has streamed so far. */
interface StreamState {
  /** By ion's index, which numbers calls in the order they start. */
  calls: Map<number, PendingCall>;
  /** The vendor's `index` → ion's index of the call streaming there now. */
  slots: Map<number, number>;
  finish: string | undefined;
  usage: Usage | undefined;
  /** OpenRouter's `reasoning_details` since the last text, fragments merged. */
  details: Record<string, unknown>[];
  /** Whether the thinking block being streamed is tagged with the field its text came from. */
  tagged: boolean;
}

function newState(): StreamState {
  return {
    calls: new Map(),
    slots: new Map(),
    finish: undefined,
    usage: undefined,
    details: [],
    tagged: false,
  };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
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

/** Reasoning text: `reasoning_content` (DeepSeek, Kimi, Groq, vLLM) or `reasoning` (OpenRouter, Ollama). */
function reasoningText(delta: unknown): { field: string; text: string } | undefined {
  const fields = record(delta);
  for (const field of ["reasoning_content", "reasoning"]) {
    const text = fields?.[field];
    if (typeof text === "string" && text) return { field, text };
  }
  return undefined;
}

/**
 * OpenRouter streams each reasoning detail in fragments sharing its `type` and `index` (and `id`): they
 * are joined back into one, as the API wants them returned — later fragments add text and metadata
 * such as the signature. Details without an index are never joined.
 */
export function mergeDetails(into: Record<string, unknown>[], pieces: unknown[]): Record<string, unknown>[] {
  const out = into.map((d) => ({ ...d }));
  for (const piece of pieces) {
    const detail = record(piece);
    if (!detail) continue;
    const last = out.at(-1);
    const same =
      last !== undefined &&
      typeof detail.index === "number" &&
      last.index === detail.index &&
      last.type === detail.type &&
      (detail.id == null || last.id == null || last.id === detail.id);
    if (!same) {
      out.push({ ...detail });
      continue;
    }
    for (const [key, value] of Object.entries(detail)) {
      const before = last[key];
      if (
        ["text", "summary", "data"].includes(key) &&
        typeof value === "string" &&
        typeof before === "string"
      )
        last[key] = before + value;
      else if (value != null) last[key] = value;
    }
  }
  return out;
}

/**
 * Where a call delta belongs, as ion's index. By the vendor's `index`, except that Gemini streams parallel
 * calls all at index 0, told apart by id. Some vendors omit `index`: a new id starts a new call, anything
 * else continues the last one.
 */
function callIndex(call: ToolCallDelta, state: StreamState): number {
  if (typeof call.index === "number") {
    const slot = state.slots.get(call.index);
    const current = slot === undefined ? undefined : state.calls.get(slot);
    // A new id where a call with an id of its own is streaming: the next parallel call.
    if (slot !== undefined && !(call.id && current?.named && current.id !== call.id)) return slot;
    state.slots.set(call.index, state.calls.size);
    return state.calls.size;
  }
  const known = [...state.calls.entries()].find(([, c]) => call.id && c.id === call.id);
  if (known) return known[0];
  return call.id || state.calls.size === 0 ? state.calls.size : state.calls.size - 1;
}

function* toolCallEvents(call: ToolCallDelta, state: StreamState): Generator<StreamEvent> {
  const index = callIndex(call, state);
  let pending = state.calls.get(index);
  if (!pending) {
    const named = Boolean(call.id);
    pending = { id: call.id || `call_${index}`, named, name: call.function?.name ?? "", args: "" };
    state.calls.set(index, pending);
    yield { type: "tool_call_start", index, id: pending.id, name: pending.name };
  } else if (!pending.name && call.function?.name) {
    pending.name = call.function.name;
  }
  const extra = record(call)?.extra_content;
  if (extra != null) pending.extra = extra;
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
    if (thinking) {
      yield { type: "thinking_delta", text: thinking.text };
      // Where the text came from decides whether it goes back (DeepSeek's `reasoning_content`).
      if (!state.tagged) yield { type: "thinking_opaque", fields: { [thinking.field]: true } };
      state.tagged = true;
    }
    const details = record(delta)?.reasoning_details;
    if (Array.isArray(details) && details.length > 0) {
      state.details = mergeDetails(state.details, details);
      // The whole list so far: the loop keeps the latest value of a field on the thinking block.
      yield { type: "thinking_opaque", fields: { reasoning_details: state.details } };
    }
    if (typeof delta.content === "string" && delta.content) {
      yield { type: "text_delta", text: delta.content };
      state.tagged = false;
      state.details = [];
    }
    for (const call of delta.tool_calls ?? []) yield* toolCallEvents(call, state);
    if (choice.finish_reason) state.finish = choice.finish_reason;
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
    const opaque = call.extra === undefined ? {} : { opaque: { extra_content: call.extra } };
    yield { type: "tool_call", id: call.id, name: call.name, ...parseToolArguments(call.args), ...opaque };
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
  if (err instanceof ClassifiedError) return err.error;
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
async function* jsonAnswer(
  response: Response,
  provider: ResolvedProvider,
): AsyncGenerator<ChatCompletionChunk> {
  const body = await jsonBody(response, provider);
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

/** Each tool-call id of the history in OpenAI's form, the same on every turn. */
async function mappedToolIds(request: StreamRequest): Promise<(id: string) => string> {
  const { OPENAI_TOOL_IDS, toolIdMap } = await import("./tool-ids.ts");
  return toolIdMap(request.messages, OPENAI_TOOL_IDS);
}

/** Streams one Chat Completions request. Never throws: failures end the stream with an `error` event. */
export async function* streamOpenAI(request: StreamRequest): AsyncGenerator<StreamEvent> {
  const state = newState();
  const toolId = refusedToolIds(request.messages) ? await mappedToolIds(request) : undefined;
  const { params, notice } = buildParams(request, toolId);
  if (notice) yield { type: "notice", text: notice };
  let stream: AsyncIterable<ChatCompletionChunk>;
  try {
    const { data, response } = await makeClient(request)
      .chat.completions.create(params, { signal: request.signal })
      .withResponse();
    const page = await webPageInstead(response, request.provider);
    if (page) {
      await response.body?.cancel().catch(() => undefined); // the page itself is of no use
      yield errorEvent(page, state);
      return;
    }
    stream = isJsonResponse(response) ? jsonAnswer(response, request.provider) : data;
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
