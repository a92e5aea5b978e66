/**
 * The network side of the model catalogue: each configured provider's model list endpoint and
 * models.dev, fetched in parallel, validated with zod, merged into `ModelInfo` entries. Imported lazily
 * by `catalog.ts` so reading the cache never loads this module, nor the ones only it (and they) import:
 * `lists.ts` (the providers' list endpoints), `modelsdev.ts` (models.dev) and
 * `fetch.ts` (JSON over HTTP, source errors, schema helpers).
 *
 * Metadata precedence per field: models.dev › what the provider's own list says (Anthropic's token limits,
 * OpenRouter's prices, Groq's and Mistral's context windows…) › the previous cache (only when models.dev
 * could not be fetched) › null.
 */
import type { CatalogTarget, ModelInfo, ModelMeta } from "./catalog.ts";
import { settle } from "./fetch.ts";
import { discover } from "./lists.ts";
import { type DevProvider, devIdOf, fetchModelsDev, lookupDev } from "./modelsdev.ts";

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
  /** Provider ids whose own model list endpoint answered (their list is theirs, not a fallback). */
  listed: string[];
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
  "image_input",
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
    image_input: null,
    release_date: null,
    configured,
  };
  for (const key of META_KEYS) Object.assign(info, { [key]: pick(key) });
  return info;
}

function scrub(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join("***") : text;
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
    listed: targets.filter((_, i) => found[i]?.ok).map((t) => t.provider.id),
  };
}
