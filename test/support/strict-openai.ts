/**
 * Strict Chat Completions endpoints for the fake LLM: each checks one vendor's documented rule on every
 * request it answers, the way the real API does, and answers a broken request with that API's error
 * body; a valid one gets the scripted model turn in the vendor's stream shape.
 *
 *   const gemini = strictGemini(await geminiSignatures());
 *   server.enqueue(gemini.turn({ calls: [...] }), gemini.turn({ text: "done" }));
 *   … run ion …
 *   expect(gemini.violations).toEqual([]);
 *
 * Every endpoint remembers what it handed out (signatures, reasoning) so that a later request must send
 * it back exactly. Error bodies come from ../shared/fixtures/errors where one exists; the others are the
 * vendors' bodies as quoted in their users' bug reports (each named where it is built).
 */
import type { FakeResponse, RecordedRequest } from "./fake-llm.ts";
import { fixtureText } from "./fake-llm.ts";
import { splitText, streamReply } from "./wire-scripts.ts";

export interface StrictCall {
  name: string;
  input: Record<string, unknown>;
}

/** One model turn: reasoning, text, tool calls. */
export interface StrictTurn {
  thinking?: string;
  text?: string;
  calls?: StrictCall[];
}

/** A Chat Completions message as sent. */
interface SentMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string }; extra_content?: unknown }[];
  reasoning_content?: unknown;
  reasoning_details?: unknown;
}

interface SentBody {
  model: string;
  messages: SentMessage[];
  tools?: unknown[];
  reasoning_effort?: unknown;
}

export interface StrictEndpoint {
  /** A queued response answering the next request: the rule's error when it is broken, else `turn`. */
  turn(turn: StrictTurn): FakeResponse;
  /** What each rejected request broke, in order. */
  violations: string[];
}

const PATH = "/chat/completions";
let counter = 0;
const nextId = (prefix: string) => `${prefix}${(++counter).toString(36).padStart(6, "0")}`;

function bodyOf(request: RecordedRequest): SentBody {
  return request.body as SentBody;
}

