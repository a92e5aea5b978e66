/**
 * What Ollama says about a model (`POST /api/show`) and the context window ion uses with it.
 *
 * Ollama runs a model with the context its request's `options.num_ctx` asks for, else the model's
 * Modelfile `num_ctx`, else the server's default (`OLLAMA_CONTEXT_LENGTH`, or 4096 tokens on machines
 * with under 24 GiB of VRAM, 2048 on older versions) — and a longer prompt loses its oldest messages
 * without an error. So ion picks the window itself, sends it as num_ctx on every request, and compacts
 * against it: `context_window` from config when set, else the model's trained context (`model_info
 * ["<arch>.context_length"]`) up to DEFAULT_WINDOW_CAP, never more than the model's own length.
 *
 *   showModel(provider, model) → ShowResult          one request per host and model per process
 *   ollamaWindow(configured, model) → number | undefined
 *   ollamaCapabilities(model) → ModelCapabilities
 */
import { messageOf } from "../util/error-text.ts";
import { bodyMessage, clip, oneLine, record } from "./errors.ts";
import type { ModelCapabilities, ResolvedProvider } from "./types.ts";

export interface OllamaModel {
  /** The longest context the model was trained for. */
  contextLength?: number;
  /** `num_ctx` set by the model's Modelfile (its `parameters`). */
  numCtx?: number;
  /** `general.architecture`, e.g. "qwen3", "gptoss". */
  architecture?: string;
  /** "completion", "tools", "thinking", …; undefined when the server does not say (before 0.6.4). */
  capabilities?: string[];
  /** The values `think` takes, when the server lists them (`thinking.values`). */
  thinkValues?: (boolean | string)[];
}

/** `status` 404: Ollama has no such model (the chat request then says so itself). */
export type ShowResult = { ok: true; model: OllamaModel } | { ok: false; reason: string; status?: number };

/**
 * Without `context_window` in config, the window ion asks for is at most this: enough for an agent's
 * instructions, tools and a working conversation, while the memory the server reserves for the
 * context (which grows with it) stays within a consumer GPU for 8B-class models.
 */
export const DEFAULT_WINDOW_CAP = 32_768;

/** /api/show reads model metadata from disk; an answer slower than this means something is wrong. */
export const SHOW_TIMEOUT_MS = 3000;

/** The Ollama host of a resolved provider: its base URL without the `/v1` that `ollamaBaseURL` adds. */
export function ollamaHost(provider: ResolvedProvider): string {
  return provider.baseURL.replace(/\/v1\/?$/, "");
}

export function ollamaHeaders(provider: ResolvedProvider): Record<string, string> {
  return {
    "content-type": "application/json",
    ...(provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {}),
    ...provider.headers,
  };
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** An /api/show answer read into what ion uses; fields the server did not send stay undefined. */
export function parseShow(body: unknown): OllamaModel {
  const top = record(body) ?? {};
  const info = record(top.model_info) ?? {};
  const architecture =
    typeof info["general.architecture"] === "string" ? info["general.architecture"] : undefined;
  const lengthKey =
    architecture !== undefined && `${architecture}.context_length` in info
      ? `${architecture}.context_length`
      : Object.keys(info).find((key) => key.endsWith(".context_length"));
  const numCtx =
    typeof top.parameters === "string" ? /^num_ctx\s+(\d+)\s*$/m.exec(top.parameters)?.[1] : undefined;
  const capabilities = Array.isArray(top.capabilities)
    ? top.capabilities.filter((c): c is string => typeof c === "string")
    : undefined;
  const values = record(top.thinking)?.values;
  const thinkValues = Array.isArray(values)
    ? values.filter((v): v is boolean | string => typeof v === "boolean" || typeof v === "string")
    : undefined;
  const model: OllamaModel = {};
  const contextLength = lengthKey === undefined ? undefined : positive(info[lengthKey]);
  if (contextLength !== undefined) model.contextLength = contextLength;
  if (numCtx !== undefined && positive(Number(numCtx))) model.numCtx = Number(numCtx);
  if (architecture !== undefined) model.architecture = architecture;
  if (capabilities !== undefined) model.capabilities = capabilities;
  if (thinkValues !== undefined) model.thinkValues = thinkValues;
  return model;
}

async function requestShow(provider: ResolvedProvider, model: string): Promise<ShowResult> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${ollamaHost(provider)}/api/show`, {
      method: "POST",
      headers: ollamaHeaders(provider),
      body: JSON.stringify({ model }),
      signal: AbortSignal.timeout(SHOW_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (err) {
    // Told to the user as the reason the window is unknown (see unknownWindowNotice).
    if (err instanceof DOMException && err.name === "TimeoutError")
      return { ok: false, reason: `no answer within ${SHOW_TIMEOUT_MS / 1000} s` };
    return { ok: false, reason: clip(oneLine(messageOf(err)), 200) };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    body = text;
  }
  if (!response.ok) {
    const said = bodyMessage(body) ?? response.statusText;
    return {
      ok: false,
      reason: `HTTP ${response.status}: ${clip(oneLine(said), 200)}`,
      status: response.status,
    };
  }
  if (!record(body)) return { ok: false, reason: "the answer is not a JSON object" };
  return { ok: true, model: parseShow(body) };
}

const shown = new Map<string, Promise<ShowResult>>();

/** The model as Ollama describes it, asked once per host and model in a process (failures included). */
export function showModel(provider: ResolvedProvider, model: string): Promise<ShowResult> {
  const key = `${ollamaHost(provider)}\n${model}`;
  let answer = shown.get(key);
  if (!answer) {
    answer = requestShow(provider, model);
    shown.set(key, answer);
  }
  return answer;
}

/**
 * The window ion uses and sends as num_ctx: `configured` (config `context_window`) when set, else the
 * model's Modelfile num_ctx or DEFAULT_WINDOW_CAP, whichever is larger; never above the model's
 * trained length (Ollama itself caps num_ctx there). Undefined when nothing is known.
 */
export function ollamaWindow(
  configured: number | undefined,
  model: OllamaModel | undefined,
): number | undefined {
  const trained = model?.contextLength;
  const capped = (n: number) => (trained === undefined ? n : Math.min(n, trained));
  if (configured !== undefined) return capped(configured);
  if (trained === undefined) return model?.numCtx;
  return capped(Math.max(model?.numCtx ?? 0, DEFAULT_WINDOW_CAP));
}

/** Whether the model thinks, calls tools and reads images, by its capabilities; null where the server does not say. */
export function ollamaCapabilities(model: OllamaModel | undefined): ModelCapabilities {
  const caps = model?.capabilities;
  const values = model?.thinkValues;
  // `values: [false]` means the model does not support thinking (Ollama's thinking docs).
  const thinks = values && values.length > 0 && values.every((v) => v === false) ? false : undefined;
  return {
    reasoning: thinks ?? (caps ? caps.includes("thinking") : null),
    tool_call: caps ? caps.includes("tools") : null,
    image_input: caps ? caps.includes("vision") : null,
  };
}

/** The note for a model whose window ion cannot learn: Ollama's default may silently cut the conversation. */
export function unknownWindowNotice(label: string, reason: string): string {
  return (
    `could not read the context length of ${label} from Ollama (${reason}); Ollama's default context ` +
    "(4096 tokens on most machines) silently drops the oldest messages of a longer conversation: " +
    "set `context_window` in ion's config (ion then sends it as num_ctx), or OLLAMA_CONTEXT_LENGTH where Ollama runs"
  );
}
