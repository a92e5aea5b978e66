import { redactText } from "../util/secrets.ts";

/**
 * Secrets out of what memory stores: the known values (keys.json, configured keys and secret headers)
 * and anything shaped like a credential, replaced before a memory is written — a memory is recalled
 * into later requests and shown by `ion memory`, so a key in it would travel.
 *
 *   redactForMemory("my key is ghp_0123456789abcdefghij0123456789abcdef", []) → "my key is [redacted]"
 */

const REDACTED = "[redacted]";

/** Credential shapes beyond the ones util/secrets.ts masks (`sk-`, `gsk_`, `AIza`, Bearer, URL credentials). */
const KEY_SHAPES: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g, // Stripe
  /\b(?:sk|gsk)[-_][A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic, DeepSeek, Groq …
  /\b(?:gh[opusr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, // GitHub
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key id
  /\b(?:hf|xai|pplx|nvapi)[_-][A-Za-z0-9_-]{20,}/g, // Hugging Face, xAI, Perplexity, NVIDIA
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWT
];

/** `api_key = "…"`, `PASSWORD: …`, `token=…`: the name stays, the value goes. */
const ASSIGNED_SECRET =
  /\b([A-Za-z0-9_.-]*(?:api[_-]?key|secret|token|passw(?:or)?d|credential)[A-Za-z0-9_.-]*)(["']?\s*[:=]\s*["']?)([^\s"'`,;]{6,})/gi;

/** A long unbroken run of letters and digits (with both): a key nobody labelled. */
const LONG_TOKEN = /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{40,}\b/g;

/** `text` with every known secret and every credential-shaped token replaced by `[redacted]`. */
export function redactForMemory(text: string, known: readonly string[]): string {
  let out = text;
  // Known values first, whole: the masker below would keep their last characters.
  for (const secret of [...known].filter((s) => s.length >= 8).sort((a, b) => b.length - a.length))
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  for (const shape of KEY_SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(ASSIGNED_SECRET, (_match, name: string, sep: string) => `${name}${sep}${REDACTED}`);
  out = out.replace(LONG_TOKEN, (token) => (/^[0-9a-f]{40}$/.test(token) ? token : REDACTED));
  // The shared masker last: `sk-…`, Bearer credentials, URL user info and query values.
  return redactText(out, known);
}
