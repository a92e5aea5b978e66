/**
 * Embedding providers for memory recall: `memory.embedding: "provider/model"` resolved exactly as the
 * chat resolves a provider (base URL, key, headers — src/config/resolve.ts), then plain `fetch` to the
 * wire's embeddings endpoint (embeddings-wire.ts): no SDK is loaded.
 *
 * Inputs go in batches of at most EMBED_BATCH; each batch is retried like a chat request (429, 5xx,
 * connection failures; the server's retry-after honoured) and the caller's signal aborts it. Every
 * failure is an EmbeddingError whose one-line message names the model and never holds the key.
 */
import type { Env } from "../config/paths.ts";
import { resolveProvider } from "../config/resolve.ts";
import type { Config, Keys } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import {
  abortedError,
  classifyHttpError,
  droppedError,
  missingKeyError,
  networkError,
} from "../providers/errors.ts";
import { idleFetch } from "../providers/idle.ts";
import { DEFAULT_RETRY, type RetryPolicy, retryDelayMs, sleep } from "../providers/retry.ts";
import {
  isRetryable,
  type ProviderError,
  type ProviderErrorKind,
  type ResolvedProvider,
} from "../providers/types.ts";
import { type EmbeddingWire, embeddingWireFor } from "./embeddings-wire.ts";
import type { EmbeddingProvider } from "./types.ts";

/** Inputs per request: under every provider's limit (OpenAI 2048, Gemini 100, Mistral's token cap). */
export const EMBED_BATCH = 96;

export class EmbeddingError extends IonError {
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  constructor(model: string, error: ProviderError) {
    super("provider", `embeddings ${model}: ${error.message}`);
    this.name = "EmbeddingError";
    this.kind = error.kind;
    this.status = error.status;
  }
}

export interface EmbedderSetup {
  config: Config;
  env: Env;
  /** keys.json, as loadConfig read it. */
  keys?: Keys;
  /** Tests shorten the waits; the default is the chat's policy. */
  retry?: RetryPolicy;
}

/**
 * The vectors' identity in the store: the spec, plus the size when one is asked for, since the same
 * model at another size gives vectors that cannot be compared (a change re-embeds lazily).
 */
export function embeddingModelId(spec: string, dimensions: number | undefined): string {
  return dimensions === undefined ? spec : `${spec}@${dimensions}`;
}

/** A whole non-streaming answer may be retried when it broke off: nothing of it was shown to anyone. */
function retryable(error: ProviderError): boolean {
  return isRetryable(error) || error.kind === "stream_dropped";
}

class HttpEmbedder implements EmbeddingProvider {
  readonly model: string;
  private readonly fetch: ReturnType<typeof idleFetch>;

  constructor(
    private readonly provider: ResolvedProvider,
    private readonly wire: EmbeddingWire,
    private readonly modelName: string,
    private readonly dimensions: number | undefined,
    private readonly policy: RetryPolicy,
    spec: string,
  ) {
    this.model = embeddingModelId(spec, dimensions);
    this.fetch = idleFetch(provider);
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let at = 0; at < texts.length; at += EMBED_BATCH) {
      vectors.push(...(await this.batch(texts.slice(at, at + EMBED_BATCH), signal)));
    }
    const size = vectors[0]?.length;
    if (vectors.some((vector) => vector.length !== size)) {
      throw this.failure({
        kind: "bad_request",
        message: `${this.provider.id} answered with vectors of different sizes`,
      });
    }
    return vectors;
  }

  private failure(error: ProviderError): EmbeddingError {
    return new EmbeddingError(this.model, error);
  }

  private async batch(texts: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const waitSignal = signal ?? new AbortController().signal;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw this.failure(abortedError(this.provider));
      const outcome = await this.attempt(texts, signal);
      if (Array.isArray(outcome)) return outcome;
      if (!retryable(outcome) || attempt >= this.policy.maxRetries) throw this.failure(outcome);
      await sleep(retryDelayMs(outcome, attempt, this.policy), waitSignal);
    }
  }

  /** One request: the vectors, or the classified failure. */
  private async attempt(
    texts: string[],
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[] | ProviderError> {
    const { provider } = this;
    const body = JSON.stringify(this.wire.body(this.modelName, texts, this.dimensions));
    let response: Response;
    try {
      response = await this.fetch(this.wire.url, {
        method: "POST",
        headers: this.wire.headers,
        body,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      return signal?.aborted ? abortedError(provider) : networkError(provider, err);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      return signal?.aborted ? abortedError(provider) : droppedError(provider, err);
    }
    const answer = parseJson(text);
    if (!response.ok) {
      return classifyHttpError(provider, this.modelName, {
        status: response.status,
        headers: response.headers,
        body: answer,
        message: response.statusText,
      });
    }
    const vectors = this.wire.vectors(answer);
    if (typeof vectors === "string") {
      return {
        kind: "bad_request",
        message: `${provider.id} answered the embeddings request with ${vectors}`,
      };
    }
    if (vectors.length !== texts.length) {
      return {
        kind: "bad_request",
        message: `${provider.id} answered ${vectors.length} embeddings for ${texts.length} inputs`,
      };
    }
    return vectors.map((vector) => Float32Array.from(vector));
  }
}

/** The body as JSON, or as the text itself (a proxy's HTML page, a plain-text error). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return text;
  }
}

/**
 * The embedding provider `spec` ("provider/model", the model part sent as is) names, with
 * `memory.embedding_dimensions` when set. Throws an IonError for an unknown provider, a provider with
 * no embeddings API, or a built-in provider that needs a key and has none.
 */
export async function embedderFor(spec: string, setup: EmbedderSetup): Promise<EmbeddingProvider> {
  const slash = spec.indexOf("/");
  const providerId = slash > 0 ? spec.slice(0, slash) : "";
  const model = slash > 0 ? spec.slice(slash + 1) : "";
  if (providerId === "" || model.trim() === "") {
    throw new IonError("config", `memory.embedding "${spec}" is not provider/model`, {
      hint: 'e.g. "ollama/nomic-embed-text" or "openai/text-embedding-3-small"',
    });
  }
  const provider = resolveProvider(setup.config, providerId, setup.env, setup.keys ?? {});
  const wire = embeddingWireFor(provider, spec);
  const dimensions = setup.config.memory?.embedding_dimensions;
  const missing = missingKeyError(provider);
  if (missing) throw new EmbeddingError(embeddingModelId(spec, dimensions), missing);
  return new HttpEmbedder(provider, wire, model, dimensions, setup.retry ?? DEFAULT_RETRY, spec);
}
