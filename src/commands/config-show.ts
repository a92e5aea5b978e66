import { getAt, isKnownPath, isObject, type JsonObject, parseKeyPath, suggestPath } from "../config/edit.ts";
import type { LoadedConfig } from "../config/load.ts";
import { cacheDir, configDir, configFiles, dataDir, type Env } from "../config/paths.ts";
import { selectedProviderId } from "../config/resolve.ts";
import { IonError } from "../errors.ts";
import { BUILTIN_PROVIDERS } from "../providers/registry.ts";
import { maskConfigSecrets } from "../util/secrets.ts";
import { loadSettings } from "./_settings.ts";
import { parseStrict } from "./_shared.ts";
import { getArgs, pathArgs, showArgs } from "./config.ts";

/** The merged configuration as shown to the user: secrets masked, each leaf's source named. */
export interface ConfigView {
  config: JsonObject;
  /** Dotted leaf path → `default`, a file path, `env ION_MODEL`, `keys.json`, `env OPENAI_API_KEY`, `flag`. */
  sources: Record<string, string>;
}

const ENV_SETTINGS: Record<string, string> = { model: "ION_MODEL", provider: "ION_PROVIDER" };

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/**
 * Layers and keys merged into one object. Keys come from the config files, then keys.json, then the
 * providers' env vars (the order ion uses them in); each shows as `providers.<id>.api_key`, masked.
 */
export function buildView(loaded: LoadedConfig, env: Env): ConfigView {
  const config = structuredClone(loaded.config) as JsonObject;
  const sources: Record<string, string> = {};
  for (const [path, layer] of Object.entries(loaded.sources)) {
    if (layer === "user") sources[path] = loaded.files.user;
    else if (layer === "project") sources[path] = loaded.files.project;
    else if (layer === "env") sources[path] = `env ${ENV_SETTINGS[path] ?? "?"}`;
    else sources[path] = layer;
  }

  const selected = selectedProviderId(loaded.config);
  const providers = isObject(config.providers) ? config.providers : {};
  const hasKey = (id: string) =>
    nonEmpty(getAt(providers, [id, "api_key"])) || (id === selected && nonEmpty(config.api_key));
  const addKey = (id: string, key: string, source: string) => {
    const entry = isObject(providers[id]) ? providers[id] : {};
    entry.api_key = key;
    providers[id] = entry;
    sources[`providers.${id}.api_key`] = source;
  };
  for (const [id, key] of Object.entries(loaded.keys))
    if (!hasKey(id) && nonEmpty(key)) addKey(id, key, "keys.json");
  for (const provider of BUILTIN_PROVIDERS) {
    if (hasKey(provider.id)) continue;
    const name = provider.keyEnv.find((n) => nonEmpty(env[n]));
    if (name) addKey(provider.id, env[name]!, `env ${name}`);
  }
  if (Object.keys(providers).length > 0) config.providers = providers;
  maskConfigSecrets(config);
  return { config, sources };
}

/** Leaves in file order: `[dotted path, value]`. Arrays and empty objects are leaves. */
function leaves(node: JsonObject, prefix = ""): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(node)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (isObject(value) && Object.keys(value).length > 0) out.push(...leaves(value, path));
    else out.push([path, value]);
  }
  return out;
}

function shown(path: string, value: unknown): string {
  const masked = typeof value === "string" && (path.endsWith(".api_key") || path === "api_key");
  const text = masked ? String(value) : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** `ion config show [--json]`. */
export async function showConfig(rawArgs: string[]): Promise<void> {
  const args = parseStrict("config show", rawArgs, showArgs, 0);
  const env = process.env;
  const loaded = await loadSettings(env);
  const view = buildView(loaded, env);
  if (args.json === true) {
    const out = { config: view.config, sources: view.sources, files: loaded.files };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  const rows = leaves(view.config).map(([path, value]) => [
    path,
    shown(path, value),
    view.sources[path] ?? "?",
  ]);
  if (rows.length === 0) {
    process.stderr.write(`nothing configured yet: \`ion config init\` sets up a provider and model\n`);
    return;
  }
  const width = (i: number) => Math.max(...rows.map((row) => row[i]!.length));
  const [w0, w1] = [width(0), width(1)];
  const lines = rows.map(([path, value, source]) => `${path!.padEnd(w0)}  ${value!.padEnd(w1)}  ${source}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** `ion config get KEY`: strings as they are, anything else as JSON; exit 1 when unset. */
export async function getConfig(rawArgs: string[]): Promise<void> {
  const args = parseStrict("config get", rawArgs, getArgs, 1);
  if (typeof args.key !== "string")
    throw new IonError("usage", '"ion config get" needs a setting name', {
      hint: "e.g. `ion config get model`",
    });
  const path = parseKeyPath(args.key);
  const env = process.env;
  const view = buildView(await loadSettings(env), env);
  const value = getAt(view.config, path);
  if (value === undefined) {
    const suggestion = isKnownPath(path) ? undefined : suggestPath(path);
    const hint = suggestion
      ? `did you mean ${suggestion}?`
      : isKnownPath(path)
        ? undefined
        : `${args.key} is not a known setting`;
    throw new IonError("config", `${args.key} is not set`, hint === undefined ? undefined : { hint });
  }
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  process.stdout.write(`${text}\n`);
}

/** `ion config path [NAME]`. */
export async function printPaths(rawArgs: string[]): Promise<void> {
  const args = parseStrict("config path", rawArgs, pathArgs, 1);
  const env = process.env;
  const files = configFiles(process.cwd(), env);
  const paths: Record<string, string> = {
    config_dir: configDir(env),
    config_file: files.user,
    keys_file: files.keys,
    project_file: files.project,
    data_dir: dataDir(env),
    cache_dir: cacheDir(env),
  };
  if (typeof args.name === "string") {
    const one = paths[args.name];
    if (one === undefined || !Object.hasOwn(paths, args.name))
      throw new IonError("usage", `unknown path name "${args.name}"`, {
        hint: `one of: ${Object.keys(paths).join(", ")}`,
      });
    process.stdout.write(`${one}\n`);
    return;
  }
  const lines = Object.entries(paths).map(([name, path]) => `${name}: ${path}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}
