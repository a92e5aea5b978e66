import type { Env } from "../config/paths.ts";
import type { Config, Keys } from "../config/schema.ts";
import { BUILTIN_PROVIDERS } from "../providers/registry.ts";

/**
 * The environment of the commands ion starts on the model's behalf: `bash`, hooks, MCP stdio servers.
 * Whatever the sandbox mode, a command never gets a provider key ion resolved, and by default no
 * variable whose name looks like a secret; the user's `tools.bash.env` adjusts the second rule only.
 *
 *   commandEnvironment({ env: { PATH: "/bin", OPENAI_API_KEY: "k", GITHUB_TOKEN: "t" } }) → { PATH: "/bin" }
 *   with config `tools.bash.env.keep: ["GITHUB_TOKEN"]`                                 → { PATH, GITHUB_TOKEN }
 */

/** A variable whose name contains one of these (any case) is left out unless `keep` names it. */
export const SECRET_NAME_PARTS = ["KEY", "SECRET", "TOKEN", "PASSWORD"] as const;

const SECRET_NAME = new RegExp(SECRET_NAME_PARTS.join("|"), "i");

/** `tools.bash.env`: names or globs (`*` any run of characters, `?` one), matched case-sensitively. */
export interface CommandEnvRules {
  /** Re-admits names the secret-name rule left out (never a provider key). */
  keep?: readonly string[];
  /** Leaves out more names. Wins over `keep`. */
  exclude?: readonly string[];
}

export interface CommandEnvSource {
  /** The environment ion runs with. */
  env: Env;
  config?: Config;
  /** keys.json. */
  keys?: Keys;
}

/** Names and values of the provider keys ion could use: none of them reaches a command. */
export interface ProviderKeys {
  /** Every built-in provider's key variable (`OPENAI_API_KEY`, …), set or not. */
  names: ReadonlySet<string>;
  /** The keys themselves: from those variables, keys.json and the config's `api_key`s. */
  values: ReadonlySet<string>;
}

function filled(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The keys ion would resolve for any provider (config/resolve.ts `resolveProvider`), and where it reads them. */
export function providerKeys({ env, config, keys }: CommandEnvSource): ProviderKeys {
  const names = new Set(BUILTIN_PROVIDERS.flatMap((provider) => provider.keyEnv));
  const candidates = [
    ...[...names].map((name) => env[name]),
    ...Object.values(keys ?? {}),
    config?.api_key,
    ...Object.values(config?.providers ?? {}).map((provider) => provider.api_key),
  ];
  const values = new Set(candidates.map(filled).filter((value) => value !== undefined));
  return { names, values };
}

function globPattern(glob: string): RegExp {
  const body = glob
    .split("")
    .map((char) => (char === "*" ? ".*" : char === "?" ? "." : char.replace(/[\\^$.+()[\]{}|]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** Whether `name` matches any of the names or globs. */
function matchesAny(name: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((pattern) => pattern.test(name));
}

/** Whether a name looks like it holds a secret (contains KEY, SECRET, TOKEN or PASSWORD, any case). */
export function secretLikeName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The environment a command gets: `source.env` without provider keys and, unless kept, secret-like names. */
export function commandEnvironment(source: CommandEnvSource): Record<string, string> {
  const rules: CommandEnvRules = source.config?.tools?.bash?.env ?? {};
  const keep = (rules.keep ?? []).map(globPattern);
  const exclude = (rules.exclude ?? []).map(globPattern);
  const provider = providerKeys(source);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source.env)) {
    if (value === undefined) continue;
    // Provider keys: by name or by value (a key copied under another name); config cannot re-add them.
    if (provider.names.has(name)) continue;
    const trimmed = value.trim();
    if (trimmed !== "" && provider.values.has(trimmed)) continue;
    if (matchesAny(name, exclude)) continue;
    if (secretLikeName(name) && !matchesAny(name, keep)) continue;
    out[name] = value;
  }
  return out;
}
