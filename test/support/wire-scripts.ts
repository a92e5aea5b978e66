/**
 * Scripted model replies for the fake LLM server: describe what the model says (text, thinking, tool
 * calls, usage, stop reason) and get the exact bytes the provider would send, in its real framing.
 *
 * Byte formats follow the recorded transcripts in ../shared/fixtures/streaming and /responses:
 * - OpenAI Chat Completions: `data: {chat.completion.chunk}\n\n`, role in the first delta, tool calls
 *   split across deltas (id/type/name only in the first, then argument pieces), `finish_reason` in its
 *   own chunk, the `include_usage` chunk with `choices: []`, then `data: [DONE]`. Thinking goes in
 *   `delta.reasoning_content` (the OpenAI-compatible reasoning field).
 * - Anthropic Messages: `event: X\ndata: {json}\n\n` with message_start (usage incl. cache fields),
 *   content_block_start/delta/stop for thinking (+ signature_delta), text and tool_use
 *   (input_json_delta), message_delta (stop_reason + cumulative usage), message_stop, a ping, and the
 *   trailing spaces the real API leaves inside some data lines.
 * - Mistral: `data: {json}\n\n`, every tool call whole in one delta (9-character ids, no index/type) in
 *   the chunk that also carries `finish_reason` and `usage`, `data: [DONE]`. Thinking uses the
 *   magistral content-array form.
 *
 * Generated ids (chatcmpl-…, call_…, msg_01…, toolu_01…, 9-character Mistral ids) look real and are
 * unique per built reply; pass `id` on a tool call to pin it.
 */
import { type FakeResponse, FIXTURES } from "./fake-llm.ts";

export type Wire = "openai" | "anthropic" | "mistral";

export interface ScriptedReply {
  /** Assistant text (split into several deltas). */
  text?: string;
  /** Reasoning/thinking text before the answer. */
  thinking?: string;
  /** Tool calls; parallel when several. */
  toolCalls?: { id?: string; name: string; input: Record<string, unknown> }[];
  /**
   * Token counts with Anthropic's meaning: `input` excludes cached tokens. On the OpenAI and Mistral
   * wires `prompt_tokens` is `input + cacheRead`; they have no cache-write count, so `cacheWrite` only
   * appears on the Anthropic wire. Defaults: input 12, output ~ generated characters / 4, caches 0.
   */
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  /** Default: tool_use when toolCalls, else end_turn. */
  stopReason?: "end_turn" | "tool_use" | "max_tokens";
  /** Model name echoed in the reply (default: a real model id of the wire). */
  model?: string;
  /** Anthropic thinking signature (default: a generated base64 string). */
  signature?: string;
}

/** `litellm`: the LiteLLM proxy, a gateway in front of any of the others (OpenAI-compatible bodies). */
export type ErrorProvider = Wire | "gemini" | "openrouter" | "ollama" | "litellm";
export type ErrorStatus = 401 | 400 | 404 | 429 | 500 | 529;
export interface ErrorReplyOptions {
  /** Sent as `retry-after` (seconds); on Gemini 429 also written into the body's RetryInfo.retryDelay. */
  retryAfterSeconds?: number;
  /** Sent as `retry-after-ms`. */
  retryAfterMs?: number;
  /**
   * With 400, `context`: the provider's context-overflow error instead of its generic bad request;
   * `multiline`: an error whose message spans several lines (as vLLM's validation errors do).
   * With 404, `endpoint`: the server has no such path (a wrong base URL), so nothing names a model.
   */
  kind?: "context" | "multiline" | "endpoint";
}

/** The path suffix of the wire's chat endpoint, used to match queued replies to requests. */
export function wirePathSuffix(wire: Wire): string {
  return wire === "anthropic" ? "/messages" : "/chat/completions";
}

// ---------------------------------------------------------------------------------------------------
// Deterministic randomness: every built reply gets its own seeded generator, so output is stable for
// a given order of calls, and ids never repeat within a test run.

const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
let sequence = 0;

