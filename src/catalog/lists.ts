/**
 * Each configured provider's own model list endpoint — OpenAI-compatible `/models`, Mistral, Anthropic
 * (paged), Ollama's `/api/tags`, Gemini's native list — validated with zod and read into `Discovered`
 * entries with whatever metadata the provider reports. Loaded only through `sources.ts`.
 */
import { z } from "zod";
import type { ResolvedProvider } from "../providers/types.ts";
import type { ModelMeta } from "./catalog.ts";
import { getJson, optBoolean, optNumber, optString, parse, positive } from "./fetch.ts";

const ANTHROPIC_VERSION = "2023-06-01";
/** Anthropic pages at most this many times (1000 models a page), in case a server keeps saying has_more. */
const MAX_PAGES = 20;

// --- Response schemas --------------------------------------------------------------------------------
// Built from fetch.ts's null-falling helpers: only an entry's id is required.

const optPrice = z.union([z.string(), z.number()]).nullish().catch(null);

/** `GET {baseURL}/models` of OpenAI and OpenAI-compatible servers (plus what OpenRouter, Groq, Mistral add). */
const OpenAIModelSchema = z.looseObject({
  id: z.string().min(1),
  name: optString,
  created: optNumber,
  // OpenRouter
  context_length: optNumber,
  pricing: z
    .looseObject({
      prompt: optPrice,
      completion: optPrice,
      input_cache_read: optPrice,
      input_cache_write: optPrice,
    })
    .nullish()
    .catch(null),
  top_provider: z.looseObject({ max_completion_tokens: optNumber }).nullish().catch(null),
  supported_parameters: z.array(z.string()).nullish().catch(null),
  architecture: z
    .looseObject({ input_modalities: z.array(z.string()).nullish().catch(null) })
    .nullish()
    .catch(null),
  // Groq
  context_window: optNumber,
  max_completion_tokens: optNumber,
  // Mistral
  max_context_length: optNumber,
  capabilities: z.looseObject({ function_calling: optBoolean, vision: optBoolean }).nullish().catch(null),
});

/** Gemini's native `GET v1beta/models` entry, accepted in case a base URL points there. */
const GeminiModelSchema = z.looseObject({
  name: z.string().min(1),
  displayName: optString,
  inputTokenLimit: optNumber,
  outputTokenLimit: optNumber,
  supportedGenerationMethods: z.array(z.string()).nullish().catch(null),
  thinking: optBoolean,
});

const OpenAIListSchema = z.union([
  z.looseObject({ data: z.array(z.unknown()) }),
  z.looseObject({ models: z.array(z.unknown()) }),
  z.array(z.unknown()),
]);

/** `GET {root}/v1/models` of Anthropic. */
const AnthropicPageSchema = z.looseObject({
  data: z.array(z.unknown()),
  has_more: z.boolean().nullish(),
  last_id: z.string().nullish(),
});
const AnthropicModelSchema = z.looseObject({
  id: z.string().min(1),
  display_name: optString,
  created_at: optString,
  max_input_tokens: optNumber,
  max_tokens: optNumber,
  capabilities: z
    .looseObject({
      thinking: z.looseObject({ supported: optBoolean }).nullish().catch(null),
      image_input: z.looseObject({ supported: optBoolean }).nullish().catch(null),
    })
    .nullish()
    .catch(null),
});

/** `GET {host}/api/tags` of Ollama. */
const OllamaTagsSchema = z.looseObject({ models: z.array(z.unknown()) });
const OllamaModelSchema = z.looseObject({ name: z.string().min(1) });

/** Entries that fail their schema (no id) are skipped and counted. */
function entries<T>(schema: z.ZodType<T>, items: unknown[], skipped: { count: number }): T[] {
  const out: T[] = [];
  for (const item of items) {
    const result = schema.safeParse(item);
    if (result.success) out.push(result.data);
    else skipped.count++;
  }
  return out;
}

// --- Request headers ----------------------------------------------------------------------------------

/** The resolved provider's headers over ion's own, so a proxy's auth header can replace ours. */
function headersFor(provider: ResolvedProvider, own: Record<string, string>): Headers {
  const headers = new Headers(own);
  headers.set("accept", "application/json");
  for (const [name, value] of Object.entries(provider.headers)) headers.set(name, value);
  return headers;
}

function bearer(provider: ResolvedProvider): Record<string, string> {
  return provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {};
}

// --- Discovery ----------------------------------------------------------------------------------------

export interface Discovered {
  model: string;
  meta: Partial<ModelMeta>;
}

interface Discovery {
  models: Discovered[];
  skipped: number;
}

/** A price per token (OpenRouter's strings) → $ per 1M tokens; negative means "varies" (unknown). */
function perMillion(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined || value === "") return null;
  const n = typeof value === "string" ? Number(value) : value;
  if (!Number.isFinite(n) || n < 0) return null;
  return Number((n * 1e6).toPrecision(12));
}

function dateOf(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString().slice(0, 10);
}

/** Metadata as read from a list endpoint, where anything may be missing. */
type LooseMeta = { [K in keyof ModelMeta]?: ModelMeta[K] | null | undefined };

function compact(meta: LooseMeta): Partial<ModelMeta> {
  const out: Partial<ModelMeta> = {};
  for (const [key, value] of Object.entries(meta) as [keyof ModelMeta, ModelMeta[keyof ModelMeta]][]) {
    if (value !== null && value !== undefined) Object.assign(out, { [key]: value });
  }
  return out;
}

