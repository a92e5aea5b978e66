/**
 * The Anthropic Messages wire: ion's messages → `POST /v1/messages` with `stream: true` through the official
 * SDK, and the raw SSE events → StreamEvents. Never throws once started; failures end the stream with one
 * `error` event.
 */
import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type { Stream } from "@anthropic-ai/sdk/core/streaming";
import type {
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
  StopReason as WireStopReason,
} from "@anthropic-ai/sdk/resources/messages";
import { redactText } from "../util/secrets.ts";
import { REDACTED_DATA, toWireMessages } from "./anthropic-messages.ts";
import {
  formAskedFor,
  rememberThinkingForm,
  type ThinkingForm,
  thinkingForm,
  thinkingNotice,
  thinkingParams,
} from "./anthropic-thinking.ts";
import {
  abortedError,
  authMessage,
  classifyHttpError,
  droppedError,
  missingKeyError,
  networkError,
  providerSecrets,
  record,
} from "./errors.ts";
import { idleFetch } from "./idle.ts";
import { ClassifiedError, isJsonResponse, jsonBody, messageAsEvents, webPageInstead } from "./json-answer.ts";
import { parseToolArguments } from "./tool-arguments.ts";
import type {
  ProviderError,
  ResolvedProvider,
  StopReason,
  StreamEvent,
  StreamRequest,
  Usage,
} from "./types.ts";
import { emptyUsage } from "./types.ts";

export { THINKING_BUDGET } from "./anthropic-thinking.ts";

/**
 * `max_tokens` when the caller knows no model limit: every current Claude model accepts 8192 output tokens
 * (the smallest cap in the lineup), and it is room for a long answer or a large file write. Callers that know
 * the model's output limit (models.dev) pass `maxTokens`.
 */
export const DEFAULT_MAX_TOKENS = 8192;

/** In-stream `event: error` carries no status; the HTTP status Anthropic documents for each error type. */
const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

const EPHEMERAL = { type: "ephemeral" } as const;

