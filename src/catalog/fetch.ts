/**
 * What every catalogue source shares: fetching JSON with a timeout, the errors that turn a failed source
 * into a warning rather than a crash, and the zod helpers the response schemas are built from. Part of the
 * network side, so only `sources.ts` and the modules it loads import this.
 */
import { z } from "zod";
import { formatPath } from "../config/schema.ts";
import { messageOf } from "../util/error-text.ts";

/** Per request; the providers and models.dev are asked in parallel, so this bounds the whole fetch. */
export const FETCH_TIMEOUT_MS = 10_000;

/** A source failed in an expected way (network, HTTP status, response shape): a warning, not a crash. */
export class SourceError extends Error {
  override name = "SourceError";
}

/** The server answered with an error status. */
class HttpError extends SourceError {
  constructor(
    readonly status: number,
    statusText: string,
  ) {
    super(`HTTP ${status}${statusText ? ` ${statusText}` : ""}`);
  }
}

export type Settled<T> = { ok: true; value: T } | { ok: false; reason: string; status?: number };

export async function settle<T>(work: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await work };
  } catch (err) {
    if (err instanceof HttpError) return { ok: false, reason: err.message, status: err.status };
    if (err instanceof SourceError) return { ok: false, reason: err.message };
    throw err;
  }
}

// --- Response schemas --------------------------------------------------------------------------------
// Only an entry's id is required; every metadata field falls back to null when it has an unexpected
// type, so one odd field never loses a model, and unknown fields are kept out of the way (looseObject).

export const optNumber = z.number().nullish().catch(null);
export const optBoolean = z.boolean().nullish().catch(null);
export const optString = z.string().nullish().catch(null);

export function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue ? `${formatPath(issue.path)}: ${issue.message}` : "invalid";
  throw new SourceError(`unexpected ${what} response (${where})`);
}

export function positive(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;
}

// --- HTTP ---------------------------------------------------------------------------------------------

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

function networkReason(err: unknown, url: string): string {
  if (err instanceof Error && err.name === "TimeoutError")
    return `no answer from ${hostOf(url)} within ${FETCH_TIMEOUT_MS / 1000} s`;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code) return `cannot reach ${hostOf(url)} (${code})`;
  return `cannot reach ${hostOf(url)}: ${messageOf(err)}`;
}

export async function getJson(fetchFn: typeof fetch, url: string, headers: Headers): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchFn(url, { headers, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw new SourceError(networkReason(err, url));
  }
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    throw new SourceError(networkReason(err, url));
  }
  // The body of an error is not shown: some providers echo part of the key in it.
  if (!response.ok) throw new HttpError(response.status, response.statusText);
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new SourceError(`the response from ${hostOf(url)} is not JSON`);
  }
}
