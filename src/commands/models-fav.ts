import {
  type Catalog,
  configuredProviderIds,
  type LoadCatalogOptions,
  loadCatalog,
  type ModelInfo,
  searchModels,
} from "../catalog/catalog.ts";
import { resolveFavorites, splitModelId, unlistedModel } from "../catalog/favorites.ts";
import { IonError } from "../errors.ts";
import type { FdWriter } from "../util/fd-writer.ts";
import { table, toItem } from "./models-list.ts";

export interface Favorites {
  /** The favourites in the user's order, each once: its catalogue entry, or a stand-in with facts unknown. */
  models: ModelInfo[];
  /** Ids of the favourites the catalogue does not list. */
  unlisted: Set<string>;
  warnings: string[];
}

/**
 * `ion models --fav`. The catalogue as `ion models` reads it (the cache while fresh, offline the cache
 * at any age); with no catalogue at all (no cache, no network) the favourites are still listed, with
 * the reason as a warning: they are the user's own list, not the catalogue's.
 */
export async function loadFavorites(options: LoadCatalogOptions): Promise<Favorites> {
  const { config, keys, env } = options;
  let catalog: Pick<Catalog, "models" | "warnings">;
  try {
    catalog = await loadCatalog(options);
  } catch (err) {
    if (!(err instanceof IonError) || err.code !== "provider") throw err;
    catalog = { models: [], warnings: [err.message] };
  }
  const configured = new Set(configuredProviderIds(config, keys, env));
  const seen = new Set<string>();
  const unlisted = new Set<string>();
  const models: ModelInfo[] = [];
  for (const { id, info } of resolveFavorites(catalog.models, config.favorites ?? [])) {
    const model = info ?? unlistedModel(id, configured.has(splitModelId(id).provider));
    if (seen.has(model.id)) continue;
    seen.add(model.id);
    if (!info) unlisted.add(model.id);
    models.push(model);
  }
  return { models, unlisted, warnings: catalog.warnings };
}

/** `ion models --fav [QUERY] [--provider P] [--json]`: only the favourites, in the user's order (or best match first). */
export async function listFavorites(o: {
  options: LoadCatalogOptions;
  provider: string | undefined;
  query: string;
  json: boolean;
  stdout: FdWriter;
  stderr: FdWriter;
}): Promise<void> {
  const { stdout, stderr, provider, query } = o;
  // No favourites: nothing to look up, so no catalogue (and no network) either.
  const favorites =
    (o.options.config.favorites ?? []).length === 0 ? undefined : await loadFavorites(o.options);
  for (const warning of favorites?.warnings ?? []) stderr.write(`ion: warning: ${warning}\n`);
  const pool = (favorites?.models ?? []).filter((m) => provider === undefined || m.provider === provider);
  const shown = query === "" ? pool : searchModels(pool, query);
  if (o.json) stdout.write(`${JSON.stringify(shown.map(toItem), null, 2)}\n`);
  else if (shown.length > 0) stdout.write(table(shown, new Set(shown.map((m) => m.id)), favorites?.unlisted));
  else if (favorites === undefined)
    stderr.write(
      "no favourites yet: `ion config set favorites '[\"provider/model\"]'`, or /model star in a chat\n",
    );
  else {
    const what = query === "" ? "no favourites" : `no favourites match "${query}"`;
    stderr.write(`${what}${provider === undefined ? "" : ` for ${provider}`}\n`);
  }
}