class Dice {
  private state: number;
  constructor(seed: string) {
    // FNV-1a, then mulberry32.
    let hash = 0x811c9dc5;
    for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 0x01000193);
    this.state = hash >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  chars(alphabet: string, count: number): string {
    let out = "";
    for (let i = 0; i < count; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------
// Splitting into deltas

/** Split text into several deltas (about one or two words each); the pieces concatenate to `text`. */
export function splitText(text: string): string[] {
  if (!text) return [];
  const tokens = text.match(/\S+\s*|\s+/gu) ?? [text];
  if (tokens.length === 1) {
    const points = Array.from(text);
    if (points.length < 2) return [text];
    const half = Math.ceil(points.length / 2);
    return [points.slice(0, half).join(""), points.slice(half).join("")];
  }
  const group = Math.max(1, Math.ceil(tokens.length / 12));
  const pieces: string[] = [];
  for (let i = 0; i < tokens.length; i += group) pieces.push(tokens.slice(i, i + group).join(""));
  return pieces;
}

/** Split a JSON argument string into about four pieces, cutting anywhere (as the APIs do). */
function splitArguments(json: string): string[] {
  const points = Array.from(json);
  const size = Math.max(1, Math.ceil(points.length / 4));
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(""));
  return pieces;
}

/** JSON with `", "` and `": "` separators, the way models write tool arguments in streams. */
function spacedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => spacedJson(v ?? null)).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${spacedJson(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

// ---------------------------------------------------------------------------------------------------
// The normalized script

interface Call {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

interface Script {
  wire: Wire;
  dice: Dice;
  messageId: string;
  model: string;
  created: number;
  thinking: string;
  text: string;
  signature: string;
  calls: Call[];
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  stop: "end_turn" | "tool_use" | "max_tokens";
}

const CREATED = 1782321900;

function toolId(wire: Wire, dice: Dice): string {
  if (wire === "openai") return `call_${dice.chars(BASE62, 24)}`;
  if (wire === "anthropic") return `toolu_01${dice.chars(BASE62, 22)}`;
  return dice.chars(BASE62, 9);
}

function script(wire: Wire, reply: ScriptedReply): Script {
  const dice = new Dice(`${wire}\u0000${JSON.stringify(reply)}\u0000${sequence++}`);
  const calls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? toolId(wire, dice),
    name: c.name,
    input: c.input,
  }));
  const thinking = reply.thinking ?? "";
  const text = reply.text ?? "";
  const generated =
    thinking.length + text.length + calls.reduce((n, c) => n + JSON.stringify(c.input).length, 0);
  const defaultModel =
    wire === "openai"
      ? "gpt-4o-2024-08-06"
      : wire === "anthropic"
        ? "claude-sonnet-4-20250514"
        : thinking
          ? "magistral-medium-2507"
          : "mistral-small-latest";
  const messageId =
    wire === "openai"
      ? `chatcmpl-${dice.chars(BASE62, 29)}`
      : wire === "anthropic"
        ? `msg_01${dice.chars(BASE62, 22)}`
        : dice.chars(HEX, 32);
  const signatureBytes = new Uint8Array(240);
  for (let i = 0; i < signatureBytes.length; i++) signatureBytes[i] = dice.int(256);
  return {
    wire,
    dice,
    messageId,
    model: reply.model ?? defaultModel,
    created: CREATED,
    thinking,
    text,
    signature: reply.signature ?? Buffer.from(signatureBytes).toString("base64"),
    calls,
    input: reply.usage?.input ?? 12,
    output: reply.usage?.output ?? Math.max(1, Math.ceil(generated / 4)),
    cacheRead: reply.usage?.cacheRead ?? 0,
    cacheWrite: reply.usage?.cacheWrite ?? 0,
    stop: reply.stopReason ?? (calls.length > 0 ? "tool_use" : "end_turn"),
  };
}

/** One SSE event. `content`: carries assistant content; `final`: carries the finish reason. */
interface Frame {
  text: string;
  content: boolean;
  final: boolean;
}

// ---------------------------------------------------------------------------------------------------
// OpenAI Chat Completions

function openaiFinish(stop: Script["stop"]): string {
  return stop === "tool_use" ? "tool_calls" : stop === "max_tokens" ? "length" : "stop";
}

function openaiUsage(s: Script) {
  const reasoning = s.thinking ? Math.min(s.output, Math.ceil(s.thinking.length / 4)) : 0;
  return {
    prompt_tokens: s.input + s.cacheRead,
    completion_tokens: s.output,
    total_tokens: s.input + s.cacheRead + s.output,
    prompt_tokens_details: { cached_tokens: s.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function openaiFrames(s: Script): Frame[] {
  const fingerprint = `fp_${s.dice.chars(HEX, 10)}`;
  const base = {
    id: s.messageId,
    object: "chat.completion.chunk",
    created: s.created,
    model: s.model,
    service_tier: "default",
    system_fingerprint: fingerprint,
  };
  const frames: Frame[] = [];
  const obfuscation = () => s.dice.chars(BASE62, s.dice.int(16));
  const chunk = (delta: Record<string, unknown>, finish: string | null, content: boolean) => {
    const choices = [{ index: 0, delta, logprobs: null, finish_reason: finish }];
    const data = { ...base, choices, usage: null, obfuscation: obfuscation() };
    frames.push({ text: `data: ${JSON.stringify(data)}\n\n`, content, final: finish !== null });
  };

  chunk(
    s.text ? { role: "assistant", content: "", refusal: null } : { role: "assistant", content: null },
    null,
    false,
  );
  for (const piece of splitText(s.thinking)) chunk({ content: null, reasoning_content: piece }, null, true);
  for (const piece of splitText(s.text)) chunk({ content: piece }, null, true);
  s.calls.forEach((call, index) => {
    const start = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    chunk({ tool_calls: [start] }, null, true);
    for (const piece of splitArguments(spacedJson(call.input))) {
      chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null, true);
    }
  });
  chunk({}, openaiFinish(s.stop), false);
  const usage = { ...base, choices: [], usage: openaiUsage(s), obfuscation: obfuscation() };
  frames.push({ text: `data: ${JSON.stringify(usage)}\n\n`, content: false, final: true });
  frames.push({ text: "data: [DONE]\n\n", content: false, final: true });
  return frames;
}

function openaiJson(s: Script): string {
  const message: Record<string, unknown> = { role: "assistant", content: s.text || null };
  if (s.thinking) message.reasoning_content = s.thinking;
  if (s.calls.length > 0) {
    message.tool_calls = s.calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.input) },
    }));
  }
  message.refusal = null;
  message.annotations = [];
  const body = {
    id: s.messageId,
    object: "chat.completion",
    created: s.created,
    model: s.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: openaiFinish(s.stop) }],
    usage: openaiUsage(s),
    service_tier: "default",
    system_fingerprint: `fp_${s.dice.chars(HEX, 10)}`,
  };
  return JSON.stringify(body, null, 2);
}

