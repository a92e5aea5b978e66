/**
 * Each configured provider (a key, or a keyless one the user pointed ion at) asked for its model list —
 * the request `ion models` makes, through the same code — all at once, each within the timeout. What
 * fails is worded without the key, even when a server echoes it.
 */
import { configuredProviderIds } from "../catalog/catalog.ts";
import type { Env } from "../config/paths.ts";
import { resolveProvider } from "../config/resolve.ts";
import type { Config, Keys } from "../config/schema.ts";
import type { ResolvedProvider } from "../providers/types.ts";
import { seconds } from "../update/release.ts";
import { messageOf } from "../util/error-text.ts";
import { maskUrl, redactText } from "../util/secrets.ts";
import { type Check, check } from "./types.ts";

export async function providerChecks(
  config: Config,
  keys: Keys,
  env: Env,
  timeoutMs: number,
): Promise<Check[]> {
  const providers = configuredProviderIds(config, keys, env).map((id) =>
    resolveProvider(config, id, env, keys),
  );
  return Promise.all(providers.map((provider) => reach(provider, timeoutMs)));
}

async function reach(provider: ResolvedProvider, timeoutMs: number): Promise<Check> {
  const { discover } = await import("../catalog/lists.ts");
  const { settle } = await import("../catalog/fetch.ts");
  const id = `provider:${provider.id}`;
  const title = `provider ${provider.id}`;
  const where = maskUrl(provider.baseURL);
  const stop = new AbortController();
  const fetchFn = Object.assign(
    (input: RequestInfo | URL, init?: RequestInit) =>
      fetch(input, {
        ...init,
        signal: init?.signal ? AbortSignal.any([init.signal, stop.signal]) : stop.signal,
      }),
    { preconnect: fetch.preconnect },
  ) as typeof fetch;
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([settle(discover(fetchFn, provider)), timedOut]);
    const ms = Math.round(performance.now() - started);
    const fixPlace = provider.baseURLSource
      ? `that the server is up, or ${provider.baseURLSource}`
      : "the network connection";
    if (outcome === "timeout") {
      stop.abort();
      return check(
        id,
        title,
        "fail",
        `no answer from ${where} within ${seconds(timeoutMs)}`,
        `check ${fixPlace}`,
      );
    }
    if (outcome.ok)
      return check(id, title, "ok", `${where} answered in ${ms} ms (${outcome.value.models.length} models)`);
    const reason = redactText(outcome.reason, [provider.apiKey]);
    if (outcome.status === 401 || outcome.status === 403)
      return check(
        id,
        title,
        "fail",
        `${where}: the key was refused (${reason})`,
        `check its key (${provider.keySource}); ion providers login ${provider.id} replaces a stored one`,
      );
    return check(id, title, "fail", `${where}: ${reason}`, `check ${fixPlace}`);
  } catch (err) {
    return check(
      id,
      title,
      "fail",
      `${where}: ${redactText(messageOf(err), [provider.apiKey])}`,
      "check the provider's settings (ion providers)",
    );
  } finally {
    clearTimeout(timer);
  }
}
