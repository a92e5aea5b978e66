/**
 * The Mistral wire: ion's messages and tools onto `@mistralai/mistralai` chat streaming, and the SDK's
 * completion chunks back onto StreamEvents. Uses the SDK's standalone `chatStream` (errors come back as
 * values, and only the chat code is loaded).
 */
import { formatWithOptions } from "node:util";
import { MistralCore } from "@mistralai/mistralai/core.js";
import { chatStream } from "@mistralai/mistralai/funcs/chatStream.js";
import { type Fetcher, HTTPClient } from "@mistralai/mistralai/lib/http.js";
import type { Logger } from "@mistralai/mistralai/lib/logger.js";
import {
  type ChatCompletionStreamRequest,
  type CompletionEvent,
  type ContentChunk,
  completionChunkFromJSON,
  type ToolCall,
  type UsageInfo,
} from "@mistralai/mistralai/models/components";
import { HTTPClientError, InvalidRequestError, MistralError } from "@mistralai/mistralai/models/errors";
import { messageOf } from "../util/error-text.ts";
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
import { toMistralMessages } from "./mistral-messages.ts";
import { mistralThinking } from "./mistral-thinking.ts";
import { parseToolArguments } from "./tool-arguments.ts";
import type { ProviderError, StopReason, StreamEvent, StreamRequest, Usage } from "./types.ts";
import { emptyUsage } from "./types.ts";

/** Mistral's response header announcing a model's retirement; the SDK would `console.warn` it. */
const DEPRECATION_HEADER = "x-model-deprecation-timestamp";

export async function* streamMistral(request: StreamRequest): AsyncGenerator<StreamEvent> {
  const { provider, signal } = request;
  if (signal.aborted) {
    yield { type: "error", error: abortedError(provider) };
    return;
  }
  const client = new MistralCore({
    serverURL: provider.baseURL,
    // "" rather than undefined: the SDK would otherwise fall back to $MISTRAL_API_KEY on its own.
    apiKey: provider.apiKey ?? "",
    retryConfig: { strategy: "none" },
    debugLogger: sdkLogger(request),
    httpClient: new HTTPClient({ fetcher: quietFetcher(request) }),
  });

  const thinking = mistralThinking(request);
  if (thinking.notice) yield { type: "notice", text: thinking.notice };
  const opened = await Promise.resolve()
    .then(() => chatStream(client, toMistralRequest(request), { signal, headers: provider.headers }))
    .catch((error: unknown) => ({ ok: false as const, error }));
  let events: AsyncIterable<CompletionEvent> | CompletionEvent[];
  if (opened.ok) events = opened.value;
  else {
    const answer = jsonAnswer(opened.error);
    if (!answer) {
      yield { type: "error", error: failureBeforeResponse(request, opened.error) };
      return;
    }
    events = [answer];
  }

  const calls = new ToolCalls();
  let usage: Usage | undefined;
  let finish: string | undefined;
  try {
    for await (const event of events) {
      const chunk = event.data;
      if (chunk.usage) usage = toUsage(chunk.usage);
      const choice = chunk.choices.find((c) => c.index === 0) ?? chunk.choices[0];
      if (!choice) continue;
      const content = choice.delta.content;
      if (typeof content === "string") {
        if (content) yield { type: "text_delta", text: content };
      } else if (content) {
        yield* contentEvents(content);
      }
      for (const call of choice.delta.toolCalls ?? []) yield* calls.add(call);
      if (choice.finishReason) finish = choice.finishReason;
    }
  } catch (error) {
    yield failed(signal.aborted ? abortedError(provider) : droppedError(provider, error), usage);
    return;
  }
  if (signal.aborted || finish === undefined || finish === "error") {
    const error: ProviderError = signal.aborted
      ? abortedError(provider)
      : finish === "error"
        ? { kind: "server", message: `server error from ${provider.id}: the model stopped with an error` }
        : droppedError(provider, "the stream ended without a finish reason");
    yield failed(error, usage);
    return;
  }
  yield* calls.finish();
  const total = usage ?? emptyUsage();
  yield { type: "usage", usage: total };
  yield { type: "done", stop_reason: stopReason(finish), usage: total };
}

