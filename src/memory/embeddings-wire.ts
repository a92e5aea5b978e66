/**
 * The two embeddings protocols ion speaks, as data: where to POST, with which headers and body, and how
 * to read the vectors out of the answer.
 *
 * - OpenAI-compatible `POST {base}/embeddings` (`model`, `input: string[]`, `dimensions`) → `data[]` of
 *   `{index, embedding}`: OpenAI, Gemini's OpenAI-compatible endpoint, Groq, OpenRouter and any custom
 *   provider on the openai wire; Mistral's `/v1/embeddings` is the same shape (its base URL is the server
 *   root, and its vector size field is `output_dimension`).
 * - Ollama's native `POST {host}/api/embed` (`model`, `input: string[]`, `dimensions`) → `embeddings[][]`.
 */
import { IonError } from "../errors.ts";
import { record } from "../providers/errors.ts";
import { ollamaHeaders, ollamaHost } from "../providers/ollama-show.ts";
import type { ResolvedProvider } from "../providers/types.ts";

export interface EmbeddingWire {
  url: string;
  headers: Record<string, string>;
  body(model: string, texts: readonly string[], dimensions: number | undefined): Record<string, unknown>;
  /** The vectors in input order, or why the answer cannot be read. */
  vectors(answer: unknown): number[][] | string;
}

/** The headers the OpenAI and Mistral SDKs send: bearer key when there is one; configured headers win. */
function bearerHeaders(provider: ResolvedProvider): Record<string, string> {
  return {
    "content-type": "application/json",
    ...(provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {}),
    ...provider.headers,
  };
}

function numbers(value: unknown): number[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.every((n) => typeof n === "number" && Number.isFinite(n)) ? (value as number[]) : undefined;
}

/** `data[]` ordered by each item's `index` (when every item has one), as OpenAI documents it. */
function openAIVectors(answer: unknown): number[][] | string {
  const data = record(answer)?.data;
  if (!Array.isArray(data)) return "no data list";
  const items = data.map((item) => record(item) ?? {});
  const indexed = items.every((item) => typeof item.index === "number");
  const ordered = indexed ? items.toSorted((a, b) => (a.index as number) - (b.index as number)) : items;
  const vectors: number[][] = [];
  for (const item of ordered) {
    const vector = numbers(item.embedding);
    if (!vector) return "an embedding that is not a list of numbers";
    vectors.push(vector);
  }
  return vectors;
}

function ollamaVectors(answer: unknown): number[][] | string {
  const embeddings = record(answer)?.embeddings;
  if (!Array.isArray(embeddings)) return "no embeddings list";
  const vectors: number[][] = [];
  for (const item of embeddings) {
    const vector = numbers(item);
    if (!vector) return "an embedding that is not a list of numbers";
    vectors.push(vector);
  }
  return vectors;
}

function openAICompatible(url: string, provider: ResolvedProvider, sizeField: string): EmbeddingWire {
  return {
    url,
    headers: bearerHeaders(provider),
    body: (model, texts, dimensions) => ({
      model,
      input: texts,
      ...(dimensions === undefined ? {} : { [sizeField]: dimensions }),
    }),
    vectors: openAIVectors,
  };
}

/** The embeddings endpoint of a resolved provider; Anthropic has none, which is a config error. */
export function embeddingWireFor(provider: ResolvedProvider, spec: string): EmbeddingWire {
  switch (provider.wire) {
    case "openai":
      return openAICompatible(`${provider.baseURL}/embeddings`, provider, "dimensions");
    case "mistral":
      return openAICompatible(
        `${provider.baseURL.replace(/\/+$/, "")}/v1/embeddings`,
        provider,
        "output_dimension",
      );
    case "ollama":
      return {
        url: `${ollamaHost(provider)}/api/embed`,
        headers: ollamaHeaders(provider),
        body: (model, texts, dimensions) => ({
          model,
          input: texts,
          ...(dimensions === undefined ? {} : { dimensions }),
        }),
        vectors: ollamaVectors,
      };
    case "anthropic":
      throw new IonError("config", `memory.embedding "${spec}": ${provider.name} offers no embeddings API`, {
        hint: 'choose an embedding model of another provider, e.g. "ollama/nomic-embed-text" or "openai/text-embedding-3-small"',
      });
  }
}