// ---------------------------------------------------------------------------------------------------
// Anthropic Messages

function anthropicStartUsage(s: Script, output: number) {
  return {
    input_tokens: s.input,
    cache_creation_input_tokens: s.cacheWrite,
    cache_read_input_tokens: s.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: s.cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: output,
    service_tier: "standard",
    inference_geo: "not_available",
  };
}

function anthropicFrames(s: Script): Frame[] {
  const frames: Frame[] = [];
  // The real API leaves runs of spaces after the JSON inside many data lines.
  const padding = () => (s.dice.next() < 0.5 ? "" : " ".repeat(1 + s.dice.int(15)));
  const event = (type: string, data: Record<string, unknown>, content = false, final = false) => {
    frames.push({ text: `event: ${type}\ndata: ${JSON.stringify(data)}${padding()}\n\n`, content, final });
  };
  let pinged = false;
  const ping = () => {
    if (pinged) return;
    pinged = true;
    frames.push({ text: 'event: ping\ndata: {"type": "ping"}\n\n', content: false, final: false });
  };

  event("message_start", {
    type: "message_start",
    message: {
      model: s.model,
      id: s.messageId,
      type: "message",
      role: "assistant",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: anthropicStartUsage(s, Math.min(s.output, 1 + s.dice.int(5))),
    },
  });
  let index = 0;
  const delta = (d: Record<string, unknown>) => {
    event("content_block_delta", { type: "content_block_delta", index, delta: d }, true);
  };
  const block = (contentBlock: Record<string, unknown>, deltas: () => void) => {
    event("content_block_start", { type: "content_block_start", index, content_block: contentBlock });
    ping();
    deltas();
    event("content_block_stop", { type: "content_block_stop", index });
    index++;
  };

  if (s.thinking) {
    block({ type: "thinking", thinking: "", signature: "" }, () => {
      for (const piece of splitText(s.thinking)) delta({ type: "thinking_delta", thinking: piece });
      delta({ type: "thinking_delta", thinking: "" });
      delta({ type: "signature_delta", signature: s.signature });
    });
  }
  if (s.text) {
    block({ type: "text", text: "" }, () => {
      for (const piece of splitText(s.text)) delta({ type: "text_delta", text: piece });
    });
  }
  for (const call of s.calls) {
    const start = { type: "tool_use", id: call.id, name: call.name, input: {}, caller: { type: "direct" } };
    block(start, () => {
      delta({ type: "input_json_delta", partial_json: "" });
      if (Object.keys(call.input).length === 0) return;
      for (const piece of splitArguments(spacedJson(call.input))) {
        delta({ type: "input_json_delta", partial_json: piece });
      }
    });
  }
  ping();
  const usage = {
    input_tokens: s.input,
    cache_creation_input_tokens: s.cacheWrite,
    cache_read_input_tokens: s.cacheRead,
    output_tokens: s.output,
  };
  event(
    "message_delta",
    { type: "message_delta", delta: { stop_reason: s.stop, stop_sequence: null }, usage },
    false,
    true,
  );
  event("message_stop", { type: "message_stop" }, false, true);
  return frames;
}

