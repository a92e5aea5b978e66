/**
 * The provider protocol: one set of message and stream types that every wire adapter maps onto.
 * Provider quirks stay inside the adapters; nothing above `providers/` sees an SDK type.
 */

import type { Message } from "./message-schema.ts";

export type ThinkingLevel = "off" | "low" | "medium" | "high";
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "low", "medium", "high"];

export type WireId = "openai" | "anthropic" | "mistral" | "ollama";

/**
 * The messages and their blocks are defined once, as the schemas in message-schema.ts that also check
 * what a session file holds; their types are re-exported here. Type-only: no zod on the run path.
 */
export type {
  AssistantBlock,
  AssistantMessage,
  ContentBlock,
  ContextMark,
  ImageBlock,
  ImageMediaType,
  Message,
  OpaqueFields,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
  UserBlock,
  UserMessage,
} from "./message-schema.ts";

/** JSON Schema of a tool's input, as produced by `z.toJSONSchema`. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** Token usage with Anthropic's meaning on every wire: input_tokens excludes cached tokens. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
  };
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal";

/** What went wrong with a provider call, classified so the loop and the user can act on it. */
export type ProviderErrorKind =
  | "auth" // 401/403, or Gemini's 400 API_KEY_INVALID
  | "rate_limit" // 429
  | "overloaded" // 529 / overloaded_error
  | "server" // other 5xx
  | "context_overflow" // the prompt does not fit the model's window
  | "model_not_found" // unknown model id
  | "bad_request" // any other 4xx
  | "network" // connection refused / reset / DNS / timeout before any response
  | "idle_timeout" // the server stopped sending (before the first byte or between chunks) for too long
  | "stream_dropped" // the connection ended mid-stream, or the stream was malformed
  | "aborted"; // the caller's AbortSignal fired

export interface ProviderError {
  kind: ProviderErrorKind;
  /** One human-readable line; names the provider (and the key's source for auth), never the key. */
  message: string;
  status?: number;
  /** Server-requested wait before retrying (retry-after-ms / retry-after / RetryInfo), in ms. */
  retryAfterMs?: number;
}

export function isRetryable(error: ProviderError): boolean {
  return (
    error.kind === "rate_limit" ||
    error.kind === "overloaded" ||
    error.kind === "server" ||
    error.kind === "network" ||
    error.kind === "idle_timeout"
  );
}

/**
 * The one stream every wire produces. A stream never throws once started: failures end it with an
 * `error` event. A successful stream ends with exactly one `done`.
 */
export type StreamEvent =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  /** Anthropic thinking signature for the current thinking block. */
  | { type: "thinking_signature"; signature: string }
  /**
   * Opaque fields for reasoning (see OpaqueFields): merged into the current thinking block, or into a
   * new (possibly textless) one with `newBlock` — e.g. Anthropic's redacted_thinking.
   */
  | { type: "thinking_opaque"; fields: Record<string, unknown>; newBlock?: boolean }
  /** A tool call began streaming (parallel calls are told apart by `index`). */
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; arguments_delta: string }
  /** A tool call is complete with parsed arguments. Unparseable arguments arrive as `input: {}` plus `parse_error`. */
  | {
      type: "tool_call";
      id: string;
      name: string;
      input: Record<string, unknown>;
      parse_error?: string;
      /** The provider's own fields for this call, kept and sent back with it (see OpaqueFields). */
      opaque?: Record<string, unknown>;
    }
  | { type: "usage"; usage: Usage }
  /** A wire's word to the user about this request (a thinking level ignored or mapped); said once a session. */
  | { type: "notice"; text: string }
  /** Emitted by the retry wrapper before it waits and tries again. */
  | { type: "retry"; attempt: number; max_retries: number; delay_ms: number; error: ProviderError }
  | { type: "done"; stop_reason: StopReason; usage: Usage }
  | { type: "error"; error: ProviderError; usage?: Usage };

/** A provider as resolved from the registry and configuration at call time. */
export interface ResolvedProvider {
  id: string;
  name: string;
  wire: WireId;
  /** Base URL in the form the wire's SDK expects (OpenAI: with /v1; Anthropic, Mistral: the root). */
  baseURL: string;
  /**
   * Where the base URL came from, for error messages: "ANTHROPIC_BASE_URL", "providers.x.api_base",
   * "api_base"; undefined for the registry's default.
   */
  baseURLSource?: string;
  apiKey: string | undefined;
  /** Where the key came from, for error messages: "config", "keys.json", "env OPENAI_API_KEY", "none". */
  keySource: string;
  headers: Record<string, string>;
  /** Wire quirks of OpenAI-compatible vendors, e.g. how thinking is requested. */
  quirks: ProviderQuirks;
  /**
   * How long the server may stay silent — before the first byte and between chunks — before the
   * attempt fails (config `network.idle_timeout_s`); DEFAULT_IDLE_TIMEOUT_MS when unset.
   */
  idleTimeoutMs?: number;
  /**
   * The context window the wire must ask the server for, on a server that would otherwise use a
   * smaller one and silently drop the oldest messages (Ollama's `options.num_ctx`). Set when a session
   * resolves the model (`modelFacts`), so every request of the session — summaries included — uses it.
   */
  numCtx?: number;
}

/** `network.idle_timeout_s` when the config says nothing: long enough for a slow first token. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

export interface ProviderQuirks {
  /**
   * Which output cap an OpenAI-wire vendor reads: OpenAI's reasoning models reject `max_tokens`, while
   * Ollama's /v1 reads only `max_tokens` (the default).
   */
  maxTokensParam?: "max_tokens" | "max_completion_tokens";
  /** Whether the vendor accepts `stream_options.include_usage` (default true). */
  streamUsage?: boolean;
  /**
   * Whether assistant tool-call turns carry the model's `reasoning_content` back (DeepSeek and Kimi
   * thinking models answer 400 without it); unset: decided by base URL and model id.
   */
  resendReasoningContent?: boolean;
}

export interface StreamRequest {
  provider: ResolvedProvider;
  /** The model id as sent to the provider (the part after the first `/`). */
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  thinking: ThinkingLevel;
  /** What the model catalogue knows of this model, when it has an entry: wires pick per-model rules by it. */
  modelInfo?: ModelCapabilities;
  maxTokens?: number;
  /** `--json-schema`: the final answer must be JSON valid against it (native structured output where the wire has it). */
  responseSchema?: ResponseSchema;
  signal: AbortSignal;
  /** Route SDK log output; silent unless the user asked for -v. */
  log?: (line: string) => void;
}

/** A JSON Schema the answer must follow, with the name wires that take one send (OpenAI, Mistral). */
export interface ResponseSchema {
  name: string;
  schema: Record<string, unknown>;
}

export type StreamFn = (request: StreamRequest) => AsyncIterable<StreamEvent>;

/** The catalogue's word on a model's abilities; null where it does not know. */
export interface ModelCapabilities {
  reasoning: boolean | null;
  tool_call: boolean | null;
  /** Whether it reads images; absent or null: not known, so images are sent and the provider decides. */
  image_input?: boolean | null;
}
