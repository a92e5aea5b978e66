import type { ProviderError, ResolvedProvider } from "./types.ts";

/**
 * Turns an HTTP failure from any wire into a classified ProviderError with one human-readable line.
 * The adapters pull status, headers and body out of their SDK's error and hand them here, so every
 * provider's errors read the same way.
 */
export interface HttpFailure {
  status?: number | undefined;
  headers?: Headers | Record<string, string | null | undefined> | undefined;
  /** Parsed JSON error body when there is one (any of the shapes in the providers' docs). */
  body?: unknown;
  /** The SDK's own message, used when the body says nothing. */
  message?: string | undefined;
}

function header(headers: HttpFailure["headers"], name: string): string | undefined {
  if (!headers) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && value != null) return value;
  }
  return undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The provider's own error text, from whichever body shape it uses. */
export function bodyMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim() || undefined;
  const top = record(body);
  if (!top) return undefined;
  const error = top.error;
  if (typeof error === "string") return error;
  const inner = record(error);
  if (inner && typeof inner.message === "string") return inner.message;
  if (typeof top.message === "string") return top.message;
  if (typeof top.detail === "string") return top.detail;
  return undefined;
}

function bodyCode(body: unknown): string {
  const top = record(body);
  const inner = record(top?.error);
  return [inner?.code, inner?.type, inner?.status, top?.code, top?.type]
    .filter((v) => typeof v === "string")
    .join(" ");
}

function detailsReason(body: unknown): string[] {
  const details = record(record(body)?.error)?.details;
  if (!Array.isArray(details)) return [];
  return details.map((d) => record(d)?.reason).filter((r): r is string => typeof r === "string");
}

/** Wait requested by the server: retry-after-ms, retry-after (seconds or HTTP date), or Gemini's RetryInfo. */
export function retryAfterMs(failure: HttpFailure): number | undefined {
  // Number("") is 0: an empty header must not turn into "retry immediately".
  const ms = header(failure.headers, "retry-after-ms")?.trim();
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Math.round(Number(ms)));
  const after = header(failure.headers, "retry-after")?.trim();
  if (after) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000));
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  const details = record(record(failure.body)?.error)?.details;
  if (Array.isArray(details)) {
    for (const detail of details) {
      const delay = record(detail)?.retryDelay;
      if (typeof delay === "string" && /^\d+(\.\d+)?s$/.test(delay))
        return Math.round(Number(delay.slice(0, -1)) * 1000);
    }
  }
  return undefined;
}

const CONTEXT_OVERFLOW =
  /context_length_exceeded|context length|context window|prompt is too long|exceeds the maximum number of tokens|input token count|too many tokens|maximum context/i;
const MODEL_NOT_FOUND =
  /model_not_found|model .*(not found|does not exist)|unknown model|no such model|invalid model/i;

/** Removes the key (and anything that looks like a full key) from a provider's message. */
export function redact(text: string, apiKey: string | undefined): string {
  let out = text;
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join(maskKey(apiKey));
  return out.replace(/\b(sk-[A-Za-z0-9_-]{8})[A-Za-z0-9_*-]{8,}/g, "$1…");
}

/** `sk-proj-abcdef…wxyz` → `sk-…wxyz`: enough to tell keys apart, never enough to use one. */
export function maskKey(key: string): string {
  if (key.length <= 8) return "…";
  const prefix = key.startsWith("sk-") ? "sk-" : "";
  return `${prefix}…${key.slice(-4)}`;
}

export function authMessage(provider: ResolvedProvider): string {
  if (!provider.apiKey) {
    return `no API key for ${provider.id}: run \`ion providers login ${provider.id}\` or set the provider's key env var`;
  }
  return `invalid API key for ${provider.id} (from ${provider.keySource})`;
}

export function classifyHttpError(
  provider: ResolvedProvider,
  model: string,
  failure: HttpFailure,
): ProviderError {
  const status = failure.status;
  const text = redact(
    bodyMessage(failure.body) ?? failure.message ?? `HTTP ${status ?? "error"}`,
    provider.apiKey,
  );
  const code = bodyCode(failure.body);
  const wait = retryAfterMs(failure);
  const base = {
    ...(status === undefined ? {} : { status }),
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  };
  const line = (kind: string) => `${kind} from ${provider.id}: ${text}`;

  if (status === 401 || status === 403 || detailsReason(failure.body).includes("API_KEY_INVALID")) {
    return { kind: "auth", message: authMessage(provider), ...base };
  }
  if (status === 429 || /rate_limit|RESOURCE_EXHAUSTED/.test(code)) {
    return { kind: "rate_limit", message: line("rate limited"), ...base };
  }
  if (status === 529 || /overloaded/.test(code)) {
    return { kind: "overloaded", message: line("overloaded"), ...base };
  }
  if (status !== undefined && status >= 500) {
    return { kind: "server", message: line(`server error ${status}`), ...base };
  }
  if (CONTEXT_OVERFLOW.test(code) || CONTEXT_OVERFLOW.test(text)) {
    return { kind: "context_overflow", message: line("context window exceeded"), ...base };
  }
  if (status === 404 || MODEL_NOT_FOUND.test(code) || MODEL_NOT_FOUND.test(text)) {
    return {
      kind: "model_not_found",
      message: `unknown model "${model}" for ${provider.id}: ${text}`,
      ...base,
    };
  }
  return { kind: "bad_request", message: line(`request rejected${status ? ` (${status})` : ""}`), ...base };
}

/** A failure with no HTTP response at all: refused, reset, DNS, timeout. */
export function networkError(provider: ResolvedProvider, cause: unknown): ProviderError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return {
    kind: "network",
    message: `cannot reach ${provider.id} at ${provider.baseURL}: ${redact(detail, provider.apiKey)}`,
  };
}

export function droppedError(provider: ResolvedProvider, cause: unknown): ProviderError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return {
    kind: "stream_dropped",
    message: `connection to ${provider.id} ended mid-stream: ${redact(detail, provider.apiKey)}`,
  };
}

export function abortedError(provider: ResolvedProvider): ProviderError {
  return { kind: "aborted", message: `request to ${provider.id} was cancelled` };
}