function anthropicJson(s: Script): string {
  const content: Record<string, unknown>[] = [];
  if (s.thinking) content.push({ type: "thinking", thinking: s.thinking, signature: s.signature });
  if (s.text) content.push({ type: "text", text: s.text });
  for (const c of s.calls) {
    content.push({ type: "tool_use", id: c.id, name: c.name, input: c.input, caller: { type: "direct" } });
  }
  return JSON.stringify({
    model: s.model,
    id: s.messageId,
    type: "message",
    role: "assistant",
    content,
    stop_reason: s.stop,
    stop_sequence: null,
    usage: anthropicStartUsage(s, s.output),
  });
}

// ---------------------------------------------------------------------------------------------------
// Mistral

function mistralUsage(s: Script): Record<string, unknown> {
  const prompt = s.input + s.cacheRead;
  const usage: Record<string, unknown> = {
    prompt_tokens: prompt,
    total_tokens: prompt + s.output,
    completion_tokens: s.output,
  };
  if (s.cacheRead > 0) usage.prompt_tokens_details = { cached_tokens: s.cacheRead };
  return usage;
}

function mistralFrames(s: Script): Frame[] {
  const frames: Frame[] = [];
  // The magistral recording has no `logprobs`; the mistral-small ones have `logprobs: null`.
  const magistral = Boolean(s.thinking);
  const chunk = (delta: Record<string, unknown>, finish: string | null, content: boolean) => {
    const choice: Record<string, unknown> = { index: 0, delta, finish_reason: finish };
    if (!magistral) choice.logprobs = null;
    const data: Record<string, unknown> = {
      id: s.messageId,
      object: "chat.completion.chunk",
      created: s.created,
      model: s.model,
      choices: [choice],
    };
    if (finish !== null) data.usage = mistralUsage(s);
    frames.push({ text: `data: ${JSON.stringify(data)}\n\n`, content, final: finish !== null });
  };

  if (magistral) {
    splitText(s.thinking).forEach((piece, i) => {
      const part = [{ type: "thinking", thinking: [{ type: "text", text: piece }] }];
      chunk(i === 0 ? { role: "assistant", content: part } : { content: part }, null, true);
    });
    // After thinking the recording switches to content parts, later to plain strings.
    splitText(s.text).forEach((piece, i) => {
      chunk({ content: i === 0 ? [{ type: "text", text: piece }] : piece }, null, true);
    });
  } else {
    chunk({ role: "assistant", content: "" }, null, false);
    for (const piece of splitText(s.text)) chunk({ content: piece }, null, true);
  }
  const finish = openaiFinish(s.stop);
  if (s.calls.length > 0) {
    const toolCalls = s.calls.map((c) => ({
      id: c.id,
      function: { name: c.name, arguments: spacedJson(c.input) },
    }));
    chunk({ content: null, tool_calls: toolCalls }, finish, true);
  } else {
    chunk({ content: "" }, finish, false);
  }
  frames.push({ text: "data: [DONE]\n\n", content: false, final: true });
  return frames;
}