function fromOpenAI(entry: z.infer<typeof OpenAIModelSchema>, stripModelsPrefix: boolean): Discovered {
  const params = entry.supported_parameters;
  return {
    model: stripModelsPrefix ? entry.id.replace(/^models\//, "") : entry.id,
    meta: compact({
      // Mistral's `name` repeats the id; OpenRouter's is a display name.
      name: entry.name && entry.name !== entry.id ? entry.name : null,
      context: positive(entry.context_length ?? entry.context_window ?? entry.max_context_length),
      output: positive(entry.top_provider?.max_completion_tokens ?? entry.max_completion_tokens),
      input_cost: perMillion(entry.pricing?.prompt),
      output_cost: perMillion(entry.pricing?.completion),
      cache_read_cost: perMillion(entry.pricing?.input_cache_read),
      cache_write_cost: perMillion(entry.pricing?.input_cache_write),
      tool_call: params ? params.includes("tools") : (entry.capabilities?.function_calling ?? null),
      reasoning: params ? params.includes("reasoning") : null,
      // OpenRouter's input modalities; Mistral's vision capability.
      image_input: entry.architecture?.input_modalities
        ? entry.architecture.input_modalities.includes("image")
        : (entry.capabilities?.vision ?? null),
      release_date: dateOf(entry.created),
    }),
  };
}

function fromGemini(entry: z.infer<typeof GeminiModelSchema>): Discovered | undefined {
  const methods = entry.supportedGenerationMethods;
  // Embedding-only models cannot chat.
  if (methods && !methods.includes("generateContent")) return undefined;
  return {
    model: entry.name.replace(/^models\//, ""),
    meta: compact({
      name: entry.displayName,
      context: positive(entry.inputTokenLimit),
      output: positive(entry.outputTokenLimit),
      reasoning: entry.thinking,
    }),
  };
}

/** OpenAI-compatible `GET {baseURL}/models` (openai, google, groq, openrouter, user-defined servers). */
async function discoverOpenAI(fetchFn: typeof fetch, provider: ResolvedProvider): Promise<Discovery> {
  const url = `${provider.baseURL}/models`;
  const body = parse(
    OpenAIListSchema,
    await getJson(fetchFn, url, headersFor(provider, bearer(provider))),
    "model list",
  );
  const skipped = { count: 0 };
  let models: Discovered[];
  if (Array.isArray(body) || "data" in body) {
    const items = Array.isArray(body) ? body : (body as { data: unknown[] }).data;
    // Gemini's OpenAI endpoint lists `models/gemini-…`; its chat endpoint takes the bare id.
    const strip = provider.id === "google";
    models = entries(OpenAIModelSchema, items, skipped).map((e) => fromOpenAI(e, strip));
  } else {
    models = entries(GeminiModelSchema, body.models, skipped).flatMap((e) => fromGemini(e) ?? []);
  }
  return { models, skipped: skipped.count };
}

/** Mistral `GET {root}/v1/models`: the OpenAI list shape with Mistral's own fields. */
async function discoverMistral(fetchFn: typeof fetch, provider: ResolvedProvider): Promise<Discovery> {
  const url = `${provider.baseURL}/v1/models`;
  const body = parse(
    z.looseObject({ data: z.array(z.unknown()) }),
    await getJson(fetchFn, url, headersFor(provider, bearer(provider))),
    "model list",
  );
  const skipped = { count: 0 };
  const models = entries(OpenAIModelSchema, body.data, skipped).map((e) => fromOpenAI(e, false));
  return { models, skipped: skipped.count };
}

/** Anthropic `GET {root}/v1/models`, following `has_more` / `last_id`. */
async function discoverAnthropic(fetchFn: typeof fetch, provider: ResolvedProvider): Promise<Discovery> {
  const headers = headersFor(provider, {
    ...(provider.apiKey ? { "x-api-key": provider.apiKey } : {}),
    "anthropic-version": ANTHROPIC_VERSION,
  });
  const skipped = { count: 0 };
  const models: Discovered[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = after === undefined ? "" : `&after_id=${encodeURIComponent(after)}`;
    const url = `${provider.baseURL}/v1/models?limit=1000${query}`;
    const body = parse(AnthropicPageSchema, await getJson(fetchFn, url, headers), "model list");
    for (const entry of entries(AnthropicModelSchema, body.data, skipped)) {
      models.push({
        model: entry.id,
        meta: compact({
          name: entry.display_name,
          context: positive(entry.max_input_tokens),
          output: positive(entry.max_tokens),
          reasoning: entry.capabilities?.thinking?.supported ?? null,
          image_input: entry.capabilities?.image_input?.supported ?? null,
          release_date: dateOf(entry.created_at),
        }),
      });
    }
    if (!body.has_more || !body.last_id || body.last_id === after) break;
    after = body.last_id;
  }
  return { models, skipped: skipped.count };
}

/** Ollama `GET {host}/api/tags`; the host is the resolved base URL without `/v1`. */
async function discoverOllama(fetchFn: typeof fetch, provider: ResolvedProvider): Promise<Discovery> {
  const host = provider.baseURL.replace(/\/v1\/?$/, "");
  const body = parse(
    OllamaTagsSchema,
    await getJson(fetchFn, `${host}/api/tags`, headersFor(provider, bearer(provider))),
    "tags",
  );
  const skipped = { count: 0 };
  const models = entries(OllamaModelSchema, body.models, skipped).map((e) => ({ model: e.name, meta: {} }));
  return { models, skipped: skipped.count };
}

export function discover(fetchFn: typeof fetch, provider: ResolvedProvider): Promise<Discovery> {
  if (provider.id === "ollama") return discoverOllama(fetchFn, provider);
  if (provider.wire === "anthropic") return discoverAnthropic(fetchFn, provider);
  if (provider.wire === "mistral") return discoverMistral(fetchFn, provider);
  return discoverOpenAI(fetchFn, provider);
}
