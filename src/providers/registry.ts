import type { ProviderQuirks, WireId } from "./types.ts";

/**
 * Built-in providers. OpenAI-compatible vendors are data (a base URL and quirk flags), not adapters.
 */
export interface ProviderInfo {
  id: string;
  name: string;
  wire: WireId;
  /** Default base URL in the form the wire's SDK expects. */
  baseURL: string;
  /** Env vars holding the key, first match wins. Empty when no key is needed. */
  keyEnv: string[];
  /** Env var overriding the base URL, read exactly as its SDK or tool defines it. */
  baseURLEnv?: string;
  needsKey: boolean;
  /** Provider id in models.dev, for the catalogue. */
  modelsDevId?: string;
  /**
   * Context window in tokens assumed for this provider's models until the model catalogue knows the
   * model's own: a conservative common value, so auto-compaction starts early rather than late (an
   * actual overflow is still caught and compacted). Undefined when no value is safe to assume.
   */
  contextWindow?: number;
  quirks: ProviderQuirks;
}

export const BUILTIN_PROVIDERS: readonly ProviderInfo[] = [
  {
    id: "openai",
    name: "OpenAI",
    wire: "openai",
    baseURL: "https://api.openai.com/v1",
    keyEnv: ["OPENAI_API_KEY"],
    baseURLEnv: "OPENAI_BASE_URL",
    needsKey: true,
    modelsDevId: "openai",
    contextWindow: 128_000, // GPT-4o's window; newer models (GPT-4.1, GPT-5) have more.
    quirks: { maxTokensParam: "max_completion_tokens" },
  },
  {
    id: "anthropic",
    name: "Anthropic",
    wire: "anthropic",
    baseURL: "https://api.anthropic.com",
    keyEnv: ["ANTHROPIC_API_KEY"],
    baseURLEnv: "ANTHROPIC_BASE_URL",
    needsKey: true,
    modelsDevId: "anthropic",
    contextWindow: 200_000, // Every current Claude model (1M only in beta).
    quirks: {},
  },
  {
    id: "google",
    name: "Google Gemini",
    wire: "openai",
    baseURL: "https://generativelanguage.googleapis.com/v1beta/openai",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    needsKey: true,
    modelsDevId: "google",
    contextWindow: 1_048_576, // Gemini 1.5/2.x Pro and Flash.
    quirks: {},
  },
  {
    id: "mistral",
    name: "Mistral",
    wire: "mistral",
    baseURL: "https://api.mistral.ai",
    keyEnv: ["MISTRAL_API_KEY"],
    baseURLEnv: "MISTRAL_BASE_URL",
    needsKey: true,
    modelsDevId: "mistral",
    contextWindow: 128_000, // Mistral Large/Medium/Small; Codestral has more.
    quirks: {},
  },
  {
    id: "ollama",
    name: "Ollama",
    // Its native /api/chat, not /v1: only there can a request set `options.num_ctx`. On /v1 Ollama uses
    // its default context (4096 tokens on most machines) and silently drops the oldest messages of a
    // longer prompt — ion's own instructions and tools alone are over 3k tokens.
    wire: "ollama",
    // The host with /v1, as `ollamaBaseURL` writes it; the wire and the model list take the host part.
    baseURL: "http://127.0.0.1:11434/v1",
    keyEnv: [],
    baseURLEnv: "OLLAMA_HOST",
    needsKey: false,
    // No contextWindow: the window is per model, asked of Ollama at session start (`/api/show`) and
    // sent as num_ctx (see ollama-show.ts); `context_window` in config overrides it.
    quirks: {},
  },
  {
    id: "openrouter",
    name: "OpenRouter",
    wire: "openai",
    baseURL: "https://openrouter.ai/api/v1",
    keyEnv: ["OPENROUTER_API_KEY"],
    needsKey: true,
    modelsDevId: "openrouter",
    contextWindow: 128_000, // Varies by routed model; the most common size.
    quirks: {},
  },
  {
    id: "groq",
    name: "Groq",
    wire: "openai",
    baseURL: "https://api.groq.com/openai/v1",
    keyEnv: ["GROQ_API_KEY"],
    needsKey: true,
    modelsDevId: "groq",
    contextWindow: 131_072, // Llama 3.x and most current Groq models.
    quirks: {},
  },
];

export function builtinProvider(id: string): ProviderInfo | undefined {
  return BUILTIN_PROVIDERS.find((p) => p.id === id);
}

/** The built-in default context window of a provider (see `ProviderInfo.contextWindow`); undefined when unknown. */
export function defaultContextWindow(providerId: string): number | undefined {
  return builtinProvider(providerId)?.contextWindow;
}

/**
 * Ollama's host is `host:port` or a URL; the OpenAI-compatible API lives under `/v1`.
 * `127.0.0.1:11434` → `http://127.0.0.1:11434/v1`.
 */
export function ollamaBaseURL(host: string): string {
  let text = host.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `http://${text}`;
  text = text.replace(/(?<!\/)\/+$/, "");
  const url = new URL(text);
  // A bare host gets Ollama's default port, as the ollama CLI does.
  if (url.port === "" && url.protocol === "http:" && !/:\d+/.test(text.replace(/^http:\/\//i, "")))
    url.port = "11434";
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path.endsWith("/v1") ? path : `${path}/v1`}`;
}
