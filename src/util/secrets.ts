/**
 * The one masker for secrets: API keys, credentials in URLs, secret-looking header values, and any of
 * them inside free text (a server's error message, an SDK's debug log). Every place ion prints, logs
 * or saves something that may hold a secret goes through here.
 */

import { isPlainObject } from "./plain-object.ts";

/** `sk-proj-abcdef…wxyz` → `sk-…wxyz`: enough to tell keys apart, never enough to use one. */
export function maskKey(key: string): string {
  if (key.length <= 8) return "…";
  const prefix = key.startsWith("sk-") ? "sk-" : "";
  return `${prefix}…${key.slice(-4)}`;
}

/** What replaces a URL's user info and each query value. */
const HIDDEN = "***";

/** `scheme://` then the authority, path, query and fragment, taken apart without normalising anything. */
const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i;

/**
 * A URL without its credentials: user info becomes `***`, each query value `***` (parameter names
 * stay, so `?api-version=***` still says what was set), a fragment `#***`. Anything else is kept as
 * written; text that is not a `scheme://` URL comes back unchanged.
 */
export function maskUrl(url: string): string {
  const parts = URL_PARTS.exec(url);
  if (!parts) return url;
  const [, scheme, authority = "", path = "", query, fragment] = parts;
  const at = authority.lastIndexOf("@");
  const host = at < 0 ? authority : `${HIDDEN}@${authority.slice(at + 1)}`;
  const hash = fragment === undefined || fragment === "#" ? (fragment ?? "") : `#${HIDDEN}`;
  return `${scheme}${host}${path}${query === undefined ? "" : maskQuery(query)}${hash}`;
}

/**
 * A configured base URL as shown in an error, even when it is not a `scheme://` URL (a typo such as
 * `htp:/u:pw@host`): what looks like user info or a query is hidden all the same.
 */
export function maskBaseURL(text: string): string {
  if (URL_PARTS.test(text)) return maskUrl(text);
  const at = text.lastIndexOf("@");
  const host = at < 0 ? text : `${HIDDEN}@${text.slice(at + 1)}`;
  const q = host.indexOf("?");
  return q < 0 ? host : `${host.slice(0, q)}?${HIDDEN}`;
}

function maskQuery(query: string): string {
  const pairs = query
    .slice(1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      if (eq < 0) return pair === "" ? pair : HIDDEN;
      return eq === pair.length - 1 ? pair : `${pair.slice(0, eq + 1)}${HIDDEN}`;
    });
  return `?${pairs.join("&")}`;
}

/** Whether a URL carries credentials: a password in its user info or anything in its query. */
export function urlHasCredentials(url: string): boolean {
  return maskUrl(url) !== url;
}

/** Header (and setting) names whose values are credentials. */
const SECRET_NAME = /key|token|secret|auth|passw|cookie|credential|signature/i;

export function isSecretHeader(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * A header's value as it may be shown: masked when the name looks secret (`authorization`,
 * `x-api-key`, `x-gateway-key`, `cookie`…), keeping an auth scheme word (`Bearer …wxyz`).
 */
export function maskHeaderValue(name: string, value: string): string {
  if (!isSecretHeader(name)) return value;
  const scheme = /^(Bearer|Basic|Token|Bot)\s+(\S.*)$/i.exec(value);
  return scheme ? `${scheme[1]} ${maskKey(scheme[2]!)}` : maskKey(value);
}

/** Key-shaped tokens a server or log may echo: OpenAI/Anthropic `sk-…`, Groq `gsk_…`, Google `AIza…`. */
const KEY_SHAPED = /\b(sk-|gsk_|AIza)[A-Za-z0-9_*-]{8,}/g;
/** A credential after an auth scheme, e.g. an `Authorization` header quoted in a debug log. */
const SCHEME_TOKEN = /\b(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{8,})/g;
/** A URL in running text, minus punctuation that ends the sentence around it. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*[^\s"'<>`.,;:!?)\]}]/gi;

/** Known secrets shorter than this are not searched for: masking every "abc" would garble the text. */
const MIN_KNOWN_SECRET = 4;

/**
 * `text` with every known secret (the key in use, configured header values) masked, and also any
 * key-shaped token, `Bearer` credential and URL with credentials found in it: behind a gateway the
 * echoed key may be another one.
 */
export function redactText(text: string, knownSecrets: Iterable<string | undefined> = []): string {
  let out = text;
  const known = [...knownSecrets].filter((s): s is string => s !== undefined && s.length >= MIN_KNOWN_SECRET);
  // Longest first, so a key inside a longer header value does not leave the rest of that value behind.
  for (const secret of known.sort((a, b) => b.length - a.length))
    if (out.includes(secret)) out = out.split(secret).join(maskKey(secret));
  return out
    .replace(KEY_SHAPED, (token) => maskKey(token))
    .replace(SCHEME_TOKEN, (_match, scheme: string, token: string) => `${scheme} ${maskKey(token)}`)
    .replace(URL_IN_TEXT, (url) => maskUrl(url));
}

type JsonObject = Record<string, unknown>;

/**
 * Masks, in place, the secrets of a config object or any part of one: `api_key` values, `api_base`
 * credentials and secret-looking `headers` values, at the top level and under `providers`. `inside`
 * names the keys leading to `node` when it is not the whole config (`["providers", "x", "headers"]`).
 */
export function maskConfigSecrets(node: JsonObject, inside: readonly string[] = []): void {
  const byName = inside.at(-1) === "headers" || isMcpServerEnv(inside);
  for (const [key, value] of Object.entries(node)) {
    if (typeof value === "string") {
      if (byName) node[key] = maskHeaderValue(key, value);
      else if (key === "api_key") node[key] = maskKey(value);
      else if (key === "api_base" || isMcpServerUrl(inside, key)) node[key] = maskUrl(value);
    } else if (isPlainObject(value)) maskConfigSecrets(value, [...inside, key]);
  }
}

/** An MCP server's `env` (`mcpServers.<name>.env`): its values are masked by name, as headers are. */
function isMcpServerEnv(inside: readonly string[]): boolean {
  return inside.length === 3 && inside[0] === "mcpServers" && inside[2] === "env";
}

/** An MCP server's `url` (`mcpServers.<name>.url`): its credentials are masked as a base URL's. */
function isMcpServerUrl(inside: readonly string[], key: string): boolean {
  return key === "url" && inside.length === 2 && inside[0] === "mcpServers";
}

/** Whether a config object holds a secret: an API key, a secret-looking header value or URL credentials. */
export function holdsSecret(node: unknown, inside: readonly string[] = []): boolean {
  if (!isPlainObject(node)) return false;
  const byName = inside.at(-1) === "headers" || isMcpServerEnv(inside);
  return Object.entries(node).some(([key, value]) => {
    if (typeof value !== "string") return holdsSecret(value, [...inside, key]);
    if (value === "") return false;
    if (byName) return isSecretHeader(key);
    if (key === "api_key") return true;
    if (isMcpServerUrl(inside, key)) return urlHasCredentials(value);
    return key === "api_base" && /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value);
  });
}