function mistralJson(s: Script): string {
  const message: Record<string, unknown> = {
    role: "assistant",
    tool_calls:
      s.calls.length > 0
        ? s.calls.map((c) => ({ id: c.id, function: { name: c.name, arguments: spacedJson(c.input) } }))
        : null,
  };
  if (s.thinking) {
    const parts: Record<string, unknown>[] = [
      { type: "thinking", thinking: [{ type: "text", text: s.thinking }] },
    ];
    if (s.text) parts.push({ type: "text", text: s.text });
    message.content = parts;
  } else if (s.text || s.calls.length === 0) {
    message.content = s.text;
  }
  const body = {
    id: s.messageId,
    created: s.created,
    model: s.model,
    usage: mistralUsage(s),
    object: "chat.completion",
    choices: [{ index: 0, finish_reason: openaiFinish(s.stop), message }],
  };
  return JSON.stringify(body, null, 2);
}

// ---------------------------------------------------------------------------------------------------
// Public builders

function frames(wire: Wire, reply: ScriptedReply): Frame[] {
  const s = script(wire, reply);
  return wire === "openai" ? openaiFrames(s) : wire === "anthropic" ? anthropicFrames(s) : mistralFrames(s);
}

function streamHeaders(wire: Wire): Record<string, string> {
  return {
    "content-type": wire === "mistral" ? "text/event-stream" : "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
  };
}

/** The reply as a streaming SSE response in the wire's exact framing, one event per chunk. */
export function streamReply(wire: Wire, reply: ScriptedReply): FakeResponse {
  return {
    headers: streamHeaders(wire),
    chunks: frames(wire, reply).map((f) => f.text),
    pathSuffix: wirePathSuffix(wire),
  };
}

/** The reply as a non-streaming JSON response. */
export function jsonReply(wire: Wire, reply: ScriptedReply): FakeResponse {
  const s = script(wire, reply);
  const body = wire === "openai" ? openaiJson(s) : wire === "anthropic" ? anthropicJson(s) : mistralJson(s);
  return { headers: { "content-type": "application/json" }, body, pathSuffix: wirePathSuffix(wire) };
}

/** How many events to send before a fault: through the first two content deltas (or the only one). */
function faultPoint(wire: Wire, all: Frame[], what: string): number {
  const content = all.flatMap((f, i) => (f.content && !f.final ? [i] : []));
  const last = content[Math.min(content.length, 2) - 1];
  if (last === undefined) {
    const hint = wire === "mistral" ? " (Mistral sends tool calls whole in the final chunk)" : "";
    throw new Error(`${what}: the reply has no content delta before its end${hint}; add text or thinking`);
  }
  return last + 1;
}

/** Sends the stream up to and including the first content deltas, then closes the connection mid-body. */
export function dropMidStream(wire: Wire, reply: ScriptedReply): FakeResponse {
  const all = frames(wire, reply);
  return {
    headers: streamHeaders(wire),
    chunks: all.map((f) => f.text),
    dropAfterChunks: faultPoint(wire, all, "dropMidStream"),
    pathSuffix: wirePathSuffix(wire),
  };
}

/** Sends the stream up to and including the first content deltas, then holds the connection open. */
export function stallMidStream(wire: Wire, reply: ScriptedReply): FakeResponse {
  const all = frames(wire, reply);
  return {
    headers: streamHeaders(wire),
    chunks: all.map((f) => f.text),
    stallAfterChunks: faultPoint(wire, all, "stallMidStream"),
    pathSuffix: wirePathSuffix(wire),
  };
}

// ---------------------------------------------------------------------------------------------------
// Errors

/**
 * Error bodies: `file` = a real body from ../shared/fixtures/errors; `body` = built in the provider's
 * documented error shape where no capture exists (those messages are illustrative).
 */
type ErrorBody = { file: string } | { body: string; contentType?: string };
type ErrorKey = `${ErrorStatus}` | "400:context" | "400:multiline" | "404:endpoint";

/** A validation error in vLLM's (pydantic's) multi-line form. */
const MULTILINE =
  "1 validation error for ChatCompletionRequest\\nmax_tokens\\n  Input should be greater than 0 [type=greater_than, input_value=-1, input_type=int]";

