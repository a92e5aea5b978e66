/**
 * Favourites (config `favorites`, `provider/model` ids): matched against the catalogue as `-m` is
 * (`findModel`: a dated snapshot and its undated name are one model), starred in `ion models`, listed
 * first in the chat's `/model` picker and completion, and alone with `ion models --fav`.
 */
import { findModel, type ModelInfo } from "./catalog.ts";

/** `openrouter/anthropic/claude` → provider `openrouter`, model `anthropic/claude`. */
export function splitModelId(id: string): { provider: string; model: string } {
  const slash = id.indexOf("/");
  return { provider: id.slice(0, slash), model: id.slice(slash + 1) };
}

/** Each favourite with its catalogue entry (undefined when the catalogue does not list it), in the user's order. */
export function resolveFavorites(
  models: ModelInfo[],
  favorites: readonly string[],
): Array<{ id: string; info: ModelInfo | undefined }> {
  return favorites.map((id) => {
    const { provider, model } = splitModelId(id);
    return { id, info: findModel({ models }, provider, model) };
  });
}

/** The catalogue ids of the favourites it lists (what gets the star). */
export function favoriteIds(models: ModelInfo[], favorites: readonly string[] | undefined): Set<string> {
  const ids = new Set<string>();
  if (!favorites?.length) return ids;
  for (const { info } of resolveFavorites(models, favorites)) if (info) ids.add(info.id);
  return ids;
}

/** The same models with the favourites first, in the user's order; the rest keep theirs. */
export function favoritesFirst(models: ModelInfo[], favorites: readonly string[] | undefined): ModelInfo[] {
  if (!favorites?.length) return models;
  const first = resolveFavorites(models, favorites).flatMap(({ info }) => (info ? [info] : []));
  const starred = new Set(first);
  return [...new Set(first), ...models.filter((m) => !starred.has(m))];
}

/** A favourite the catalogue does not list: shown with every fact unknown, never dropped. */
export function unlistedModel(id: string, configured: boolean): ModelInfo {
  const { provider, model } = splitModelId(id);
  return {
    id,
    provider,
    model,
    name: model,
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
}
