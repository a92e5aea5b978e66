/**
 * Where ion's releases are and what one holds — the same place and names install.sh uses: the assets
 * `ion-<os>-<arch>[.exe]`, `SHA256SUMS` over them, and `VERSION` (the release's version, one line).
 * `ION_INSTALL_BASE` points at another release (a mirror, a test server), as it does for install.sh.
 */

import type { Env } from "../config/paths.ts";
import { IonError } from "../errors.ts";

export const DEFAULT_RELEASE_BASE = "https://github.com/ion-cli/ion/releases/latest/download";
const LATEST = "/latest/download";

/** A version as ion writes it (`1.2.3`, `1.2.3-rc.1`); a leading `v` is dropped. */
export function normalizeVersion(text: string): string | undefined {
  const version = text.trim().replace(/^v/, "");
  return /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version) ? version : undefined;
}

/**
 * The URL of a release's assets, without a trailing slash: the latest one, or `version`'s. On GitHub
 * (a base ending in `/latest/download`) a version's assets are at `…/download/v<version>`; any other
 * base holds one directory per release tag, `<base>/v<version>`.
 */
export function releaseBase(env: Env, version?: string): string {
  const base = (env.ION_INSTALL_BASE?.trim() || DEFAULT_RELEASE_BASE).replace(/\/+$/, "");
  if (version === undefined) return base;
  if (base.endsWith(LATEST)) return `${base.slice(0, -LATEST.length)}/download/v${version}`;
  return `${base}/v${version}`;
}

/** This machine's asset, as install.sh derives it from `uname`: `ion-linux-x64`. */
export function assetName(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return `ion-${os}-${process.arch}${process.platform === "win32" ? ".exe" : ""}`;
}

/** A failed download, worded for the user; `missing` when the server said 404. */
export class DownloadError extends IonError {
  constructor(
    message: string,
    readonly missing: boolean,
  ) {
    super("io", message);
  }
}

/** GETs `url`; a status other than 200, a network failure or no answer within `timeoutMs` is a DownloadError. */
export async function download(url: string, timeoutMs: number, signal?: AbortSignal): Promise<Response> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      redirect: "follow",
    });
  } catch (err) {
    const why = timeout.aborted
      ? `no answer within ${seconds(timeoutMs)}`
      : ((err as { code?: string }).code ?? (err instanceof Error ? err.message : String(err)));
    throw new DownloadError(`cannot download ${url} (${why})`, false);
  }
  if (response.status === 404) {
    await response.body?.cancel();
    throw new DownloadError(`${url} does not exist (HTTP 404)`, true);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new DownloadError(`cannot download ${url} (HTTP ${response.status})`, false);
  }
  return response;
}

export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

/** The version a release says it is, from its `VERSION` asset. */
export async function releaseVersion(base: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const url = `${base}/VERSION`;
  const text = await (await download(url, timeoutMs, signal)).text();
  const version = normalizeVersion(text.split("\n")[0] ?? "");
  if (version === undefined) throw new IonError("io", `${url} does not hold a version`);
  return version;
}

/** `a` is newer than `b` (semver order: 1.10.0 > 1.9.0, 1.0.0 > 1.0.0-rc.1). */
export function isNewer(a: string, b: string): boolean {
  return Bun.semver.order(a, b) > 0;
}

/** The SHA-256 `SHA256SUMS` gives `file` (`<hash>  <file>` or `<hash> *<file>` lines), if any. */
export function expectedSum(sums: string, file: string): string | undefined {
  for (const line of sums.split("\n")) {
    const match = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line.trimEnd());
    if (match && match[2] === file) return match[1]?.toLowerCase();
  }
  return undefined;
}
