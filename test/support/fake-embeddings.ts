/**
 * Deterministic stand-in embeddings for tests and the recall benchmark: a hashed bag of words. Each
 * word is lower-cased, crudely stemmed ("tests", "testing", "tested" → "test") and hashed (FNV-1a)
 * into one of N dimensions with a hashed sign; the vector is L2-normalised. Texts sharing words are
 * near, texts sharing none are about orthogonal — enough to exercise vector ranking without a model,
 * though it knows nothing of meaning (a paraphrase with other words is not near).
 *
 * The fake LLM server answers `/v1/embeddings` (OpenAI-compatible) and `/api/embed` (Ollama) with these.
 */

/** Vector size when the request names none. */
export const FAKE_EMBEDDING_DIMENSIONS = 256;

/** Words too common to say anything about a text. */
const STOPWORDS = new Set(
  "a an and are as at be but by do does did for from has have how i in is it its me my of on or our so that the this to was we were what when where which who why will with you your".split(
    " ",
  ),
);

const SUFFIXES = ["ing", "ed", "es", "s", "ly"] as const;

/** "testing" → "test", "files" → "file"; leaves short words alone so "is"/"bus" do not collapse. */
export function stem(word: string): string {
  for (const suffix of SUFFIXES) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

export function fakeEmbeddingWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOPWORDS.has(word)).map(stem);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function fakeEmbedding(text: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const word of fakeEmbeddingWords(text)) {
    const hash = fnv1a(word);
    vector[hash % dimensions]! += hash & 0x80000000 ? -1 : 1;
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  // A text with no words still gets a unit vector, so cosine similarity is never NaN.
  if (norm === 0) vector[0] = 1;
  else for (let i = 0; i < dimensions; i++) vector[i]! /= Math.sqrt(norm);
  return vector;
}

/** The inputs of an embeddings request body (a string or a list of strings), or undefined when malformed. */
function inputsOf(body: unknown): string[] | undefined {
  const input = (body as { input?: unknown } | undefined)?.input;
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.every((item) => typeof item === "string")) return input;
  return undefined;
}

function dimensionsOf(body: unknown, field: "dimensions" | "output_dimension"): number {
  const value = (body as Record<string, unknown> | undefined)?.[field];
  return typeof value === "number" && Number.isInteger(value) && value > 0
    ? value
    : FAKE_EMBEDDING_DIMENSIONS;
}

export type EmbeddingWire = "openai" | "ollama";

/** The JSON answer of an embeddings endpoint, in the wire's shape; undefined when the body has no input. */
export function fakeEmbeddingsAnswer(wire: EmbeddingWire, body: unknown): unknown {
  const inputs = inputsOf(body);
  if (!inputs) return undefined;
  const model = (body as { model?: unknown }).model;
  const requested = (body as { dimensions?: unknown }).dimensions;
  const size =
    requested === undefined ? dimensionsOf(body, "output_dimension") : dimensionsOf(body, "dimensions");
  const vectors = inputs.map((text) => Array.from(fakeEmbedding(text, size)));
  const tokens = inputs.reduce((sum, text) => sum + fakeEmbeddingWords(text).length, 0);
  if (wire === "ollama") {
    return {
      model,
      embeddings: vectors,
      total_duration: 1_000_000,
      load_duration: 0,
      prompt_eval_count: tokens,
    };
  }
  return {
    object: "list",
    data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** Which embeddings endpoint a request path is, if any. */
export function embeddingWireOf(pathname: string): EmbeddingWire | undefined {
  if (pathname.endsWith("/api/embed")) return "ollama";
  if (pathname.endsWith("/embeddings")) return "openai";
  return undefined;
}
