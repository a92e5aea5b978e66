import { IonError } from "../errors.ts";
import { BUILTIN_PROVIDERS, builtinProvider, ollamaBaseURL } from "../providers/registry.ts";
import { DEFAULT_IDLE_TIMEOUT_MS, type ResolvedProvider, type ThinkingLevel } from "../providers/types.ts";
import { maskBaseURL } from "../util/secrets.ts";
import type { Env } from "./paths.ts";
import type { Config, Keys, Layer } from "./schema.ts";

/** Precedence of the layers, low → high. */
const LAYER_RANK: Record<Layer, number> = { default: 0, user: 1, project: 2, env: 3, flag: 4 };

/** Built-in ids, then the ids configured under `providers`. */
export function knownProviderIds(config: Config): string[] {
  const ids = BUILTIN_PROVIDERS.map((p) => p.id);
  for (const id of Object.keys(config.providers ?? {})) if (!ids.includes(id)) ids.push(id);
  return ids;
}

function unknownProvider(config: Config, id: string): IonError {
  return new IonError("config", `unknown provider "${id}" (known: ${knownProviderIds(config).join(", ")})`, {
    hint: 'define it under "providers" with "type": "openai-compatible" and an "api_base"',
  });
}

function split(text: string): [string, string] | undefined {
  const slash = text.indexOf("/");
  return slash > 0 ? [text.slice(0, slash), text.slice(slash + 1)] : undefined;
}

function checked(config: Config, providerId: string, model: string): { providerId: string; model: string } {
  if (!knownProviderIds(config).includes(providerId)) throw unknownProvider(config, providerId);
  if (model === "") throw new IonError("config", `no model given for provider "${providerId}"`);
  return { providerId, model };
}

const NO_MODEL_HINT = "run `ion config set model <provider>/<model>` or pass -m <provider>/<model>";

/**
 * Which provider and model to use. `-m provider/model` sends the part after the first `/` unchanged
 * (OpenRouter ids contain `/`); a first segment that is not a known provider makes the whole string a
 * model of the configured `provider`. A config `model` written as `provider/model` selects that
 * provider unless `provider` was set at the same layer or a higher one — so
 * `{"provider":"groq","model":"openai/gpt-oss-120b"}` is a groq model, while `ION_MODEL=anthropic/…`
 * overrides a user file's `provider`. Without `sources`, both count as set at the same layer.
 */
export function resolveModel(
  config: Config,
  flagModel?: string,
  sources?: Record<string, Layer>,
): { providerId: string; model: string } {
  const known = knownProviderIds(config);
  const text = flagModel ?? config.model;
  if (text === undefined || text === "")
    throw new IonError("config", "no model configured", { hint: NO_MODEL_HINT });
  const parts = split(text);
  const modelRank = flagModel === undefined ? LAYER_RANK[sources?.model ?? "user"] : LAYER_RANK.flag;
  const providerRank = LAYER_RANK[sources?.provider ?? "user"];
  if (parts && known.includes(parts[0])) {
    const [prefix, rest] = parts;
    if (!config.provider || prefix === config.provider || modelRank > providerRank) {
      return checked(config, prefix, rest);
    }
  }
  if (config.provider) return checked(config, config.provider, text);
  if (parts) throw unknownProvider(config, parts[0]);
  throw new IonError("config", `model "${text}" does not name a provider`, { hint: NO_MODEL_HINT });
}

/** The provider the flat form's top-level `api_key` / `api_base` belong to. */
export function selectedProviderId(config: Config): string | undefined {
  if (config.provider) return config.provider;
  const parts = config.model === undefined ? undefined : split(config.model);
  return parts && knownProviderIds(config).includes(parts[0]) ? parts[0] : undefined;
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === undefined || value === null || value.trim() === "" ? undefined : value.trim();
}

function baseURL(providerId: string, value: string, origin: string): string {
  let url: string;
  try {
    url = providerId === "ollama" ? ollamaBaseURL(value) : value.replace(/\/+$/, "");
  } catch (err) {
    throw new IonError("config", `${origin}: "${maskBaseURL(value)}" is not a valid URL or host:port`, {
      cause: err,
    });
  }
  if (!URL.canParse(url))
    throw new IonError("config", `${origin}: "${maskBaseURL(value)}" is not a valid URL`);
  return url;
}

/**
 * A provider as configured: registry defaults, then config, keys.json and environment. Base URL:
 * `providers.<id>.api_base` › top-level `api_base` (selected provider only) › the SDK's env var › default.
 * Key: config › keys.json › env vars in registry order.
 */
export function resolveProvider(
  config: Config,
  providerId: string,
  env: Env = process.env,
  keys: Keys = {},
): ResolvedProvider {
  const entry = config.providers?.[providerId];
  const builtin = builtinProvider(providerId);
  if (!builtin && !entry) throw unknownProvider(config, providerId);
  const selected = selectedProviderId(config) === providerId;

  let url: string | undefined;
  let urlSource: string | undefined;
  const entryBase = nonEmpty(entry?.api_base);
  const topBase = selected ? nonEmpty(config.api_base) : undefined;
  const envName = builtin?.baseURLEnv;
  const envBase = envName ? nonEmpty(env[envName]) : undefined;
  if (entryBase) urlSource = `providers.${providerId}.api_base`;
  else if (topBase) urlSource = "api_base";
  else if (envName && envBase) urlSource = envName;
  const given = entryBase ?? topBase ?? envBase;
  if (urlSource && given) url = baseURL(providerId, given, urlSource);
  else url = builtin?.baseURL;
  if (url === undefined) {
    throw new IonError("config", `provider "${providerId}" has no api_base`, {
      hint: `set "providers.${providerId}.api_base" to its OpenAI-compatible URL, e.g. http://localhost:8000/v1`,
    });
  }

  let apiKey: string | undefined;
  let keySource = "none";
  const configKey = nonEmpty(entry?.api_key) ?? (selected ? nonEmpty(config.api_key) : undefined);
  if (configKey) [apiKey, keySource] = [configKey, "config"];
  else if (nonEmpty(keys[providerId])) [apiKey, keySource] = [nonEmpty(keys[providerId]), "keys.json"];
  else {
    for (const name of builtin?.keyEnv ?? []) {
      const value = nonEmpty(env[name]);
      if (value) {
        [apiKey, keySource] = [value, `env ${name}`];
        break;
      }
    }
  }

  return {
    id: providerId,
    name: entry?.name ?? builtin?.name ?? providerId,
    wire: builtin?.wire ?? "openai",
    baseURL: url,
    apiKey,
    keySource,
    headers: { ...entry?.headers },
    quirks: {
      ...builtin?.quirks,
      ...(entry?.resend_reasoning_content === undefined
        ? {}
        : { resendReasoningContent: entry.resend_reasoning_content }),
    },
    idleTimeoutMs: idleTimeoutMs(config),
    ...(urlSource ? { baseURLSource: urlSource } : {}),
  };
}

/** `network.idle_timeout_s` in ms, or the default. */
export function idleTimeoutMs(config: Config): number {
  const seconds = config.network?.idle_timeout_s;
  return seconds === undefined ? DEFAULT_IDLE_TIMEOUT_MS : seconds * 1000;
}

/** `providers.<id>.context_window` › top-level `context_window` › unknown. */
export function contextWindow(config: Config, providerId: string): number | undefined {
  return config.providers?.[providerId]?.context_window ?? config.context_window;
}

/** `--thinking` › config `thinking` › "off". */
export function resolveThinking(config: Config, flag?: ThinkingLevel): ThinkingLevel {
  return flag ?? config.thinking ?? "off";
}