function json(status: number, body: unknown): FakeResponse {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** SSE frames of chat.completion.chunk deltas, a finish chunk, a usage chunk and [DONE]. */
function chunks(model: string, deltas: Record<string, unknown>[], finish: string): FakeResponse {
  const id = nextId("chatcmpl-");
  const frame = (delta: Record<string, unknown>, reason: string | null) =>
    `data: ${JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created: 1782321900,
      model,
      choices: [{ index: 0, delta, finish_reason: reason }],
    })}\n\n`;
  const usage = { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 };
  const usageFrame = `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1782321900, model, choices: [], usage })}\n\n`;
  return {
    headers: { "content-type": "text/event-stream" },
    chunks: [
      frame({ role: "assistant" }, null),
      ...deltas.map((d) => frame(d, null)),
      frame({}, finish),
      usageFrame,
      "data: [DONE]\n\n",
    ],
  };
}

/** The assistant messages with tool calls since the last user message: the turn the APIs validate. */
function currentToolTurns(messages: SentMessage[]): SentMessage[] {
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  return messages.slice(lastUser + 1).filter((m) => m.role === "assistant" && m.tool_calls?.length);
}

function endpoint(
  check: (body: SentBody) => FakeResponse | undefined,
  reply: (turn: StrictTurn, body: SentBody) => FakeResponse,
): StrictEndpoint {
  const violations: string[] = [];
  return {
    violations,
    turn: (turn) => ({
      pathSuffix: PATH,
      respond: (request) => {
        const body = bodyOf(request);
        const rejected = check(body);
        if (rejected) {
          violations.push(rejected.body ?? "");
          return rejected;
        }
        return reply(turn, body);
      },
    }),
  };
}

// ── Gemini 3 on Google's OpenAI-compatible endpoint ──────────────────────────────────────────────

/** Real thought signatures, from the recorded Gemini streams. */
export async function geminiSignatures(): Promise<string[]> {
  const files = ["gemini-stream-parallel-function-calls.sse", "gemini-stream-thought-function-call.sse"];
  const texts = await Promise.all(files.map((f) => fixtureText(`streaming/${f}`)));
  return texts.flatMap((t) => [...t.matchAll(/"thoughtSignature": ?"([^"]+)"/g)].map((m) => m[1] ?? ""));
}

/**
 * Google, "Thought signatures": "When using Gemini 3 models, you must pass back thought signatures during
 * function calling, otherwise you will get a validation error (4xx status code)", and with parallel
 * calls only the first call of a step carries one. The OpenAI endpoint puts it in
 * `tool_calls[].extra_content.google.thought_signature`, and streams parallel calls each in its own
 * chunk, all at `index: 0`. Its `reasoning_effort` takes none/low/medium/high only.
 */
export function strictGemini(signatures: string[]): StrictEndpoint {
  const issued = new Map<string, string>();
  let next = 0;
  const check = (body: SentBody): FakeResponse | undefined => {
    const effort = body.reasoning_effort;
    if (effort !== undefined && !["none", "low", "medium", "high"].includes(String(effort))) {
      return json(400, [
        {
          error: {
            code: 400,
            message: `Invalid reasoning_effort: ${String(effort)}. Valid values are: high, low, medium, none`,
            status: "INVALID_ARGUMENT",
          },
        },
      ]);
    }
    for (const step of currentToolTurns(body.messages)) {
      const first = step.tool_calls?.[0];
      const sent = (first?.extra_content as { google?: { thought_signature?: unknown } } | undefined)?.google
        ?.thought_signature;
      const want = first ? issued.get(first.id) : undefined;
      if (!first || typeof sent !== "string" || (want !== undefined && sent !== want)) {
        const position = body.messages.indexOf(step);
        return json(400, [
          {
            error: {
              code: 400,
              message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first?.function.name}\` , position ${position}. please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
              status: "INVALID_ARGUMENT",
            },
          },
        ]);
      }
    }
    return undefined;
  };
  const reply = (turn: StrictTurn, body: SentBody): FakeResponse => {
    const deltas: Record<string, unknown>[] = splitText(turn.text ?? "").map((content) => ({ content }));
    (turn.calls ?? []).forEach((call, i) => {
      const id = nextId("function-call-");
      const signature = signatures[next++ % signatures.length] ?? "";
      const extra = i === 0 ? { extra_content: { google: { thought_signature: signature } } } : {};
      if (i === 0) issued.set(id, signature);
      const fn = { name: call.name, arguments: JSON.stringify(call.input) };
      deltas.push({ tool_calls: [{ ...extra, function: fn, id, type: "function", index: 0 }] });
    });
    // Google says "stop" after function calls too.
    return chunks(body.model, deltas, "stop");
  };
  return endpoint(check, reply);
}

// ── DeepSeek and Kimi thinking mode ──────────────────────────────────────────────────────────────

/**
 * DeepSeek, "Thinking Mode": "Between two user messages, if the model performed a tool call, the
 * intermediate assistant's reasoning_content must participate in the context concatenation and must be
 * passed back to the API in all subsequent user interaction turns"; else a 400. Kimi (K2 thinking,
 * K2.5+) answers the same with its own words. Replies stream the reasoning in `reasoning_content`.
 */
export function strictReasoningContent(vendor: "deepseek" | "kimi"): StrictEndpoint {
  const issued = new Map<string, string>();
  const check = (body: SentBody): FakeResponse | undefined => {
    const at = body.messages.findIndex((m) => {
      if (m.role !== "assistant" || !m.tool_calls?.length) return false;
      const want = issued.get(m.tool_calls[0]?.id ?? "");
      return typeof m.reasoning_content !== "string" || (want !== undefined && m.reasoning_content !== want);
    });
    if (at < 0) return undefined;
    // Bodies as the APIs return them (DeepSeek: AstrBot#4174; Kimi via OpenRouter: opencode#25758).
    const message =
      vendor === "deepseek"
        ? `Missing \`reasoning_content\` field in the assistant message at message index ${at}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`
        : `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${at}`;
    return json(400, {
      error: { message, type: "invalid_request_error", param: null, code: "invalid_request_error" },
    });
  };
  const reply = (turn: StrictTurn, body: SentBody): FakeResponse => {
    const toolCalls = (turn.calls ?? []).map((c) => ({ id: nextId("call_"), ...c }));
    const first = toolCalls[0];
    if (first) issued.set(first.id, turn.thinking ?? "");
    return streamReply("openai", {
      model: body.model,
      ...(turn.thinking ? { thinking: turn.thinking } : {}),
      ...(turn.text ? { text: turn.text } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    });
  };
  return endpoint(check, reply);
}

// ── OpenRouter ───────────────────────────────────────────────────────────────────────────────────

/** What an OpenRouter model streams as `reasoning_details`, and how its provider complains. */
export type OpenRouterFamily = "gemini" | "claude";

/**
 * OpenRouter, "Reasoning Tokens › Preserving Reasoning Blocks": reasoning_details "must be preserved
 * when using multi-turn tool calling" — passed back on the assistant message unmodified, for Gemini 3
 * (its `reasoning.encrypted` detail carries the thought signature of the call named by `id`) and for
 * Claude with thinking (`reasoning.text` with its signature). Streamed in fragments sharing an `index`.
 */
export function strictOpenRouter(family: OpenRouterFamily, signatures: string[]): StrictEndpoint {
  const issued = new Map<string, unknown[]>();
  let next = 0;
  const check = (body: SentBody): FakeResponse | undefined => {
    for (const step of currentToolTurns(body.messages)) {
      const want = issued.get(step.tool_calls?.[0]?.id ?? "");
      if (want && Bun.deepEquals(step.reasoning_details, want)) continue;
      // OpenRouter wraps the provider's own 400 (dotnet/extensions#7172, opencode#25758).
      const raw =
        family === "gemini"
          ? "Function call is missing a thought_signature in functionCall parts."
          : "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.";
      const provider = family === "gemini" ? "Google AI Studio" : "Anthropic";
      return json(400, {
        error: {
          message: "Provider returned error",
          code: 400,
          metadata: { raw: JSON.stringify({ error: { message: raw } }), provider_name: provider },
        },
      });
    }
    return undefined;
  };
  const reply = (turn: StrictTurn, body: SentBody): FakeResponse => {
    const format = family === "gemini" ? "google-gemini-v1" : "anthropic-claude-v1";
    const deltas: Record<string, unknown>[] = [];
    const details: Record<string, unknown>[] = [];
    const pieces = splitText(turn.thinking ?? "");
    // Claude's signature comes with the last fragment of its reasoning text.
    const signature = family === "claude" ? (signatures[next++ % signatures.length] ?? null) : null;
    pieces.forEach((text, i) => {
      const fragment = {
        type: "reasoning.text",
        text,
        signature: i === pieces.length - 1 ? signature : null,
        format,
        index: 0,
      };
      deltas.push({ content: "", reasoning: text, reasoning_details: [fragment] });
    });
    if (pieces.length > 0)
      details.push({ type: "reasoning.text", text: turn.thinking, signature, format, index: 0 });
    for (const content of splitText(turn.text ?? "")) deltas.push({ content });
    const calls = (turn.calls ?? []).map((c) => ({ id: nextId("tool_"), ...c }));
    calls.forEach((call, index) => {
      const fn = { name: call.name, arguments: JSON.stringify(call.input) };
      const delta: Record<string, unknown> = {
        content: "",
        tool_calls: [{ index, id: call.id, type: "function", function: fn }],
      };
      if (family === "gemini" && index === 0) {
        // Gemini's signature, as OpenRouter hands it over: an encrypted detail naming the call.
        const encrypted = {
          type: "reasoning.encrypted",
          data: signatures[next++ % signatures.length],
          id: call.id,
          format,
          index: 1,
        };
        delta.reasoning_details = [encrypted];
        details.push(encrypted);
      }
      deltas.push(delta);
    });
    if (calls[0]) issued.set(calls[0].id, details);
    return chunks(body.model, deltas, calls.length > 0 ? "tool_calls" : "stop");
  };
  return endpoint(check, reply);
}

/**
 * OpenRouter's 404 when no provider of the model accepts `tools` (bobrware/bobrchat#60, Kilo-Org/kilocode#9006):
 * the request is fine and so is the base URL.
 */
export function openRouterNoToolEndpoints(): StrictEndpoint {
  const check = (body: SentBody) =>
    body.tools?.length
      ? json(404, {
          error: {
            message:
              "No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/guides/routing/provider-selection",
            code: 404,
          },
        })
      : undefined;
  return endpoint(check, (turn, body) => chunks(body.model, [{ content: turn.text ?? "" }], "stop"));
}

// ── Thinking parameters ──────────────────────────────────────────────────────────────────────────

/**
 * OpenAI's non-reasoning models (gpt-4o, gpt-4.1) reject `reasoning_effort` with its 400
 * `unsupported_parameter` (the recorded body in errors/, naming this parameter instead of max_tokens).
 */
export async function strictNoReasoning(): Promise<StrictEndpoint> {
  const recorded = JSON.parse(await fixtureText("errors/openai-400-unsupported-parameter.json")) as {
    error: Record<string, unknown>;
  };
  const check = (body: SentBody) =>
    body.reasoning_effort === undefined
      ? undefined
      : json(400, {
          error: {
            ...recorded.error,
            message: "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            param: "reasoning_effort",
          },
        });
  return endpoint(check, plainTurn);
}

/**
 * OpenAI's tool-call ids are strings of at most 40 characters, on an assistant's `tool_calls[].id` and a
 * tool message's `tool_call_id`; a longer one (vLLM's `chatcmpl-tool-<uuid>` is 46) is a 400, body as
 * quoted in vercel/ai#5171. (The tool_call_id message is the same rule's, by analogy.)
 */
export function strictOpenAIToolIds(): StrictEndpoint {
  const check = (body: SentBody) => {
    for (const [at, message] of body.messages.entries()) {
      const ids: [string, unknown][] = (message.tool_calls ?? []).map((call, i) => [
        `messages[${at}].tool_calls[${i}].id`,
        call.id,
      ]);
      const answered = (message as { tool_call_id?: unknown }).tool_call_id;
      if (message.role === "tool") ids.push([`messages[${at}].tool_call_id`, answered]);
      for (const [param, id] of ids) {
        const length = typeof id === "string" ? id.length : 0;
        if (length >= 1 && length <= 40) continue;
        const [message, code] =
          length === 0
            ? [
                `Invalid '${param}': empty string. Expected a string with minimum length 1, but got an empty string instead.`,
                "empty_string",
              ]
            : [
                `Invalid '${param}': string too long. Expected a string with maximum length 40, but got a string with length ${length} instead.`,
                "string_above_max_length",
              ];
        return json(400, { error: { message, type: "invalid_request_error", param, code } });
      }
    }
    return undefined;
  };
  return endpoint(check, plainTurn);
}

/** Groq, "Reasoning": Qwen3's `reasoning_effort` is `none` (reasoning off) or `default` (on); others are a 400. */
export function strictGroqQwen(): StrictEndpoint {
  const check = (body: SentBody) =>
    body.reasoning_effort === undefined || ["none", "default"].includes(String(body.reasoning_effort))
      ? undefined
      : json(400, {
          error: {
            message: `\`reasoning_effort\` is not supported with this model: use one of none, default`,
            type: "invalid_request_error",
            param: "reasoning_effort",
          },
        });
  return endpoint(check, plainTurn);
}

/** A standard OpenAI-shaped stream for the turn (reasoning in `reasoning_content`). */
function plainTurn(turn: StrictTurn, body: SentBody): FakeResponse {
  return streamReply("openai", {
    model: body.model,
    ...(turn.thinking ? { thinking: turn.thinking } : {}),
    ...(turn.text ? { text: turn.text } : {}),
    ...(turn.calls?.length ? { toolCalls: turn.calls } : {}),
  });
}
