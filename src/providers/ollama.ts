/**
 * The Ollama wire: its native `/api/chat`, streamed as NDJSON — one JSON object a line, `message`
 * carrying `content`, `thinking` and whole `tool_calls` (arguments as objects), the last line
 * `done: true` with `done_reason`, `prompt_eval_count` and `eval_count`; a failure after the stream
 * began is a last line `{"error": "..."}` with status 200 (Ollama docs/api/errors.mdx).
 *
 * Native rather than /v1 because only here does a request set `options.num_ctx` (see ollama-show.ts):
 * without it Ollama silently drops the oldest messages of any conversation longer than its default.
 */
import { redactText } from "../util/secrets.ts";
import {
  abortedError,
  bodyMessage,
  classifyHttpError,
  clip,
  droppedError,
  networkError,
  oneLine,
  providerSecrets,
  record,
} from "./errors.ts";
import { idleFetch } from "./idle.ts";
import { webPageInstead } from "./json-answer.ts";
import { chatBody, type ModelView } from "./ollama-request.ts";
import {
  ollamaCapabilities,
  ollamaHeaders,
  ollamaHost,
  ollamaWindow,
  showModel,
  unknownWindowNotice,
} from "./ollama-show.ts";
import { toolArgumentsOf } from "./tool-arguments.ts";
import type {
  ProviderError,
  ResolvedProvider,
  StopReason,
  StreamEvent,
  StreamRequest,
  Usage,
} from "./types.ts";
import { emptyUsage } from "./types.ts";

interface StreamState {
  done: boolean;
  doneReason: string | undefined;
  calls: number;
  usage: Usage | undefined;
}

/**
 * The window and thinking of the model: from the session (num_ctx set by `modelFacts`, the catalogue's
 * reasoning flag), else from /api/show — asked once per process, so a session start has usually done it.
 */
async function modelView(request: StreamRequest): Promise<{ view: ModelView; notices: string[] }> {
  const { provider, model } = request;
  const reasoning = request.modelInfo?.reasoning ?? null;
  // A thinking level also needs the card: the values `think` takes are the model's own.
  const needShow = provider.numCtx === undefined || reasoning === null || request.thinking !== "off";
  const shown = needShow ? await showModel(provider, model) : undefined;
  const info = shown?.ok ? shown.model : undefined;
  const numCtx = provider.numCtx ?? ollamaWindow(undefined, info);
  const notices: string[] = [];
  // An unknown model gets no note about its window: the chat's own 404 says what is wrong.
  if (numCtx === undefined && !(shown && !shown.ok && shown.status === 404)) {
    const reason = shown && !shown.ok ? shown.reason : "it gave no context length";
    notices.push(unknownWindowNotice(`${provider.id}/${model}`, reason));
  }
  const canThink = reasoning ?? (info ? ollamaCapabilities(info).reasoning : null);
  return { view: { model: info, canThink, numCtx }, notices };
}

