/**
 * The network side of the model catalogue: each configured provider's model list endpoint and
 * models.dev, fetched in parallel, validated with zod, merged into `ModelInfo` entries. Imported lazily
 * by `catalog.ts` so reading the cache never loads this module.
 *
 * Metadata precedence per field: models.dev › what the provider's own list says (Anthropic's token limits,
 * OpenRouter's prices, Groq's and Mistral's context windows…) › the previous cache (only when models.dev
 * could not be fetched) › null.
 */
import { z } from "zod";
import { formatPath } from "../config/schema.ts";
import { type CatalogTarget, type ModelInfo, type ModelMeta, stripDateSuffix } from "./catalog.ts";
import { builtinProvider } from "./registry.ts";
import type { ResolvedProvider } from "./types.ts";

/** Per request; the providers and models.dev are asked in parallel, so this bounds the whole fetch. */
export const FETCH_TIMEOUT_MS = 10_000;
export const ANTHROPIC_VERSION = "2023-06-01";
/** Anthropic pages at most this many times (1000 models a page), in case a server keeps saying has_more. */
const MAX_PAGES = 20;

export interface FetchCatalogInput {
  targets: CatalogTarget[];
  /** Built-in provider ids to list from models.dev as not configured. */
  unconfigured: string[];
  modelsURL: string;
  /** The models of the previous cache, for fallbacks when a source fails. */
  previous: ModelInfo[];
  fetch: typeof fetch;
  /** Provider ids in display order. */
  order: string[];
}

export interface BuiltCatalog {
  models: ModelInfo[];
  warnings: string[];
  /** One line per source that failed, without what was used instead (for the offline message). */
  failures: string[];
  /** Every source answered. */
  complete: boolean;
  /** At least one source answered; false means "offline". */
  anythingFetched: boolean;
}

/** A source failed in an expected way (network, HTTP status, response shape): a warning, not a crash. */
export class SourceError extends Error {
  override name = "SourceError";
}

/** The server answered with an error status. */
class HttpError extends SourceError {
  constructor(
    readonly status: number,
    statusText: string,
  ) {
    super(`HTTP ${status}${statusText ? ` ${statusText}` : ""}`);
  }
}

type Settled<T> = { ok: true; value: T } | { ok: false; reason: string; status?: number };

async function settle<T>(work: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await work };
  } catch (err) {
    if (err instanceof HttpError) return { ok: false, reason: err.message, status: err.status };
    if (err instanceof SourceError) return { ok: false, reason: err.message };
    throw err;
  }
}

// --- Response schemas --------------------------------------------------------------------------------
// Only an entry's id is required; every metadata field falls back to null when it has an unexpected
// type, so one odd field never loses a model, and unknown fields are kept out of the way (looseObject).

const optNumber = z.number().nullish().catch(null);
const optBoolean = z.boolean().nullish().catch(null);
const optString = z.string().nullish().catch(null);
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
  // Groq
  context_window: optNumber,
  max_completion_tokens: optNumber,
  // Mistral
  max_context_length: optNumber,
  capabilities: z.looseObject({ function_calling: optBoolean }).nullish().catch(null),
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
    .looseObject({ thinking: z.looseObject({ supported: optBoolean }).nullish().catch(null) })
    .nullish()
    .catch(null),
});

/** `GET {host}/api/tags` of Ollama. */
const OllamaTagsSchema = z.looseObject({ models: z.array(z.unknown()) });
const OllamaModelSchema = z.looseObject({ name: z.string().min(1) });

/** models.dev `api.json`: `{<providerID>: {id, name, models: {<modelID>: {...}}}}`. */
const ModelsDevRootSchema = z.record(z.string(), z.unknown());
const ModelsDevProviderSchema = z.looseObject({ models: z.record(z.string(), z.unknown()) });
const ModelsDevModelSchema = z.looseObject({
  name: optString,
  reasoning: optBoolean,
  tool_call: optBoolean,
  release_date: optString,
  status: optString,
  limit: z.looseObject({ context: optNumber, output: optNumber }).nullish().catch(null),
  cost: z
    .looseObject({ input: optNumber, output: optNumber, cache_read: optNumber, cache_write: optNumber })
    .nullish()
    .catch(null),
  aliases: z.array(z.string()).nullish().catch(null),
});

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue ? `${formatPath(issue.path)}: ${issue.message}` : "invalid";
  throw new SourceError(`unexpected ${what} response (${where})`);
}

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

