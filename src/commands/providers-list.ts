import { knownProviderIds, resolveProvider } from "../config/resolve.ts";
import type { Config, Keys } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import { builtinProvider } from "../providers/registry.ts";
import { colorEnabled, createStyle } from "../ui/style.ts";
import { type Cell, renderTable } from "../ui/table.ts";
import { maskUrl, redactText } from "../util/secrets.ts";
import { loadSettings, terminal } from "./_settings.ts";
import { parseStrict } from "./_shared.ts";
import { listArgs } from "./providers.ts";

/**
 * One element of `ion providers --json`. Never holds a key: `auth` says where the key comes from, and
 * `base_url` is shown without credentials.
 */
export interface ProviderListItem {
  id: string;
  name: string;
  wire: string;
  /** null when the provider cannot be resolved (see `error`). */
  base_url: string | null;
  /** "config", "keys.json", "env OPENAI_API_KEY", "none", or "not needed" (ollama); null with `error`. */
  auth: string | null;
  builtin: boolean;
  /** Why the provider is unusable as configured, e.g. a custom provider without `api_base`. */
  error: string | null;
}

/** `ion providers [--json]`: built-in providers, then the ones defined under `providers` in config. */
export async function listProviders(rawArgs: string[]): Promise<void> {
  const args = parseStrict("providers", rawArgs, listArgs, 0);
  const env = process.env;
  const { config, keys } = await loadSettings(env);
  const items = knownProviderIds(config).map((id) => describeProvider(config, keys, env, id));
  for (const item of items) {
    if (item.error !== null) process.stderr.write(`ion: warning: ${item.error}\n`);
  }
  if (args.json === true) {
    process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    return;
  }
  const { isTTY, width } = terminal();
  const style = createStyle(colorEnabled(isTTY));
  const quiet = (text: string): Cell => ({ text, style: style.dim });
  const rows = items.map((item): Cell[] => [
    item.id,
    item.name,
    item.wire,
    item.base_url ?? quiet("-"),
    item.auth === null ? quiet("-") : item.auth === "none" ? quiet("none") : item.auth,
  ]);
  const columns = ["ID", "NAME", "WIRE", "BASE URL", "AUTH"].map((header) => ({ header }));
  process.stdout.write(renderTable(columns, rows, { width, headerStyle: isTTY ? style.dim : undefined }));
}

export function describeProvider(
  config: Config,
  keys: Keys,
  env: Record<string, string | undefined>,
  id: string,
): ProviderListItem {
  const builtin = builtinProvider(id);
  const base = {
    id,
    name: config.providers?.[id]?.name ?? builtin?.name ?? id,
    wire: builtin?.wire ?? "openai",
    builtin: builtin !== undefined,
  };
  try {
    const resolved = resolveProvider(config, id, env, keys);
    const auth =
      resolved.keySource === "none" && builtin?.needsKey === false ? "not needed" : resolved.keySource;
    return { ...base, name: resolved.name, base_url: maskUrl(resolved.baseURL), auth, error: null };
  } catch (err) {
    // A provider configured wrongly (no api_base, a bad URL) is listed with the reason, not fatal.
    if (!(err instanceof IonError && err.code === "config")) throw err;
    return { ...base, base_url: null, auth: null, error: redactText(err.message) };
  }
}
