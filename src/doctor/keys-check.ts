/**
 * Which providers have a key, and where each comes from (config, keys.json, or the environment
 * variable's name) — never the key. A provider configured so that it cannot be used is a ✗.
 */

import type { Env } from "../config/paths.ts";
import { knownProviderIds, resolveProvider } from "../config/resolve.ts";
import type { Config, Keys } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import { redactText } from "../util/secrets.ts";
import { type Check, check } from "./types.ts";

export function keyChecks(config: Config, keys: Keys, env: Env): Check[] {
  const withKey: string[] = [];
  const broken: Check[] = [];
  for (const id of knownProviderIds(config)) {
    try {
      const provider = resolveProvider(config, id, env, keys);
      if (provider.keySource !== "none") withKey.push(`${id} (${provider.keySource})`);
    } catch (err) {
      if (!(err instanceof IonError && err.code === "config")) throw err;
      broken.push(
        check(
          `provider:${id}`,
          `provider ${id}`,
          "fail",
          redactText(err.message),
          err.hint ?? "see ion providers",
        ),
      );
    }
  }
  const found =
    withKey.length === 0
      ? check(
          "keys",
          "keys",
          "warn",
          "no provider has a key",
          "ion providers login ID stores one; or set the provider's variable, e.g. OPENAI_API_KEY",
        )
      : check("keys", "keys", "ok", withKey.join(", "));
  return [found, ...broken];
}