export function toWireParams(request: StreamRequest, form: ThinkingForm): MessageCreateParamsStreaming {
  return {
    model: request.model,
    ...thinkingParams(request.thinking, form, request.maxTokens ?? DEFAULT_MAX_TOKENS, DEFAULT_MAX_TOKENS),
    messages: toWireMessages(request.messages, request.provider.id),
    ...(request.system
      ? { system: [{ type: "text" as const, text: request.system, cache_control: EPHEMERAL }] }
      : {}),
    ...(request.tools.length > 0
      ? {
          // A breakpoint on the last tool caches the whole tool list (it comes first in the prompt).
          tools: request.tools.map((t, i) => ({
            name: t.name,
            description: t.description,
            input_schema: { type: "object" as const, ...t.input_schema },
            ...(i === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
          })),
        }
      : {}),
    stream: true,
  };
}

function sdkLogging(request: StreamRequest) {
  const log = request.log;
  const secrets = providerSecrets(request.provider);
  const line =
    (level: string) =>
    (message: string, ...rest: unknown[]): void => {
      if (!log) return;
      const parts = [message, ...rest.map((r) => (typeof r === "string" ? r : Bun.inspect(r)))];
      log(redactText(`anthropic sdk ${level}: ${parts.join(" ")}`, secrets));
    };
  return {
    logLevel: log ? ("info" as const) : ("off" as const),
    logger: { error: line("error"), warn: line("warn"), info: line("info"), debug: line("debug") },
  };
}

/** Any failure, before or after the response started, as one classified ProviderError. */
function classify(request: StreamRequest, error: unknown, started: boolean): ProviderError {
  const { provider, model } = request;
  if (request.signal.aborted || error instanceof APIUserAbortError) return abortedError(provider);
  if (error instanceof ClassifiedError) return error.error;
  if (error instanceof APIConnectionError) return networkError(provider, error.cause ?? error);
  if (error instanceof APIError) {
    const status = error.status ?? (error.type ? STATUS_OF_TYPE[error.type] : undefined);
    return classifyHttpError(provider, model, {
      status,
      headers: error.headers,
      body: error.error,
      message: error.message,
    });
  }
  return started ? droppedError(provider, error) : networkError(provider, error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stopReason(reason: WireStopReason | null): StopReason {
  switch (reason) {
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "refusal":
      return reason;
    case "model_context_window_exceeded":
      return "max_tokens";
    default:
      // end_turn, pause_turn (a server tool paused the turn; ion has none), or none given.
      return "end_turn";
  }
}

/** Folds the raw events of one response into StreamEvents. */
class Turn {
  usage: Usage = emptyUsage();
  started = false;
  stop: WireStopReason | null = null;
  private tools = new Map<
    number,
    { id: string; name: string; json: string; input: Record<string, unknown> }
  >();

  *map(event: RawMessageStreamEvent): Generator<StreamEvent> {
    switch (event.type) {
      case "message_start":
        this.started = true;
        this.addUsage(event.message.usage);
        return;
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "tool_use") {
          // Deltas normally carry the input; a start that already holds it (no deltas) is kept as well.
          const input = isRecord(block.input) ? block.input : {};
          this.tools.set(event.index, { id: block.id, name: block.name, json: "", input });
          yield { type: "tool_call_start", index: event.index, id: block.id, name: block.name };
        } else if (block.type === "text" && block.text) {
          yield { type: "text_delta", text: block.text };
        } else if (block.type === "thinking") {
          // A block of its own, tagged as this provider's: its signature is only valid sent back here.
          yield { type: "thinking_opaque", fields: {}, newBlock: true };
          if (block.thinking) yield { type: "thinking_delta", text: block.thinking };
        } else if (block.type === "redacted_thinking") {
          // Encrypted reasoning (Claude 3.7): no text to show, but the tool loop must send it back.
          yield { type: "thinking_opaque", fields: { [REDACTED_DATA]: block.data }, newBlock: true };
        }
        return;
      }
      case "content_block_delta": {
        const delta = event.delta;
        if (delta.type === "text_delta" && delta.text) yield { type: "text_delta", text: delta.text };
        else if (delta.type === "thinking_delta" && delta.thinking) {
          yield { type: "thinking_delta", text: delta.thinking };
        } else if (delta.type === "signature_delta") {
          yield { type: "thinking_signature", signature: delta.signature };
        } else if (delta.type === "input_json_delta" && delta.partial_json) {
          const tool = this.tools.get(event.index);
          if (tool) tool.json += delta.partial_json;
          yield { type: "tool_call_delta", index: event.index, arguments_delta: delta.partial_json };
        }
        return;
      }
      case "content_block_stop": {
        const tool = this.tools.get(event.index);
        if (!tool) return;
        this.tools.delete(event.index);
        const parsed = tool.json ? parseToolArguments(tool.json) : { input: tool.input };
        yield { type: "tool_call", id: tool.id, name: tool.name, ...parsed };
        return;
      }
      case "message_delta":
        this.stop = event.delta.stop_reason ?? this.stop;
        this.addUsage(event.usage);
        return;
      case "message_stop":
        return;
    }
  }

  /** message_start carries the input side; message_delta's usage is cumulative and wins where present. */
  private addUsage(usage: {
    input_tokens?: number | null;
    output_tokens?: number | null;
    cache_read_input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
  }): void {
    this.usage = {
      input_tokens: usage.input_tokens ?? this.usage.input_tokens,
      output_tokens: usage.output_tokens ?? this.usage.output_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens ?? this.usage.cache_read_input_tokens,
      cache_creation_input_tokens:
        usage.cache_creation_input_tokens ?? this.usage.cache_creation_input_tokens,
    };
  }
}

/**
 * A plain JSON body where a stream was asked for: a complete `message` (some proxies do this), or an
 * error object sent with a 2xx status.
 */
async function* jsonAnswer(
  response: Response,
  provider: ResolvedProvider,
): AsyncGenerator<RawMessageStreamEvent> {
  const body = await jsonBody(response, provider);
  const events = messageAsEvents(body);
  if (events) {
    yield* events;
    return;
  }
  const error = record(body);
  if (error?.type === "error") throw new APIError(undefined, error, undefined, response.headers);
  throw new Error("the server answered with JSON that is not a message");
}

/** The message of an API error as the server wrote it (the SDK's own message re-quotes the body). */
function serverMessage(error: APIError): string {
  const message = record(record(error.error)?.error)?.message;
  return typeof message === "string" ? message : error.message;
}

type Opened =
  | { stream: AsyncIterable<RawMessageStreamEvent> }
  | { error: ProviderError; asked?: Exclude<ThinkingForm, "none"> | undefined };

/** Sends the request with thinking in `form`; a 400 naming the other form says so in `asked`. */
async function open(client: Anthropic, request: StreamRequest, form: ThinkingForm): Promise<Opened> {
  const { provider, signal } = request;
  try {
    // `client.post` rather than `messages.create`: create() console.warns about deprecated models itself.
    const { data, response } = await client
      .post<Stream<RawMessageStreamEvent>>("/v1/messages", {
        body: toWireParams(request, form),
        stream: true,
        signal,
      })
      .withResponse();
    const page = await webPageInstead(response, provider);
    if (page) {
      await response.body?.cancel().catch(() => undefined); // the page itself is of no use
      return { error: page };
    }
    return { stream: isJsonResponse(response) ? jsonAnswer(response, provider) : data };
  } catch (error) {
    const asked =
      error instanceof APIError && error.status === 400 ? formAskedFor(serverMessage(error)) : undefined;
    return { error: classify(request, error, false), asked };
  }
}

export async function* streamAnthropic(request: StreamRequest): AsyncGenerator<StreamEvent> {
  const { provider, signal } = request;
  if (!provider.apiKey) {
    // Without a key the SDK would go looking for credentials of its own (env, profiles on disk).
    yield {
      type: "error",
      error: missingKeyError(provider) ?? { kind: "auth", message: authMessage(provider) },
    };
    return;
  }
  const client = new Anthropic({
    apiKey: provider.apiKey,
    baseURL: provider.baseURL,
    defaultHeaders: provider.headers,
    maxRetries: 0,
    fetch: idleFetch(provider),
    ...sdkLogging(request),
  });

  let form = thinkingForm(request);
  const notice = thinkingNotice(request, form);
  if (notice) yield { type: "notice", text: notice };
  let opened = await open(client, request, form);
  const asked = "error" in opened ? opened.asked : undefined;
  if (asked && asked !== form && form !== "none" && request.thinking !== "off") {
    // The API said which thinking form this model takes: send it that way, and from now on.
    form = asked;
    rememberThinkingForm(request, form);
    const mapped = thinkingNotice(request, form);
    if (mapped) yield { type: "notice", text: mapped };
    opened = await open(client, request, form);
  }
  if ("error" in opened) {
    yield { type: "error", error: opened.error };
    return;
  }
  const { stream } = opened;

  const turn = new Turn();
  const usage = () => (turn.started ? { usage: turn.usage } : {});
  try {
    for await (const event of stream) {
      yield* turn.map(event);
      if (event.type === "message_stop") {
        yield { type: "usage", usage: turn.usage };
        yield { type: "done", stop_reason: stopReason(turn.stop), usage: turn.usage };
        return;
      }
    }
  } catch (error) {
    yield { type: "error", error: classify(request, error, true), ...usage() };
    return;
  }
  // The SDK ends iteration quietly when the request is aborted; otherwise the body ended early.
  const error = signal.aborted
    ? abortedError(provider)
    : droppedError(provider, new Error("the stream ended before message_stop"));
  yield { type: "error", error, ...usage() };
}