const ERROR_BODIES: Record<ErrorProvider, Partial<Record<ErrorKey, ErrorBody>>> = {
  openai: {
    "400": { file: "openai-400-unsupported-parameter.json" },
    "400:context": { file: "openai-400-context-length-exceeded.json" },
    "400:multiline": {
      body: `{"error":{"message":"${MULTILINE}","type":"BadRequestError","param":null,"code":400}}`,
    },
    "401": { file: "openai-401-invalid-api-key.json" },
    "404": {
      body: '{"error":{"message":"The model `gpt-nonexistent` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}',
    },
    "404:endpoint": {
      body: '{"error":{"message":"Invalid URL (POST /v1/v1/chat/completions)","type":"invalid_request_error","param":null,"code":null}}',
    },
    "429": { file: "openai-429-rate-limit-tokens.json" },
    "500": {
      body: '{"error":{"message":"The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error.","type":"server_error","param":null,"code":null}}',
    },
  },
  anthropic: {
    "400": {
      body: '{"type":"error","error":{"type":"invalid_request_error","message":"messages: text content blocks must be non-empty"}}',
    },
    "400:context": { file: "anthropic-400-prompt-too-long.json" },
    "401": { file: "anthropic-401-authentication-error.json" },
    "400:multiline": {
      body: `{"type":"error","error":{"type":"invalid_request_error","message":"${MULTILINE}"}}`,
    },
    "404": {
      body: '{"type":"error","error":{"type":"not_found_error","message":"model: claude-nonexistent"}}',
    },
    "404:endpoint": { body: '{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}' },
    "429": { file: "anthropic-429-rate-limit-error.json" },
    "500": { body: '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}' },
    "529": { file: "anthropic-529-overloaded-error.json" },
  },
  mistral: {
    "400": {
      body: '{"object":"error","message":"Invalid request","type":"invalid_request_error","param":null,"code":null}',
    },
    "400:context": {
      body: '{"object":"error","message":"Prompt contains 40960 tokens, too large for model with 32768 maximum context length","type":"invalid_request_error","param":null,"code":null}',
    },
    "401": { file: "mistral-401-unauthorized.json" },
    "400:multiline": {
      body: `{"object":"error","message":"${MULTILINE}","type":"invalid_request_error","param":null,"code":null}`,
    },
    "404": {
      body: '{"object":"error","message":"Invalid model: mistral-nonexistent","type":"invalid_model","param":null,"code":"1500"}',
    },
    "404:endpoint": { body: '{"detail":"Not Found"}' },
    "429": {
      body: '{"object":"error","message":"Rate limit exceeded","type":"rate_limited","param":null,"code":"1300"}',
    },
    "500": {
      body: '{"object":"error","message":"Internal server error","type":"internal_server_error","param":null,"code":null}',
    },
  },
  gemini: {
    "400": { file: "gemini-400-api-key-invalid.json" },
    "400:context": { file: "gemini-400-input-token-count-exceeded.json" },
    "404": {
      body: '{"error":{"code":404,"message":"models/gemini-nonexistent is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.","status":"NOT_FOUND"}}',
    },
    "429": { file: "gemini-429-resource-exhausted-retry-info.json" },
    "500": { body: '{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}' },
  },
  openrouter: {
    "400": { body: '{"error":{"message":"Invalid request","code":400}}' },
    "401": { file: "openrouter-401-user-not-found.json" },
    "404": { body: '{"error":{"message":"No endpoints found for vendor/nonexistent.","code":404}}' },
    "429": { body: '{"error":{"message":"Rate limit exceeded","code":429}}' },
    "500": { body: '{"error":{"message":"Internal Server Error","code":500}}' },
  },
  ollama: {
    "400": { body: '{"error":"invalid request"}' },
    "401": { body: '{"error":"unauthorized"}' },
    "404": { file: "ollama-404-model-not-found.json" },
    // Go's default for an unknown path: plain text.
    "404:endpoint": { body: "404 page not found", contentType: "text/plain; charset=utf-8" },
    "429": { body: '{"error":"too many requests"}' },
    "500": { file: "ollama-500-error.json" },
  },
  // LiteLLM's proxy (`ProxyException` bodies: every field a string, "None" included). The 401 is what it
  // answers for a key it does not know, quoting that key abbreviated its own way.
  litellm: {
    "400": {
      body: `{"error":{"message":"litellm.BadRequestError: OpenAIException - Invalid request","type":"invalid_request_error","param":"None","code":"400"}}`,
    },
    "400:multiline": {
      body: `{"error":{"message":"${MULTILINE}","type":"None","param":"None","code":"400"}}`,
    },
    "401": {
      body: '{"error":{"message":"Authentication Error, Invalid proxy server token passed. Received API Key = sk-...wxyz, Key Hash (Token) =0f1e2d3c. Unable to find token in cache or `LiteLLM_VerificationTokenTable`","type":"auth_error","param":"None","code":"401"}}',
    },
    // FastAPI's default for an unknown path.
    "404:endpoint": { body: '{"detail":"Not Found"}' },
    "500": {
      body: '{"error":{"message":"litellm.InternalServerError: Internal server error","type":"None","param":"None","code":"500"}}',
    },
  },
};

