/**
 * Some servers (proxies, mocks, a few local servers) answer a `stream: true` request with the plain JSON
 * body of a non-streamed answer. That body is a complete answer, not a broken stream, so each adapter
 * replays it through its own stream code: the OpenAI wire as one chunk whose delta is the message, the
 * Anthropic wire as the raw events a stream would have carried.
 */
import type { Message, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { maskUrl } from "../util/secrets.ts";
import { record } from "./errors.ts";
import type { ProviderError, ResolvedProvider } from "./types.ts";

function contentType(response: Response): string {
  return response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
}

/** The base URL points at a site, not at the API: said the same way however the page was labelled. */
function webPage(response: Response, provider: ResolvedProvider): ProviderError {
  const type = contentType(response);
  return {
    kind: "bad_request",
    status: response.status,
    message: `${provider.id} answered with a web page${type ? ` (${type})` : ""}, not an event stream: check the base URL: ${maskUrl(provider.baseURL)}`,
  };
}

/**
 * A web page where a stream was asked for: the base URL points at a site, not at the API. Said as such
 * instead of "the stream ended before the model finished": labelled text/html, or labelled neither a
 * stream nor JSON (text/plain, none) with a body that starts as an HTML document. A stream's or JSON's
 * label is trusted (some servers mislabel real SSE; JSON is looked at by `jsonBody`).
 */
export async function webPageInstead(
  response: Response,
  provider: ResolvedProvider,
): Promise<ProviderError | undefined> {
  const type = contentType(response);
  if (type === "text/html") return webPage(response, provider);
  if (STREAM_TYPES.has(type) || isJsonResponse(response) || !response.body) return undefined;
  return HTML_START.test(await firstText(response)) ? webPage(response, provider) : undefined;
}

/** What a streamed answer comes labelled as: SSE, or Ollama's JSON lines. */
const STREAM_TYPES = new Set(["text/event-stream", "application/x-ndjson"]);

/** The first chunk of a response's body, read from a copy so the body is still whole for its reader. */
async function firstText(response: Response): Promise<string> {
  const reader = response.clone().body?.getReader();
  if (!reader) return "";
  try {
    const { value } = await reader.read();
    return value ? new TextDecoder().decode(value) : "";
  } catch {
    // A body that fails (stalled, cut off) fails its real read the same way, which reports it.
    return "";
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** A failure already classified, thrown from inside a stream; each wire's classifier passes it on. */
export class ClassifiedError extends Error {
  constructor(readonly error: ProviderError) {
    super(error.message);
  }
}

/** `<!doctype html`, `<html`, `<head`, `<body`: the start of an HTML document. */
const HTML_START = /^\s*<(!doctype\s+html|html|head|body)[\s>]/i;

/**
 * The body of a response labelled JSON where a stream was asked for. A site's catch-all route or a
 * misconfigured proxy can label its web page JSON: that is a wrong base URL, not a JSON parse error.
 */
export async function jsonBody(response: Response, provider: ResolvedProvider): Promise<unknown> {
  const text = await response.text();
  if (HTML_START.test(text)) throw new ClassifiedError(webPage(response, provider));
  return JSON.parse(text);
}

/** Whether a response's content type says JSON rather than an event stream. */
export function isJsonResponse(response: Response): boolean {
  const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || type.endsWith("+json");
}

/** OpenAI wire: a `chat.completion` body as the one chunk it amounts to; undefined when it is not one. */
export function completionAsChunk(body: unknown): ChatCompletionChunk | undefined {
  const completion = record(body);
  if (!completion || !Array.isArray(completion.choices)) return undefined;
  const choices: ChatCompletionChunk.Choice[] = [];
  for (const raw of completion.choices) {
    const choice = record(raw);
    const message = record(choice?.message);
    if (!choice || !message) return undefined;
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    const delta = {
      ...message,
      tool_calls: calls.map((call, index) => ({ ...record(call), index })),
    } as ChatCompletionChunk.Choice.Delta;
    choices.push({
      index: typeof choice.index === "number" ? choice.index : 0,
      delta,
      // A complete answer without a finish reason still finished: "stop" unless it called tools.
      finish_reason: (typeof choice.finish_reason === "string"
        ? choice.finish_reason
        : calls.length > 0
          ? "tool_calls"
          : "stop") as ChatCompletionChunk.Choice["finish_reason"],
    });
  }
  return { ...completion, object: "chat.completion.chunk", choices } as ChatCompletionChunk;
}

/** Anthropic wire: a `message` body as stream events; undefined when it is not a message. */
export function messageAsEvents(body: unknown): RawMessageStreamEvent[] | undefined {
  const message = record(body);
  if (message?.type !== "message" || !Array.isArray(message.content)) return undefined;
  const full = message as unknown as Message;
  const usage = record(message.usage);
  const tokens = (key: string): number | null => {
    const value = usage?.[key];
    return typeof value === "number" ? value : null;
  };
  const events: RawMessageStreamEvent[] = [
    {
      type: "message_start",
      message: {
        ...full,
        content: [],
        stop_reason: null,
        // A proxy may leave usage out; the stream code reads it from here.
        usage: { ...full.usage, input_tokens: tokens("input_tokens") ?? 0, output_tokens: 0 },
      },
    },
  ];
  full.content.forEach((block, index) => {
    events.push({ type: "content_block_start", index, content_block: block });
    // The start event carries the thinking text, but its signature only ever arrives as a delta.
    if (block.type === "thinking" && block.signature) {
      events.push({
        type: "content_block_delta",
        index,
        delta: { type: "signature_delta", signature: block.signature },
      });
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push(
    {
      type: "message_delta",
      delta: {
        stop_reason: full.stop_reason ?? null,
        stop_sequence: full.stop_sequence ?? null,
        container: null,
        stop_details: null,
      },
      usage: {
        input_tokens: null,
        output_tokens: tokens("output_tokens") ?? 0,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null,
        output_tokens_details: null,
        server_tool_use: null,
      },
    },
    { type: "message_stop" },
  );
  return events;
}
