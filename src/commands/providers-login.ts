import { join } from "node:path";
import { removeKey } from "../config/edit.ts";
import { writeKey } from "../config/load.ts";
import { configDir, type Env } from "../config/paths.ts";
import { knownProviderIds, resolveProvider } from "../config/resolve.ts";
import type { Config, Keys } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import { loadSettings } from "./_settings.ts";
import { parseStrict } from "./_shared.ts";
import { checkKey, readKey } from "./config-key.ts";
import { loginArgs, logoutArgs } from "./providers.ts";

function requireProvider(command: string, config: Config, id: unknown): string {
  const known = knownProviderIds(config);
  if (typeof id !== "string" || id === "")
    throw new IonError("usage", `"ion providers ${command}" needs a provider id`, {
      hint: `known providers: ${known.join(", ")}`,
    });
  if (!known.includes(id))
    throw new IonError("usage", `unknown provider "${id}"`, {
      hint: `known providers: ${known.join(", ")}; \`ion providers\` lists them`,
    });
  return id;
}

/**
 * `ion providers login ID`: the key comes from a masked prompt on a terminal, else from the first
 * line of stdin (`pass show openai | ion providers login openai`). It is stored in keys.json (0600).
 */
export async function login(rawArgs: string[]): Promise<void> {
  const args = parseStrict("providers login", rawArgs, loginArgs, 1);
  const env = process.env;
  const { config } = await loadSettings(env);
  const id = requireProvider("login", config, args.id);
  const key = await readKey(id);
  checkKey(
    id,
    key,
    `type it at the prompt, or pipe it in: \`printf '%s\\n' "$KEY" | ion providers login ${id}\``,
  );
  const dir = configDir(env);
  await writeKey(dir, id, key);
  process.stdout.write(`saved the key for ${id} to ${join(dir, "keys.json")}\n`);
  noteShadowing(config, id, env, { [id]: key }, "keys.json");
}

/** `ion providers logout ID`: removes the provider's key from keys.json; none stored is not an error. */
export async function logout(rawArgs: string[]): Promise<void> {
  const args = parseStrict("providers logout", rawArgs, logoutArgs, 1);
  const env = process.env;
  const { config, keys } = await loadSettings(env);
  const file = join(configDir(env), "keys.json");
  const given: unknown = args.id;
  // A key stored for a provider that is no longer configured can still be removed.
  const stored = typeof given === "string" && Object.hasOwn(keys, given);
  const id = typeof given === "string" && stored ? given : requireProvider("logout", config, given);
  if (!stored) {
    process.stderr.write(`no key for ${id} in ${file}: nothing to remove\n`);
    noteShadowing(config, id, env, {}, "none");
    return;
  }
  await removeKey(configDir(env), id);
  const { [id]: _removed, ...rest } = keys;
  process.stdout.write(`removed the key for ${id} from ${file}\n`);
  noteShadowing(config, id, env, rest, "none");
}

/** Says on stderr when another source still decides the key (config wins over keys.json; env is last). */
function noteShadowing(config: Config, id: string, env: Env, keys: Keys, expected: string): void {
  let source: string;
  try {
    source = resolveProvider(config, id, env, keys).keySource;
  } catch (err) {
    // The key is stored either way; the provider's own configuration problem is worth a line.
    if (!(err instanceof IonError && err.code === "config")) throw err;
    process.stderr.write(`ion: warning: ${err.message}\n`);
    return;
  }
  if (source === expected) return;
  const where =
    source === "config"
      ? "the api_key in ion's config (it comes before keys.json)"
      : source.replace(/^env /, "$");
  process.stderr.write(`note: ${id}'s key still comes from ${where}\n`);
}