// --- HTTP ---------------------------------------------------------------------------------------------

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

function networkReason(err: unknown, url: string): string {
  if (err instanceof Error && err.name === "TimeoutError")
    return `no answer from ${hostOf(url)} within ${FETCH_TIMEOUT_MS / 1000} s`;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code) return `cannot reach ${hostOf(url)} (${code})`;
  return `cannot reach ${hostOf(url)}: ${err instanceof Error ? err.message : String(err)}`;
}

async function getJson(fetchFn: typeof fetch, url: string, headers: Headers): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchFn(url, { headers, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw new SourceError(networkReason(err, url));
  }
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    throw new SourceError(networkReason(err, url));
  }
  // The body of an error is not shown: some providers echo part of the key in it.
  if (!response.ok) throw new HttpError(response.status, response.statusText);
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new SourceError(`the response from ${hostOf(url)} is not JSON`);
  }
}

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

function positive(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;
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

// --- models.dev ---------------------------------------------------------------------------------------

interface DevEntry {
  id: string;
  meta: ModelMeta;
  deprecated: boolean;
}

/** One models.dev provider's models, by id and by alias. */
export interface DevProvider {
  byId: Map<string, DevEntry>;
  byAlias: Map<string, DevEntry>;
}

export type DevIndex = Map<string, DevProvider>;

function devEntry(id: string, m: z.infer<typeof ModelsDevModelSchema>): DevEntry {
  return {
    id,
    deprecated: m.status === "deprecated",
    meta: {
      name: m.name ?? id,
      context: positive(m.limit?.context),
      output: positive(m.limit?.output),
      input_cost: m.cost?.input ?? null,
      output_cost: m.cost?.output ?? null,
      cache_read_cost: m.cost?.cache_read ?? null,
      cache_write_cost: m.cost?.cache_write ?? null,
      tool_call: m.tool_call ?? null,
      reasoning: m.reasoning ?? null,
      release_date: m.release_date ?? null,
    },
  };
}

/** Fetches models.dev and indexes the providers in `wanted` (models.dev ids); others are not parsed. */
export async function fetchModelsDev(
  fetchFn: typeof fetch,
  url: string,
  wanted: Set<string>,
): Promise<DevIndex> {
  const root = parse(ModelsDevRootSchema, await getJson(fetchFn, url, new Headers()), "models.dev");
  return indexModelsDev(root, wanted);
}

export function indexModelsDev(root: Record<string, unknown>, wanted: Set<string>): DevIndex {
  const index: DevIndex = new Map();
  for (const devId of wanted) {
    const provider = ModelsDevProviderSchema.safeParse(root[devId]);
    if (!provider.success) continue;
    const byId = new Map<string, DevEntry>();
    const byAlias = new Map<string, DevEntry>();
    for (const [id, raw] of Object.entries(provider.data.models)) {
      const model = ModelsDevModelSchema.safeParse(raw);
      if (!model.success) continue;
      const entry = devEntry(id, model.data);
      byId.set(id, entry);
      for (const alias of model.data.aliases ?? []) if (!byAlias.has(alias)) byAlias.set(alias, entry);
    }
    index.set(devId, { byId, byAlias });
  }
  return index;
}

/** Exact id › id without a date suffix (`-20250929`) › one of models.dev's aliases. */
export function lookupDev(provider: DevProvider | undefined, model: string): DevEntry | undefined {
  if (!provider) return undefined;
  const undated = stripDateSuffix(model);
  return (
    provider.byId.get(model) ??
    provider.byId.get(undated) ??
    provider.byAlias.get(model) ??
    provider.byAlias.get(undated)
  );
}

// --- Assembly -----------------------------------------------------------------------------------------

const META_KEYS = [
  "context",
  "output",
  "input_cost",
  "output_cost",
  "cache_read_cost",
  "cache_write_cost",
  "tool_call",
  "reasoning",
  "release_date",
] as const satisfies readonly (keyof ModelMeta)[];

function modelInfo(
  provider: string,
  model: string,
  configured: boolean,
  layers: (Partial<ModelMeta> | undefined)[],
): ModelInfo {
  const pick = <K extends keyof ModelMeta>(key: K): ModelMeta[K] | null => {
    for (const layer of layers) {
      const value = layer?.[key];
      if (value !== null && value !== undefined) return value;
    }
    return null;
  };
  const info: ModelInfo = {
    id: `${provider}/${model}`,
    provider,
    model,
    name: pick("name") ?? model,
    context: null,
    output: null,
    input_cost: null,
    output_cost: null,
    cache_read_cost: null,
    cache_write_cost: null,
    tool_call: null,
    reasoning: null,
    release_date: null,
    configured,
  };
  for (const key of META_KEYS) Object.assign(info, { [key]: pick(key) });
  return info;
}

function scrub(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join("***") : text;
}

function devIdOf(providerId: string): string | undefined {
  return builtinProvider(providerId)?.modelsDevId;
}

/** Asks every source in parallel and assembles the list; see BuiltCatalog. */
export async function fetchCatalog(input: FetchCatalogInput): Promise<BuiltCatalog> {
  const { targets, previous } = input;
  const wanted = new Set<string>();
  for (const id of [...targets.map((t) => t.provider.id), ...input.unconfigured]) {
    const devId = devIdOf(id);
    if (devId) wanted.add(devId);
  }
  const [dev, ...found] = await Promise.all([
    settle(fetchModelsDev(input.fetch, input.modelsURL, wanted)),
    ...targets.map((t) => settle(discover(input.fetch, t.provider))),
  ]);

  const warnings: string[] = [];
  const failures: string[] = [];
  const models: ModelInfo[] = [];
  const previousOf = (provider: string) => previous.filter((m) => m.provider === provider);
  const previousMeta = new Map(previous.map((m) => [m.id, m]));

  if (!dev.ok) {
    failures.push(`models.dev: ${dev.reason}`);
    warnings.push(
      `models.dev: ${dev.reason}; ${previous.length > 0 ? "using cached model metadata" : "prices and context windows are unknown"}`,
    );
  }
  const devProvider = (id: string): DevProvider | undefined => {
    const devId = devIdOf(id);
    return dev.ok && devId ? dev.value.get(devId) : undefined;
  };

  targets.forEach((target, i) => {
    const { provider } = target;
    const result = found[i]!;
    const devModels = devProvider(provider.id);
    const layersFor = (model: string, discovered?: Partial<ModelMeta>) => [
      lookupDev(devModels, model)?.meta,
      discovered,
      dev.ok ? undefined : previousMeta.get(`${provider.id}/${model}`),
    ];
    const listed = new Set<string>();
    const add = (model: string, discovered?: Partial<ModelMeta>) => {
      if (listed.has(model)) return;
      listed.add(model);
      models.push(modelInfo(provider.id, model, true, layersFor(model, discovered)));
    };

    if (result.ok) {
      for (const d of result.value.models) add(d.model, d.meta);
      if (result.value.skipped > 0)
        warnings.push(
          `${provider.name} (${provider.id}): skipped ${result.value.skipped} malformed model entries`,
        );
    } else {
      const auth = result.status === 401 || result.status === 403;
      const keyNote = auth ? ` (check the key from ${provider.keySource})` : "";
      const failure = scrub(
        `${provider.name} (${provider.id}): could not list models: ${result.reason}${keyNote}`,
        provider.apiKey,
      );
      failures.push(failure);
      const cached = previousOf(provider.id);
      if (cached.length > 0) {
        for (const m of cached) add(m.model, m);
        warnings.push(`${failure}; showing the cached list`);
      } else if (devModels && devModels.byId.size > 0) {
        for (const entry of devModels.byId.values()) if (!entry.deprecated) add(entry.id);
        warnings.push(`${failure}; showing models.dev's list`);
      } else warnings.push(failure);
    }
    for (const model of target.configModels) add(model);
  });

  for (const id of input.unconfigured) {
    const devModels = devProvider(id);
    if (devModels) {
      for (const entry of devModels.byId.values()) {
        if (!entry.deprecated) models.push(modelInfo(id, entry.id, false, [entry.meta]));
      }
    } else if (!dev.ok) {
      for (const m of previousOf(id)) models.push({ ...m, configured: false });
    }
  }

  const rank = (provider: string) => {
    const at = input.order.indexOf(provider);
    return at < 0 ? input.order.length : at;
  };
  models.sort(
    (a, b) =>
      Number(b.configured) - Number(a.configured) ||
      rank(a.provider) - rank(b.provider) ||
      (a.model < b.model ? -1 : a.model > b.model ? 1 : 0),
  );

  return {
    models,
    warnings,
    failures,
    complete: dev.ok && found.every((r) => r.ok),
    anythingFetched: dev.ok || found.some((r) => r.ok),
  };
}
