import { cachedCatalogSync } from "../catalog/catalog.ts";
import type { Word } from "./words.ts";

/**
 * `provider/model` ids from the catalogue's cache, at any age (a stale list beats none, and a Tab
 * press never fetches): the configured providers' models, or every model when none is configured.
 */
export function modelWords(prefix: string, env: Record<string, string | undefined>): Word[] {
  const catalog = cachedCatalogSync(env);
  if (!catalog) return [];
  const configured = catalog.models.filter((m) => m.configured);
  const models = configured.length > 0 ? configured : catalog.models;
  return models
    .filter((m) => m.id.startsWith(prefix))
    .map((m) => ({ value: m.id, description: m.name === m.model ? "" : m.name }));
}
