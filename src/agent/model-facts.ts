import type { Env } from "../config/paths.ts";
import { contextWindow } from "../config/resolve.ts";
import type { Config } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import { builtinProvider, defaultContextWindow } from "../providers/registry.ts";
import type { ResolvedProvider, Usage } from "../providers/types.ts";

export interface ModelFacts {
  contextWindow: number | undefined;
  price: (usage: Usage) => number | null;
}

/**
 * What the cached catalogue knows about the model — context window and prices — read from the cache
 * only (a run never waits on the network for it). An id the catalogue does not list for a provider it
 * has listed is refused with suggestions; custom openai-compatible providers are never checked.
 */
export async function modelFacts(
  config: Config,
  provider: ResolvedProvider,
  model: string,
  env: Env,
  fromFlag: boolean,
): Promise<ModelFacts> {
  const { cachedCatalog, findModel, suggestModels } = await import("../providers/catalog.ts");
  const { costOf } = await import("../providers/cost.ts");
  const catalog = await cachedCatalog(env);
  const info = catalog ? findModel(catalog, provider.id, model) : undefined;
  const listed = catalog?.models.some((m) => m.provider === provider.id && m.configured) ?? false;
  if (catalog && !info && listed && builtinProvider(provider.id)) {
    const suggestions = suggestModels(catalog, provider.id, model);
    throw new IonError(fromFlag ? "usage" : "config", `unknown model "${provider.id}/${model}"`, {
      hint: `${suggestions.length > 0 ? `did you mean ${suggestions.join(", ")}? ` : ""}\`ion models --provider ${provider.id}\` lists them (\`--refresh\` if it is new)`,
    });
  }
  return {
    contextWindow: contextWindow(config, provider.id) ?? info?.context ?? defaultContextWindow(provider.id),
    price: (usage) => costOf(usage, info),
  };
}
