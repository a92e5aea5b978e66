import { statSync } from "node:fs";
import type { ModelInfo } from "../catalog/catalog.ts";
import type { Env } from "../config/paths.ts";
import { contextWindow } from "../config/resolve.ts";
import type { Config } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import { builtinProvider, defaultContextWindow } from "../providers/registry.ts";
import type { ModelCapabilities, ResolvedProvider, Usage } from "../providers/types.ts";
import { maskUrl } from "../util/secrets.ts";

export interface ModelFacts {
  contextWindow: number | undefined;
  /** The model's output limit in tokens, when the catalogue knows it. */
  maxOutput?: number | undefined;
  price: (usage: Usage) => number | null;
  /** One line each for the user: e.g. the model is missing from a list that may not apply. */
  warnings?: string[];
  /** What the catalogue says the model can do; undefined when the model is not in the cached catalogue. */
  capabilities?: ModelCapabilities;
}

/**
 * What the cached catalogue knows about the model — context window and prices — read from the cache
 * only (a run never waits on the network for it). An id is refused, with suggestions, only when the
 * provider's own list in the cache is fresh and was fetched from the endpoint and key this run will use;
 * a list from another base URL (a gateway, a local server) or an expired one cannot say what this
 * endpoint serves, so a missing id is then a warning and the request goes ahead. Custom
 * openai-compatible providers are never checked. Ollama is the exception to "cache only": its window
 * is per model and per server, so it is asked of the server once (see `ollamaFacts`).
 */
export async function modelFacts(
  config: Config,
  provider: ResolvedProvider,
  model: string,
  env: Env,
  fromFlag: boolean,
): Promise<ModelFacts> {
  const { cacheFile, cachedCatalog, cachedCatalogSync, endpointOf, findModel, formatAge, suggestModels } =
    await import("../catalog/catalog.ts");
  const { costOf } = await import("../catalog/cost.ts");
  const catalog = await cachedCatalog(env);
  const info = catalog ? findModel(catalog, provider.id, model) : undefined;
  const warnings: string[] = [];
  const listed = catalog?.models.some((m) => m.provider === provider.id && m.configured) ?? false;
  if (catalog && !info && listed && builtinProvider(provider.id)) {
    const from = catalog.listedFrom?.[provider.id];
    const id = `${provider.id}/${model}`;
    if (from === endpointOf(provider) && !catalog.stale) {
      const suggestions = suggestModels(catalog, provider.id, model);
      throw new IonError(fromFlag ? "usage" : "config", `unknown model "${id}"`, {
        hint: `${suggestions.length > 0 ? `did you mean ${suggestions.join(", ")}? ` : ""}\`ion models --provider ${provider.id}\` lists them (\`--refresh\` if it is new)`,
      });
    }
    const why =
      from === undefined || from !== endpointOf(provider)
        ? `was not fetched from ${maskUrl(provider.baseURL)} with this key`
        : `is ${formatAge(catalog.age_ms)} old`;
    warnings.push(
      `"${id}" is not in the cached model list, which ${why}; sending it anyway (\`ion models --refresh\` updates the list)`,
    );
  }
  const facts: ModelFacts = {
    contextWindow: contextWindow(config, provider.id) ?? info?.context ?? defaultContextWindow(provider.id),
    maxOutput: info?.output ?? undefined,
    price: info
      ? (usage) => costOf(usage, info)
      : latePrice(
          cacheFile(env),
          () => {
            const late = cachedCatalogSync(env);
            return late ? findModel(late, provider.id, model) : undefined;
          },
          costOf,
        ),
    warnings,
    ...(info
      ? {
          capabilities: {
            reasoning: info.reasoning,
            tool_call: info.tool_call,
            image_input: info.image_input ?? null,
          },
        }
      : {}),
  };
  return provider.wire === "ollama" ? ollamaFacts(config, provider, model, facts) : facts;
}

/**
 * Ollama: the window is the one ion asks the server for (config `context_window`, else the model's own
 * from /api/show, see ollama-show.ts); it is set on `provider` as `numCtx` for the wire to send, so
 * compaction and the server work with the same window. Capabilities come from /api/show too.
 */
async function ollamaFacts(
  config: Config,
  provider: ResolvedProvider,
  model: string,
  facts: ModelFacts,
): Promise<ModelFacts> {
  const { ollamaCapabilities, ollamaWindow, showModel } = await import("../providers/ollama-show.ts");
  const shown = await showModel(provider, model);
  const info = shown.ok ? shown.model : undefined;
  const window = ollamaWindow(contextWindow(config, provider.id), info);
  if (window !== undefined) provider.numCtx = window;
  return {
    ...facts,
    contextWindow: window,
    ...(info ? { capabilities: facts.capabilities ?? ollamaCapabilities(info) } : {}),
  };
}

/**
 * The price of a model the cached catalogue did not know when the session started (no cache yet, or
 * one without it): looked up again whenever the cache file has changed since, so a chat started
 * before the model list was fetched is priced from the first turn after it was.
 */
function latePrice(
  file: string,
  find: () => ModelInfo | undefined,
  costOf: (usage: Usage, info: ModelInfo | undefined) => number | null,
): (usage: Usage) => number | null {
  let found: ModelInfo | undefined;
  let seen: number | undefined;
  return (usage) => {
    if (!found) {
      const mtime = mtimeOf(file);
      if (mtime !== undefined && mtime !== seen) {
        seen = mtime;
        found = find();
      }
    }
    return costOf(usage, found);
  };
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch (err) {
    if (err instanceof Error && "code" in err && (err.code === "ENOENT" || err.code === "ENOTDIR"))
      return undefined;
    throw err;
  }
}