function failed(error: ProviderError, usage: Usage | undefined): StreamEvent {
  return usage ? { type: "error", error, usage } : { type: "error", error };
}

function stopReason(finish: string): StopReason {
  if (finish === "tool_calls") return "tool_use";
  if (finish === "length" || finish === "model_length") return "max_tokens";
  return "end_turn";
}

/** `delta.content` as an array: magistral's `thinking` parts (themselves lists of text) and text parts. */
function* contentEvents(parts: ContentChunk[]): Generator<StreamEvent> {
  for (const part of parts) {
    if (part.type === "text" && "text" in part && part.text) {
      yield { type: "text_delta", text: part.text };
    } else if (part.type === "thinking" && "thinking" in part) {
      for (const inner of part.thinking) {
        if ("text" in inner && inner.text) yield { type: "thinking_delta", text: inner.text };
      }
    }
  }
}

/**
 * Tool calls arrive whole in one delta (no `index`, which the SDK then defaults to 0) or piecewise
 * (`index` set, later deltas without an id and with `name: ""`). The SDK fills a missing id with the
 * string "null". A call is new when it brings an id not seen before, or a wire index not seen before.
 */
class ToolCalls {
  private calls: { id: string; name: string; args: string }[] = [];
  private byWireIndex = new Map<number, number>();

  *add(call: ToolCall): Generator<StreamEvent> {
    const id = call.id && call.id !== "null" ? call.id : undefined;
    const wire = call.index ?? 0;
    let at = id === undefined ? this.byWireIndex.get(wire) : this.calls.findIndex((c) => c.id === id);
    if (at === undefined || at < 0) {
      at = this.calls.length;
      const started = { id: id ?? newToolCallId(), name: call.function.name, args: "" };
      this.calls.push(started);
      this.byWireIndex.set(wire, at);
      yield { type: "tool_call_start", index: at, id: started.id, name: started.name };
    }
    const current = this.calls[at]!;
    if (!current.name && call.function.name) current.name = call.function.name;
    const args = call.function.arguments;
    const piece = typeof args === "string" ? args : JSON.stringify(args);
    if (piece) {
      current.args += piece;
      yield { type: "tool_call_delta", index: at, arguments_delta: piece };
    }
  }

  *finish(): Generator<StreamEvent> {
    for (const call of this.calls) {
      yield { type: "tool_call", id: call.id, name: call.name, ...parseToolArguments(call.args) };
    }
  }
}

/** Mistral accepts only 9-character alphanumeric tool call ids when they are sent back. */
function newToolCallId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return Array.from(crypto.getRandomValues(new Uint8Array(9)), (b) => alphabet[b % alphabet.length]).join("");
}

function toUsage(info: UsageInfo): Usage {
  // The SDK camelCases only the fields it knows; `prompt_tokens_details` passes through as sent.
  const details = (info.prompt_tokens_details ?? info.promptTokensDetails ?? {}) as Record<string, unknown>;
  const cached = Number(details.cached_tokens ?? details.cachedTokens ?? 0) || 0;
  return {
    input_tokens: Math.max(0, (info.promptTokens ?? 0) - cached),
    output_tokens: info.completionTokens ?? 0,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

function toMistralRequest(request: StreamRequest): ChatCompletionStreamRequest {
  const body: ChatCompletionStreamRequest = {
    model: request.model,
    stream: true,
    messages: toMistralMessages(request.system, request.messages),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    }));
  }
  if (request.maxTokens !== undefined) body.maxTokens = request.maxTokens;
  if (request.responseSchema) {
    const { name, schema } = request.responseSchema;
    body.responseFormat = {
      type: "json_schema",
      jsonSchema: { name, schemaDefinition: schema, strict: false },
    };
  }
  // Only where the model reasons, in the form it takes (mistral-thinking.ts).
  const { promptMode, reasoningEffort } = mistralThinking(request);
  if (promptMode) body.promptMode = promptMode;
  if (reasoningEffort) body.reasoningEffort = reasoningEffort;
  return body;
}

