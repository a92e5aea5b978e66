/**
 * models.dev: fetching `api.json`, validating it with zod, and indexing the wanted providers' models by id
 * and alias so each listed model can be given models.dev's metadata. Loaded only through
 * `sources.ts`.
 */
import { z } from "zod";
import { builtinProvider } from "../providers/registry.ts";
import { type ModelMeta, stripDateSuffix } from "./catalog.ts";
import { getJson, optBoolean, optNumber, optString, parse, positive } from "./fetch.ts";

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
  modalities: z
    .looseObject({ input: z.array(z.string()).nullish().catch(null) })
    .nullish()
    .catch(null),
});

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
      image_input: m.modalities?.input ? m.modalities.input.includes("image") : null,
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

function indexModelsDev(root: Record<string, unknown>, wanted: Set<string>): DevIndex {
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

/** The models.dev id of a built-in provider; user-defined providers have none. */
export function devIdOf(providerId: string): string | undefined {
  return builtinProvider(providerId)?.modelsDevId;
}
