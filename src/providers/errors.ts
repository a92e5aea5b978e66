import { isSecretHeader, maskUrl, redactText } from "../util/secrets.ts";
import { StalledServerError } from "./idle.ts";
import { builtinProvider } from "./registry.ts";
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

export function record(value: unknown): Record<string, unknown> | undefined {
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
  // FastAPI's `{"detail": …}`, as an SDK rewraps it under `error`.
  if (inner && typeof inner.detail === "string") return inner.detail;
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
/**
 * What an unknown model reads like on each server: OpenAI ("The model `x` does not exist"), Anthropic
 * ("model: x"), Gemini ("models/x is not found"), Ollama ("model \"x\" not found"), Mistral ("Invalid
 * model: x"), OpenRouter ("No endpoints found for x"), LiteLLM ("Invalid model name passed in model=x").
 */
const MODEL_NOT_FOUND =
  /model_not_found|\bmodels?\b.{0,80}?\b(not found|does not exist)|unknown model|no such model|invalid model|^model: |no endpoints found for/i;

/** OpenRouter's 404 when no endpoint of the model takes `tools` (or the `tool_choice` given). */
const NO_TOOL_ENDPOINTS = /no endpoints found that support (tool use|the provided 'tool_choice')/i;

/** A server message quoted in an auth error is kept to this many characters; others to SERVER_TEXT_MAX. */
export const AUTH_TEXT_MAX = 200;
const SERVER_TEXT_MAX = 300;

/** Text a runtime adds for its developers, not for ion's users (Bun's fetch appends this to its errors). */
const RUNTIME_NOISE = /\s*For more information, pass `verbose: true` in the second argument to fetch\(\)\.?/g;

/** Any text as one line: newlines and runs of whitespace become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** `text` cut to `max` characters, marked with "…" when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** A server's or runtime's text fit for an error line: no runtime internals, one line, no secret. */
function cleanText(text: string, provider: ResolvedProvider, max = SERVER_TEXT_MAX): string {
  let out = text;
  // A proxy's HTML error page: its title says it all.
  if (/^\s*</.test(out)) out = /<title[^>]*>([^<]*)<\/title>/i.exec(out)?.[1] ?? out.replace(/<[^>]*>/g, " ");
  return clip(oneLine(redactText(out.replace(RUNTIME_NOISE, ""), providerSecrets(provider))), max);
}

/** Shorter query values (`?v=2`, `?format=json`) are settings, and too common in text to search for. */
const QUERY_SECRET_MIN = 8;

/**
 * What only this provider's configuration knows to be secret: the key, secret-looking header values,
 * the base URL's password and query values (a server may echo them in a path). `redactText` masks
 * these wherever they appear.
 */
export function providerSecrets(provider: ResolvedProvider): string[] {
  const secrets = Object.entries(provider.headers)
    .filter(([name]) => isSecretHeader(name))
    .map(([, value]) => value);
  if (provider.apiKey) secrets.push(provider.apiKey);
  if (!URL.canParse(provider.baseURL)) return secrets;
  const url = new URL(provider.baseURL);
  // `https://TOKEN@host` carries the token as the user name; beside a password it is just a name.
  const credential = url.password || url.username;
  if (credential) secrets.push(credential, decoded(credential));
  for (const value of url.searchParams.values())
    if (value.length >= QUERY_SECRET_MIN) secrets.push(value, encodeURIComponent(value));
  return secrets;
}

/** A URL part as typed before percent-encoding; as it is when it does not decode. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch (err) {
    if (err instanceof URIError) return part;
    throw err;
  }
}

/** Where ion looks for the provider's key, in its order: config, keys.json, the env vars. */
function keyLocations(provider: ResolvedProvider): string {
  const places = [`providers.${provider.id}.api_key in config.json`, "keys.json"];
  for (const name of builtinProvider(provider.id)?.keyEnv ?? []) places.push(`$${name}`);
  return `${places.slice(0, -1).join(", ")} and ${places.at(-1)}`;
}

/** A built-in provider that needs a key has none: said before any request is made. */
export function missingKeyError(provider: ResolvedProvider): ProviderError | undefined {
  const builtin = builtinProvider(provider.id);
  if (provider.apiKey || !builtin?.needsKey) return undefined;
  const env = builtin.keyEnv[0];
  return {
    kind: "auth",
    message: `no API key for ${provider.id} (ion looked in ${keyLocations(provider)}): run \`ion providers login ${provider.id}\`${env ? ` or set ${env}` : ""}`,
  };
}

/**
 * A rejected request (401/403): the key's source and the server's own words, which matter behind a
 * gateway, where the key it rejects may be its upstream key rather than the user's.
 */
export function authMessage(provider: ResolvedProvider, serverText?: string): string {
  const said = serverText ? `: ${clip(serverText, AUTH_TEXT_MAX)}` : "";
  if (!provider.apiKey) {
    return `no API key for ${provider.id}, and the server asks for one${said} (ion looked in ${keyLocations(provider)}; run \`ion providers login ${provider.id}\`)`;
  }
  return `invalid API key for ${provider.id} (from ${provider.keySource})${said}`;
}

/** Why the base URL is likely wrong, when its shape says so. */
function baseURLHint(provider: ResolvedProvider): string {
  const path = URL.canParse(provider.baseURL) ? new URL(provider.baseURL).pathname.replace(/\/+$/, "") : "";
  const source = provider.baseURLSource ?? "the base URL";
  if (provider.wire !== "openai" && path.endsWith("/v1")) {
    const example = builtinProvider(provider.id)?.baseURL;
    return ` — ${source} should be the server root without /v1${example ? ` (like ${example})` : ""}`;
  }
  if (provider.wire === "openai" && !/\/v\d/.test(path)) {
    return ` — ${source} of an OpenAI-compatible server usually ends in /v1`;
  }
  return "";
}

/** The SDKs prefix their own message with the status (`404 page not found`); the line names it anyway. */
function sdkText(message: string | undefined, status: number | undefined): string | undefined {
  return status === undefined ? message : message?.replace(new RegExp(`^${status}\\s+`), "");
}

export function classifyHttpError(
  provider: ResolvedProvider,
  model: string,
  failure: HttpFailure,
): ProviderError {
  const status = failure.status;
  const said = bodyMessage(failure.body) ?? sdkText(failure.message, status);
  const text = cleanText(said ?? `HTTP ${status ?? "error"}`, provider);
  const code = bodyCode(failure.body);
  const wait = retryAfterMs(failure);
  const base = {
    ...(status === undefined ? {} : { status }),
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  };
  const line = (kind: string) => `${kind} from ${provider.id}: ${text}`;

  if (status === 401 || status === 403 || detailsReason(failure.body).includes("API_KEY_INVALID")) {
    const quoted = said === undefined ? undefined : cleanText(said, provider, AUTH_TEXT_MAX);
    return { kind: "auth", message: authMessage(provider, quoted), ...base };
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
  if (MODEL_NOT_FOUND.test(code) || MODEL_NOT_FOUND.test(text)) {
    return {
      kind: "model_not_found",
      message: `unknown model "${model}" for ${provider.id}: ${text}`,
      ...base,
    };
  }
  if (NO_TOOL_ENDPOINTS.test(text)) {
    // OpenRouter: no provider serving this model accepts `tools`. A 404, but the base URL is fine.
    return {
      kind: "bad_request",
      message: `${provider.id}/${model} cannot use tools (${text}): run with --no-tools, or choose a model that supports tools (\`ion models --provider ${provider.id}\` marks them)`,
      ...base,
    };
  }
  if (status === 404) {
    // Nothing in the answer names the model: the path itself does not exist on this server.
    return {
      kind: "bad_request",
      message: `${provider.id} has no such endpoint (404 ${text}): check the base URL: ${maskUrl(provider.baseURL)}${baseURLHint(provider)}`,
      ...base,
    };
  }
  return { kind: "bad_request", message: line(`request rejected${status ? ` (${status})` : ""}`), ...base };
}

/** The idle timeout, when it is what ended the attempt (anywhere in the cause chain the SDK built). */
function idleCause(cause: unknown): StalledServerError | undefined {
  for (let at = cause, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    if (at instanceof StalledServerError) return at;
  }
  return undefined;
}

/** An error's message with its causes' where they add something (`Connection error. (socket closed)`). */
function errorText(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const parts = [cause.message];
  for (let at = cause.cause, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    if (at.message && !parts.some((p) => p.includes(at.message))) parts.push(at.message);
  }
  return parts.length === 1 ? parts[0]! : `${parts[0]} (${parts.slice(1).join(": ")})`;
}

function idleError(idle: StalledServerError): ProviderError {
  return { kind: "idle_timeout", message: idle.message };
}

/** A failure with no HTTP response at all: refused, reset, DNS, or no answer within the idle timeout. */
export function networkError(provider: ResolvedProvider, cause: unknown): ProviderError {
  const idle = idleCause(cause);
  if (idle) return idleError(idle);
  return {
    kind: "network",
    message: `cannot reach ${provider.id} at ${maskUrl(provider.baseURL)}: ${cleanText(errorText(cause), provider)}`,
  };
}

export function droppedError(provider: ResolvedProvider, cause: unknown): ProviderError {
  const idle = idleCause(cause);
  if (idle) return idleError(idle);
  return {
    kind: "stream_dropped",
    message: `connection to ${provider.id} ended mid-stream: ${cleanText(errorText(cause), provider)}`,
  };
}

export function abortedError(provider: ResolvedProvider): ProviderError {
  return { kind: "aborted", message: `request to ${provider.id} was cancelled` };
}