/**
 * A proxy's plain JSON completion where a stream was asked for: the SDK refuses it as an unexpected
 * content type, but it is a complete answer, replayed as the one chunk it amounts to.
 */
function jsonAnswer(error: unknown): CompletionEvent | undefined {
  if (!(error instanceof MistralError) || error.statusCode >= 300 || !/json/i.test(error.contentType)) {
    return undefined;
  }
  const body = record(parseBody(error.body));
  if (!body || !Array.isArray(body.choices)) return undefined;
  const choices = body.choices.map((raw: unknown) => {
    const choice = record(raw);
    const message = record(choice?.message) ?? {};
    const calls = Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    return {
      index: choice?.index ?? 0,
      delta: message,
      finish_reason: choice?.finish_reason ?? (calls ? "tool_calls" : "stop"),
    };
  });
  const chunk = completionChunkFromJSON(JSON.stringify({ ...body, choices }));
  return chunk.ok ? { data: chunk.value } : undefined;
}

/** A failure with no usable 200 response: an HTTP error status, a connection failure, or an abort. */
function failureBeforeResponse(request: StreamRequest, error: unknown): ProviderError {
  const { provider, model } = request;
  if (request.signal.aborted) return abortedError(provider);
  if (error instanceof MistralError) {
    if (error.statusCode < 400) return droppedError(provider, error);
    const body = parseBody(error.body);
    return classifyHttpError(provider, model, {
      status: error.statusCode,
      headers: error.headers,
      body,
      message: validationSummary(body) ?? error.message,
    });
  }
  if (error instanceof HTTPClientError && !(error instanceof InvalidRequestError)) {
    return networkError(provider, error.cause instanceof Error ? error.cause : error);
  }
  // The request could not be built (SDK input validation): not something a retry fixes.
  return classifyHttpError(provider, model, {
    message: messageOf(error),
  });
}

/** A 422's `{"detail":[{loc,msg}]}` as one line (the SDK's own message for it is a JSON dump). */
function validationSummary(body: unknown): string | undefined {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (!Array.isArray(detail)) return undefined;
  const line = (d: { loc?: unknown; msg?: unknown } | null) =>
    `${Array.isArray(d?.loc) ? `${d.loc.join(".")}: ` : ""}${String(d?.msg ?? "")}`;
  return detail.map(line).join("; ");
}

function parseBody(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON (a proxy's HTML page, plain text): classify on the raw text.
    return text;
  }
}

/**
 * SDK debug output (headers included) goes to `request.log`, secrets masked; without it, a logger that
 * drops everything (so `MISTRAL_DEBUG` in the environment cannot make the SDK print).
 */
function sdkLogger(request: StreamRequest): Logger {
  const log = request.log;
  if (!log) return { group: () => undefined, groupEnd: () => undefined, log: () => undefined };
  const secrets = providerSecrets(request.provider);
  const write = (...args: unknown[]) =>
    log(redactText(formatWithOptions({ colors: false }, ...args), secrets));
  return { group: (label?: string) => write(label ?? ""), groupEnd: () => undefined, log: write };
}

/** fetch, minus the model-deprecation header the SDK would print to the console; noted in the log instead. */
function quietFetcher(request: StreamRequest): Fetcher {
  return async (input, init) => {
    const response = await idleFetch(request.provider)(input, init);
    const retires = response.headers.get(DEPRECATION_HEADER);
    if (retires === null) return response;
    request.log?.(`mistral: model ${request.model} is deprecated and will be removed on ${retires}`);
    const headers = new Headers(response.headers);
    headers.delete(DEPRECATION_HEADER);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
