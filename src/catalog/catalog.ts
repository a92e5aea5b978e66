/**
 * The model catalogue: which models each provider offers, with models.dev metadata (context window,
 * max output, $/1M prices, capabilities), cached in `<cacheDir>/models.json`.
 *
 * Reading the cache (`cachedCatalog`, and `loadCatalog` while the cache is fresh) touches one file and
 * never imports the network code: `sources.ts` (the merge, over `lists.ts` for the
 * providers' endpoints and `modelsdev.ts` for models.dev) is imported only when a fetch is needed.
 *
 * Cache file (`version` 1): `{version, fetched_at, key, configured, complete, endpoints, models}` where
 * `key` fingerprints what was configured when it was written (provider ids, base URLs and key sources,
 * config model lists and the models.dev URL), `configured` lists those provider ids for humans,
 * `complete` is false when some source failed (such a cache expires after 1 h instead of 24 h, so the gap
 * is retried soon), and `endpoints` says, per provider whose own list endpoint answered, where that list
 * came from (`endpointOf`): a run checks a model id only against a list from the endpoint it will call.
 */
import { readFileSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import Fuse, { type IFuseOptions } from "fuse.js";
import { cacheDir, type Env } from "../config/paths.ts";
import { knownProviderIds, resolveProvider, selectedProviderId } from "../config/resolve.ts";
import type { Config, Keys } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import { BUILTIN_PROVIDERS, builtinProvider } from "../providers/registry.ts";
import type { ResolvedProvider } from "../providers/types.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";

export interface ModelInfo {
  /** "provider/model": exactly what -m accepts. */
  id: string;
  provider: string;
  /** The id sent to the provider (may itself contain `/`, e.g. OpenRouter's). */
  model: string;
  name: string;
  /** Context window in tokens. */
  context: number | null;
  /** Maximum output tokens. */
  output: number | null;
  /** $ per 1M tokens. */
  input_cost: number | null;
  output_cost: number | null;
  cache_read_cost: number | null;
  cache_write_cost: number | null;
  tool_call: boolean | null;
  reasoning: boolean | null;
  /** Reads images (models.dev `modalities.input`, or the provider's list); absent in older caches. */
  image_input?: boolean | null;
  /** YYYY-MM-DD (models.dev's format) when known. */
  release_date: string | null;
  /** The provider has a key (or needs none and is configured, e.g. ollama via OLLAMA_HOST or config). */
  configured: boolean;
}

export interface Catalog {
  models: ModelInfo[];
  /** ISO time the list was fetched. */
  fetched_at: string;
  age_ms: number;
  from_cache: boolean;
  /** Older than its TTL (served offline, or from `cachedCatalog`). */
  stale: boolean;
  /** One line each, ready to show; never contains a key. */
  warnings: string[];
  /**
   * Provider id → the endpoint (`endpointOf`) its own model list was fetched from. A provider missing
   * here has no list of its own in the catalogue (only models.dev's, an older cache's, or none).
   */
  listedFrom?: Record<string, string>;
}

const CACHE_VERSION = 1;
const CACHE_TTL_MS = 24 * 60 * 60 * 1000;
/** TTL of a cache written while some source failed. */
const PARTIAL_CACHE_TTL_MS = 60 * 60 * 1000;
const DEFAULT_MODELS_URL = "https://models.dev/api.json";

/** The metadata fields of a ModelInfo (everything but identity and `configured`). */
export type ModelMeta = Omit<ModelInfo, "id" | "provider" | "model" | "configured">;

/** A configured provider the catalogue asks for its models. */
export interface CatalogTarget {
  provider: ResolvedProvider;
  /** `providers.<id>.models` from config: listed even when discovery does not return them. */
  configModels: string[];
}

export interface CacheFile {
  version: number;
  fetched_at: string;
  key: string;
  configured: string[];
  complete: boolean;
  /** See `Catalog.listedFrom`; absent in caches written before it existed. */
  endpoints?: Record<string, string>;
  models: ModelInfo[];
}

export interface LoadCatalogOptions {
  config: Config;
  keys: Keys;
  env: Env;
  /** Fetch even when the cache is fresh (`ion models --refresh`). */
  refresh?: boolean;
  now?: Date;
  fetch?: typeof fetch;
}

export function cacheFile(env: Env): string {
  return join(cacheDir(env), "models.json");
}

/**
 * Where a provider's model list comes from: its base URL (without credentials) and which key was used —
 * a gateway or another key may offer other models under the same provider id.
 */
export function endpointOf(provider: ResolvedProvider): string {
  return `${publicURL(provider.baseURL)} ${provider.keySource}`;
}

export function modelsURL(env: Env): string {
  const value = env.ION_MODELS_URL?.trim();
  return value ? value : DEFAULT_MODELS_URL;
}

/**
 * Network when the cache is missing/expired (24 h TTL), was written for another set of configured
 * providers, or `refresh` is set; offline → the cache (even expired) with its age in `warnings`; no
 * cache and offline → IonError("provider"). A failing provider or models.dev is a warning, not fatal.
 */
export async function loadCatalog(options: LoadCatalogOptions): Promise<Catalog> {
  const { config, keys, env } = options;
  const now = options.now ?? new Date();
  const warnings: string[] = [];
  const targets = configuredTargets(config, keys, env, warnings);
  const url = modelsURL(env);
  const key = fingerprint(targets, url);
  const file = cacheFile(env);

  const read = await readCache(file);
  let cached: CacheFile | undefined;
  if (read.kind === "ok") cached = read.cache;
  else if (read.kind === "corrupt") warnings.push(`ignored the model cache ${file}: ${read.reason}`);

  if (cached && !options.refresh && cached.key === key && ageOf(cached, now) <= ttlOf(cached)) {
    return { ...toCatalog(cached, now), warnings };
  }

  const sources = await import("./sources.ts");
  const built = await sources.fetchCatalog({
    targets,
    unconfigured: unconfiguredProviders(targets),
    modelsURL: url,
    previous: cached?.models ?? [],
    fetch: options.fetch ?? fetch,
    order: knownProviderIds(config),
  });

  if (!built.anythingFetched) {
    const reasons = built.failures.join("; ");
    if (!cached) {
      throw new IonError(
        "provider",
        `cannot fetch the model catalogue and there is no cached copy: ${reasons}`,
        {
          hint: "check the network connection, then run `ion models --refresh`",
        },
      );
    }
    const configuredIds = new Set(targets.map((t) => t.provider.id));
    const catalog = toCatalog(cached, now);
    catalog.models = catalog.models.map((m) => ({ ...m, configured: configuredIds.has(m.provider) }));
    catalog.stale = catalog.stale || cached.key !== key;
    catalog.warnings = [
      ...warnings,
      `using the model list cached ${formatAge(catalog.age_ms)} ago (offline?)`,
      ...built.failures,
    ];
    return catalog;
  }

  const listed = new Set(built.listed);
  const fresh: CacheFile = {
    version: CACHE_VERSION,
    fetched_at: now.toISOString(),
    key,
    configured: targets.map((t) => t.provider.id),
    complete: built.complete,
    endpoints: Object.fromEntries(
      targets.filter((t) => listed.has(t.provider.id)).map((t) => [t.provider.id, endpointOf(t.provider)]),
    ),
    models: built.models,
  };
  warnings.push(...built.warnings);
  try {
    await writeCache(file, fresh);
  } catch (err) {
    // Not fatal: the list was fetched; the next run fetches again.
    if (!(err instanceof IonError)) throw err;
    warnings.push(`could not save the model list: ${err.message}`);
  }
  return {
    models: fresh.models,
    fetched_at: fresh.fetched_at,
    age_ms: 0,
    from_cache: false,
    stale: false,
    warnings,
    listedFrom: fresh.endpoints ?? {},
  };
}

/**
 * The cached catalogue without the network (for `ion run`: cost, context window, model validation);
 * undefined when there is no cache or it is unreadable as a catalogue. Reads and parses one file and
 * checks its shape lightly (not entry by entry) so it stays fast. Other read errors (e.g. permissions)
 * throw IonError("io").
 */
export async function cachedCatalog(env: Env): Promise<Catalog | undefined> {
  const read = await readCache(cacheFile(env));
  return read.kind === "ok" ? toCatalog(read.cache, new Date()) : undefined;
}

/** `cachedCatalog`, read synchronously (the cache is one local file). */
export function cachedCatalogSync(env: Env): Catalog | undefined {
  const read = readCacheSync(cacheFile(env));
  return read.kind === "ok" ? toCatalog(read.cache, new Date()) : undefined;
}

/**
 * A model of `provider` by the id sent to it. Besides the exact id, an alias form matches: a dated
 * snapshot and its undated name (`claude-sonnet-4-5` ↔ `claude-sonnet-4-5-20250929`), Ollama's
 * `:latest` tag and Gemini's `models/` prefix; among several matches the newest dated one wins.
 */
export function findModel(
  catalog: Pick<Catalog, "models">,
  provider: string,
  model: string,
): ModelInfo | undefined {
  const own = catalog.models.filter((m) => m.provider === provider);
  const exact = own.find((m) => m.model === model);
  if (exact) return exact;
  const wanted = canonicalModelId(model);
  const matches = own.filter((m) => canonicalModelId(m.model) === wanted);
  if (matches.length === 0) return undefined;
  return matches.reduce((best, m) => (m.model > best.model ? m : best));
}

/** Strips what makes two ids name the same model: a date suffix, `:latest`, Gemini's `models/`. */
function canonicalModelId(model: string): string {
  return stripDateSuffix(model.replace(/^models\//, "").replace(/:latest$/, "")).toLowerCase();
}

/** `claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`; `gpt-4o-2024-08-06` → `gpt-4o`. */
export function stripDateSuffix(model: string): string {
  return model.replace(/-(?:20\d{6}|20\d{2}-\d{2}-\d{2})$/, "");
}

const SEARCH_OPTIONS: IFuseOptions<ModelInfo> = {
  keys: ["id", "name"],
  threshold: 0.4,
  ignoreLocation: true,
};

/** Fuzzy search (fuse.js) over id and name, best match first; an empty query returns every model. */
export function searchModels(models: ModelInfo[], query: string): ModelInfo[] {
  const text = query.trim();
  if (text === "") return models.slice();
  return new Fuse(models, SEARCH_OPTIONS).search(text).map((r) => r.item);
}

/** For "did you mean": up to `n` closest full ids (`provider/model`) among that provider's models. */
export function suggestModels(catalog: Catalog, provider: string, model: string, n = 3): string[] {
  const own = catalog.models.filter((m) => m.provider === provider);
  const fuse = new Fuse(own, { keys: ["model", "name"], threshold: 0.5, ignoreLocation: true });
  return fuse
    .search(model)
    .slice(0, n)
    .map((r) => r.item.id);
}

/** "less than a minute", "12 min", "3 h", "4 days". */
export function formatAge(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "less than a minute";
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} days`;
}

// ---------------------------------------------------------------------------------------------------

/** Whether a resolved provider counts as configured: a key, or a keyless provider the user pointed ion at. */
function isConfigured(config: Config, provider: ResolvedProvider, env: Env): boolean {
  if (provider.apiKey !== undefined) return true;
  const builtin = builtinProvider(provider.id);
  // A provider the user defined under `providers` is configured by being there (local servers need no key).
  if (!builtin) return true;
  if (builtin.needsKey) return false;
  const fromEnv = builtin.baseURLEnv ? env[builtin.baseURLEnv]?.trim() : undefined;
  return (
    Boolean(fromEnv) ||
    config.providers?.[provider.id] !== undefined ||
    selectedProviderId(config) === provider.id
  );
}

function configuredTargets(config: Config, keys: Keys, env: Env, warnings: string[]): CatalogTarget[] {
  const targets: CatalogTarget[] = [];
  for (const id of knownProviderIds(config)) {
    let provider: ResolvedProvider;
    try {
      provider = resolveProvider(config, id, env, keys);
    } catch (err) {
      if (!(err instanceof IonError)) throw err;
      warnings.push(`${id}: not listed (${err.message})`);
      continue;
    }
    if (!isConfigured(config, provider, env)) continue;
    targets.push({ provider, configModels: config.providers?.[id]?.models ?? [] });
  }
  return targets;
}

/** The ids of the providers that count as configured (a key, or a keyless one the user pointed ion at). */
export function configuredProviderIds(config: Config, keys: Keys, env: Env): string[] {
  return configuredTargets(config, keys, env, []).map((t) => t.provider.id);
}

/** Built-in providers known to models.dev that are not configured: listed from models.dev alone. */
function unconfiguredProviders(targets: CatalogTarget[]): string[] {
  const configured = new Set(targets.map((t) => t.provider.id));
  return BUILTIN_PROVIDERS.filter((p) => p.modelsDevId && !configured.has(p.id)).map((p) => p.id);
}

/** Base URL without credentials, query or fragment (the fingerprint must not hold secrets). */
function publicURL(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function fingerprint(targets: CatalogTarget[], url: string): string {
  const lines = targets.map((t) => `${t.provider.id} ${endpointOf(t.provider)} ${t.configModels.join(",")}`);
  lines.sort();
  lines.push(`models.dev ${publicURL(url)}`);
  // Bun.hash (wyhash) rather than node:crypto, whose import alone costs ~3 ms of start-up.
  return Bun.hash(lines.join("\n")).toString(16);
}

type CacheRead = { kind: "ok"; cache: CacheFile } | { kind: "missing" } | { kind: "corrupt"; reason: string };

async function readCache(file: string): Promise<CacheRead> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    return unreadCache(file, err);
  }
  return parseCache(text);
}

/** `readCache` for a caller that cannot wait: a price looked up again at the end of a run. */
function readCacheSync(file: string): CacheRead {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return unreadCache(file, err);
  }
  return parseCache(text);
}

function unreadCache(file: string, err: unknown): CacheRead {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
  throw new IonError("io", `${file}: cannot read (${code ?? String(err)})`, { cause: err });
}

function parseCache(text: string): CacheRead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return { kind: "corrupt", reason: "not valid JSON" };
  }
  // A light check: the version and the top-level fields, not every entry (thousands of them).
  if (typeof value !== "object" || value === null) return { kind: "corrupt", reason: "not an object" };
  const cache = value as Partial<CacheFile>;
  if (cache.version !== CACHE_VERSION)
    return { kind: "corrupt", reason: `unknown version ${String(cache.version)}` };
  if (typeof cache.fetched_at !== "string" || Number.isNaN(Date.parse(cache.fetched_at)))
    return { kind: "corrupt", reason: "no fetched_at time" };
  if (!Array.isArray(cache.models)) return { kind: "corrupt", reason: "no models list" };
  return {
    kind: "ok",
    cache: {
      version: cache.version,
      fetched_at: cache.fetched_at,
      key: typeof cache.key === "string" ? cache.key : "",
      configured: Array.isArray(cache.configured) ? cache.configured : [],
      complete: cache.complete === true,
      endpoints: endpointsOf(cache.endpoints),
      models: cache.models,
    },
  };
}

/** The cache's `endpoints` when it is a map of strings; anything else counts as none recorded. */
function endpointsOf(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

function ageOf(cache: CacheFile, now: Date): number {
  return Math.max(0, now.getTime() - Date.parse(cache.fetched_at));
}

function ttlOf(cache: CacheFile): number {
  return cache.complete ? CACHE_TTL_MS : PARTIAL_CACHE_TTL_MS;
}

function toCatalog(cache: CacheFile, now: Date): Catalog {
  const age = ageOf(cache, now);
  return {
    models: cache.models,
    fetched_at: cache.fetched_at,
    age_ms: age,
    from_cache: true,
    stale: age > ttlOf(cache),
    warnings: [],
    listedFrom: cache.endpoints ?? {},
  };
}

/** Atomic (temp file + rename); one model per line, so the file stays small and diffable. */
async function writeCache(file: string, cache: CacheFile): Promise<void> {
  const { models, ...head } = cache;
  const headText = JSON.stringify(head).slice(0, -1);
  const body = models.map((m) => JSON.stringify(m)).join(",\n");
  const text = `${headText},"models":[\n${body}\n]}\n`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomic(file, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    throw new IonError("io", `cannot write ${file} (${code ?? String(err)})`, { cause: err });
  }
}
