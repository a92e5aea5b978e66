/**
 * What each vendor behind the Chat Completions wire accepts, as data: whether a model reasons (when the
 * catalogue does not say), which `reasoning_effort` values it takes, and which vendors want the model's
 * `reasoning_content` back on tool-call turns. `openai-request.ts` reads these when it builds a request.
 *
 *   thinkingChoice(request) → { effort: "default", notice: "…" }   (groq qwen/qwen3-32b at "medium")
 *   resendsReasoningContent(request) → true                        (a custom provider serving deepseek-v4-pro)
 */
import { builtinProvider } from "./registry.ts";
import type { StreamRequest, ThinkingLevel } from "./types.ts";

interface ModelRule {
  /** Built-in provider id the rule is for. */
  provider: string;
  /** Matches the model id as sent to the provider. */
  model: RegExp;
  /** Whether the model reasons, when the catalogue has no word on it. */
  reasons?: boolean;
  /** The value sent for each level; a level missing here is sent as its own name. */
  values?: Partial<Record<ThinkingLevel, string>>;
}

const RULES: readonly ModelRule[] = [
  // OpenAI: only the o-series and GPT-5 take `reasoning_effort`; GPT-4o/4.1 answer 400
  // "Unsupported parameter: 'reasoning_effort' is not supported with this model."
  { provider: "openai", model: /^(o\d|gpt-5|codex)/, reasons: true },
  { provider: "openai", model: /^(gpt-4|gpt-3\.5|chatgpt-4o)/, reasons: false },
  // Groq: Qwen3 takes only `none` (no reasoning) or `default` (reasoning on); GPT-OSS takes low/medium/high.
  {
    provider: "groq",
    model: /^qwen\/qwen3-/,
    reasons: true,
    values: { off: "none", low: "default", medium: "default", high: "default" },
  },
  { provider: "groq", model: /^openai\/gpt-oss/, reasons: true },
  { provider: "groq", model: /^(llama|meta-llama\/|moonshotai\/|gemma|mixtral)/, reasons: false },
  // Gemini's OpenAI endpoint maps `reasoning_effort` onto thinking itself, except that Gemini 3 Pro
  // has no medium level ("Thinking level MEDIUM is not supported for this model").
  { provider: "google", model: /^gemini-3-pro/, reasons: true, values: { medium: "high" } },
  { provider: "google", model: /^gemini-(1\.|2\.0)/, reasons: false },
  { provider: "openrouter", model: /^openai\/(gpt-4|gpt-3\.5|chatgpt-4o)/, reasons: false },
];

function ruleFor(request: StreamRequest): ModelRule | undefined {
  return RULES.find((r) => r.provider === request.provider.id && r.model.test(request.model));
}

export interface ThinkingChoice {
  /** The `reasoning_effort` to send; undefined sends none. */
  effort?: string;
  /** Said once a session when the level is ignored or sent as another value. */
  notice?: string;
}

/**
 * How ion's thinking level reaches this model: only where the model reasons (the catalogue's word, else
 * the rules above; a model neither knows is sent the level, as custom servers expect), in the values it
 * takes.
 */
export function thinkingChoice(request: StreamRequest): ThinkingChoice {
  const rule = ruleFor(request);
  const level = request.thinking;
  const name = `${request.provider.id}/${request.model}`;
  const mapped = rule?.values?.[level];
  if (level === "off") return mapped ? { effort: mapped } : {};
  const reasons = request.modelInfo?.reasoning ?? rule?.reasons ?? null;
  if (reasons === false) {
    return { notice: `${name} does not reason, so the thinking level "${level}" is not sent` };
  }
  if (mapped && mapped !== level) {
    return { effort: mapped, notice: `${name} takes thinking as "${mapped}", so "${level}" is sent as that` };
  }
  return { effort: level };
}

/** Hosts whose thinking models answer 400 unless `reasoning_content` comes back on tool-call turns. */
const REASONING_CONTENT_HOSTS = /(^|\.)(api\.deepseek\.com|api\.moonshot\.(ai|cn))$/;
/** The same models served elsewhere (a gateway, a custom provider): DeepSeek V3.2+/R1 and Kimi K2.x. */
const REASONING_CONTENT_MODELS = /^(deepseek-(reasoner|v3\.[2-9]|v4)|kimi-k2)/;

/**
 * Whether assistant tool-call turns carry `reasoning_content` back: the provider's own setting
 * (`resend_reasoning_content`), else DeepSeek's and Moonshot's hosts, else their models on a custom
 * provider. Built-in vendors are never guessed at: Groq rejects fields it does not know.
 */
export function resendsReasoningContent(request: StreamRequest): boolean {
  const { provider } = request;
  if (provider.quirks.resendReasoningContent !== undefined) return provider.quirks.resendReasoningContent;
  const host = URL.canParse(provider.baseURL) ? new URL(provider.baseURL).hostname : "";
  if (REASONING_CONTENT_HOSTS.test(host)) return true;
  const model = request.model.slice(request.model.lastIndexOf("/") + 1);
  return !builtinProvider(provider.id) && REASONING_CONTENT_MODELS.test(model);
}

/**
 * Google's documented stand-in for a Gemini 3 function call that has no signature of its own (one made
 * by another model before a switch): "skip_thought_signature_validator" passes its validation.
 */
export const GEMINI_SKIP_SIGNATURE = "skip_thought_signature_validator";

/** Gemini 3 on Google's endpoint: the first call of each step must carry a thought signature. */
export function needsThoughtSignature(request: StreamRequest): boolean {
  return request.provider.id === "google" && /^gemini-[3-9]/.test(request.model);
}