const ERROR_CONTENT_TYPE: Record<ErrorProvider, string> = {
  openai: "application/json",
  anthropic: "application/json",
  mistral: "application/json",
  gemini: "application/json; charset=UTF-8",
  openrouter: "application/json",
  ollama: "application/json; charset=utf-8",
  litellm: "application/json",
};

/**
 * An HTTP error exactly as the provider sends it: real bodies from ../shared/fixtures/errors where
 * captured, headers as documented in errors/ERRORS-NOTES.md (OpenAI 429: x-ratelimit-*; Anthropic 429:
 * anthropic-ratelimit-*). `retry-after` / `retry-after-ms` are only sent when asked for, so tests never
 * wait on a server-requested delay by accident.
 */
export async function errorReply(
  provider: ErrorProvider,
  status: ErrorStatus,
  opts: ErrorReplyOptions = {},
): Promise<FakeResponse> {
  const kindStatus = { context: 400, multiline: 400, endpoint: 404 } as const;
  if (opts.kind !== undefined && kindStatus[opts.kind] !== status) {
    throw new Error(`errorReply: kind "${opts.kind}" is a ${kindStatus[opts.kind]} error, not ${status}`);
  }
  const kindKey = { context: "400:context", multiline: "400:multiline", endpoint: "404:endpoint" } as const;
  const key: ErrorKey = opts.kind === undefined ? `${status}` : kindKey[opts.kind];
  const source = ERROR_BODIES[provider][key];
  if (!source) {
    const hint =
      provider === "gemini" && status === 401
        ? " (Gemini reports an invalid API key as 400 API_KEY_INVALID)"
        : "";
    const known = Object.keys(ERROR_BODIES[provider]).join(", ");
    throw new Error(`errorReply: no ${provider} ${key} error${hint}; known: ${known}`);
  }
  let body = "file" in source ? await Bun.file(`${FIXTURES}errors/${source.file}`).text() : source.body;

  const contentType =
    ("contentType" in source ? source.contentType : undefined) ?? ERROR_CONTENT_TYPE[provider];
  const headers: Record<string, string> = { "content-type": contentType };
  if (provider === "openai" && status === 429) {
    Object.assign(headers, {
      "x-ratelimit-limit-requests": "500",
      "x-ratelimit-limit-tokens": "30000",
      "x-ratelimit-remaining-requests": "499",
      "x-ratelimit-remaining-tokens": "29996",
      "x-ratelimit-reset-requests": "120ms",
      "x-ratelimit-reset-tokens": "8ms",
    });
  }
  if (provider === "anthropic" && status === 429) {
    Object.assign(headers, {
      "anthropic-ratelimit-requests-limit": "50",
      "anthropic-ratelimit-requests-remaining": "0",
    });
  }
  if (opts.retryAfterSeconds !== undefined) {
    headers["retry-after"] = String(opts.retryAfterSeconds);
    if (provider === "gemini" && status === 429) {
      body = body.replace(/"retryDelay": "[^"]*"/, `"retryDelay": "${opts.retryAfterSeconds}s"`);
    }
  }
  if (opts.retryAfterMs !== undefined) headers["retry-after-ms"] = String(opts.retryAfterMs);
  return { status, headers, body };
}