/** The text an NDJSON body carries, line by line (blank lines skipped). */
async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const piece of body) {
    buffer += decoder.decode(piece, { stream: true });
    for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
      const line = buffer.slice(0, at).trim();
      buffer = buffer.slice(at + 1);
      if (line) yield line;
    }
  }
  buffer += decoder.decode();
  if (buffer.trim()) yield buffer.trim();
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** A whole tool call, as Ollama sends each; an id is made up when the server gives none (older versions). */
function* toolCallEvents(raw: unknown, state: StreamState): Generator<StreamEvent> {
  const call = record(raw);
  const fn = record(call?.function);
  const name = typeof fn?.name === "string" ? fn.name : "";
  const given = typeof call?.id === "string" ? call.id : "";
  const id = given || `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
  // An object on Ollama; a JSON string as some builds and proxies send it.
  const parsed = toolArgumentsOf(fn?.arguments);
  const index = state.calls++;
  yield { type: "tool_call_start", index, id, name };
  yield { type: "tool_call_delta", index, arguments_delta: JSON.stringify(parsed.input) };
  yield { type: "tool_call", id, name, ...parsed };
}

function* lineEvents(chunk: Record<string, unknown>, state: StreamState): Generator<StreamEvent> {
  const message = record(chunk.message);
  if (message) {
    if (typeof message.thinking === "string" && message.thinking)
      yield { type: "thinking_delta", text: message.thinking };
    if (typeof message.content === "string" && message.content)
      yield { type: "text_delta", text: message.content };
    if (Array.isArray(message.tool_calls))
      for (const call of message.tool_calls) yield* toolCallEvents(call, state);
  }
  if (chunk.done === true) {
    state.done = true;
    if (typeof chunk.done_reason === "string") state.doneReason = chunk.done_reason;
    state.usage = {
      ...emptyUsage(),
      input_tokens: count(chunk.prompt_eval_count),
      output_tokens: count(chunk.eval_count),
    };
  }
}

function stopReason(state: StreamState): StopReason {
  if (state.doneReason === "length") return "max_tokens";
  return state.calls > 0 ? "tool_use" : "end_turn";
}

function failed(error: ProviderError, state: StreamState): StreamEvent {
  return state.usage ? { type: "error", error, usage: state.usage } : { type: "error", error };
}

/** A model without tool support is a 400 naming the model; say what to do about it. */
function withToolsHint(error: ProviderError): ProviderError {
  if (!/does not support tools/i.test(error.message)) return error;
  return { ...error, message: `${error.message} — run with --no-tools, or pick a model that uses tools` };
}

async function httpFailure(
  request: StreamRequest,
  at: ResolvedProvider,
  response: Response,
): Promise<ProviderError> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
  const failure = { status: response.status, headers: response.headers, body, message: response.statusText };
  return withToolsHint(classifyHttpError(at, request.model, failure));
}

/** `{"error": "..."}` as the stream's last line: the model failed while running (a 5xx in spirit). */
function midStreamError(
  request: StreamRequest,
  at: ResolvedProvider,
  chunk: Record<string, unknown>,
): ProviderError {
  const classified = classifyHttpError(at, request.model, { body: chunk });
  if (classified.kind !== "bad_request") return classified;
  const said = redactText(oneLine(bodyMessage(chunk) ?? "unknown error"), providerSecrets(at));
  return { kind: "server", message: `server error from ${at.id}: ${clip(said, 300)}` };
}

/** Streams one /api/chat request. Never throws: failures end the stream with an `error` event. */
export async function* streamOllama(request: StreamRequest): AsyncGenerator<StreamEvent> {
  const { provider, signal } = request;
  // Errors name the host ion talks to, not the /v1 form of the configured base URL.
  const at: ResolvedProvider = { ...provider, baseURL: ollamaHost(provider) };
  const state: StreamState = { done: false, doneReason: undefined, calls: 0, usage: undefined };
  if (signal.aborted) {
    yield failed(abortedError(provider), state);
    return;
  }
  const { view, notices } = await modelView(request);
  const plan = chatBody(request, view);
  for (const text of [...notices, ...plan.notices]) yield { type: "notice", text };

  let response: Response;
  try {
    response = await idleFetch(provider)(`${at.baseURL}/api/chat`, {
      method: "POST",
      headers: { accept: "application/x-ndjson", ...ollamaHeaders(provider) },
      body: JSON.stringify(plan.body),
      signal,
    });
    if (!response.ok) {
      yield failed(await httpFailure(request, at, response), state);
      return;
    }
  } catch (err) {
    yield failed(signal.aborted ? abortedError(provider) : networkError(at, err), state);
    return;
  }
  const page = await webPageInstead(response, at);
  if (page || !response.body) {
    await response.body?.cancel().catch(() => undefined); // the page itself is of no use
    yield failed(page ?? droppedError(at, "the response had no body"), state);
    return;
  }

  try {
    for await (const line of ndjsonLines(response.body)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (err) {
        if (!(err instanceof SyntaxError)) throw err;
        yield failed(droppedError(at, `a line of the stream is not JSON: ${clip(line, 80)}`), state);
        return;
      }
      const chunk = record(parsed) ?? {};
      if (chunk.error !== undefined && chunk.error !== null) {
        yield failed(midStreamError(request, at, chunk), state);
        return;
      }
      yield* lineEvents(chunk, state);
    }
  } catch (err) {
    yield failed(signal.aborted ? abortedError(provider) : droppedError(at, err), state);
    return;
  }
  if (signal.aborted) yield failed(abortedError(provider), state);
  else if (!state.done) yield failed(droppedError(at, "the stream ended before the model finished"), state);
  else {
    const usage = state.usage ?? emptyUsage();
    yield { type: "usage", usage };
    yield { type: "done", stop_reason: stopReason(state), usage };
  }
}
