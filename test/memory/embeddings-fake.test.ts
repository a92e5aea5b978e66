/**
 * The stand-in embeddings the fake server answers with (test/support/fake-embeddings.ts): deterministic,
 * unit length, the requested size, and near for texts that share words — what the memory tests and
 * the recall benchmark rely on.
 */
import { expect, test } from "bun:test";
import {
  embeddingWireOf,
  FAKE_EMBEDDING_DIMENSIONS,
  fakeEmbedding,
  fakeEmbeddingsAnswer,
  stem,
} from "../support/fake-embeddings.ts";

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(cosine(a, a));

test("the same text always gives the same unit vector, of the requested size", () => {
  const a = fakeEmbedding("the staging database listens on 6543");
  expect(a).toEqual(fakeEmbedding("the staging database listens on 6543"));
  expect(a.length).toBe(FAKE_EMBEDDING_DIMENSIONS);
  expect(norm(a)).toBeCloseTo(1, 5);
  expect(fakeEmbedding("x", 8).length).toBe(8);
  // No words at all is still a unit vector, so a cosine is never NaN.
  expect(norm(fakeEmbedding("?!", 16))).toBeCloseTo(1, 5);
});

test("texts sharing words (after stemming) are nearer than texts sharing none", () => {
  expect(stem("tests")).toBe("test");
  expect(stem("testing")).toBe("test");
  expect(stem("is")).toBe("is");
  const fact = fakeEmbedding("bash npm test: error in the orders tests");
  const near = fakeEmbedding("why are the orders tests failing?");
  const far = fakeEmbedding("my dog Miso chewed the headphone cable");
  expect(cosine(fact, near)).toBeGreaterThan(0.3);
  expect(cosine(fact, near)).toBeGreaterThan(cosine(fact, far) + 0.2);
});

test("answers in each wire's shape, honouring dimensions (or Mistral's output_dimension)", () => {
  expect(embeddingWireOf("/v1/embeddings")).toBe("openai");
  expect(embeddingWireOf("/v1beta/openai/embeddings")).toBe("openai");
  expect(embeddingWireOf("/api/embed")).toBe("ollama");
  expect(embeddingWireOf("/v1/chat/completions")).toBeUndefined();

  const openai = fakeEmbeddingsAnswer("openai", { model: "m", input: ["a b", "c"], dimensions: 4 }) as {
    data: { index: number; embedding: number[] }[];
    model: string;
  };
  expect(openai.model).toBe("m");
  expect(openai.data.map((d) => [d.index, d.embedding.length])).toEqual([
    [0, 4],
    [1, 4],
  ]);
  const mistral = fakeEmbeddingsAnswer("openai", { model: "m", input: "one", output_dimension: 6 }) as {
    data: { embedding: number[] }[];
  };
  expect(mistral.data[0]?.embedding).toHaveLength(6);
  const ollama = fakeEmbeddingsAnswer("ollama", { model: "m", input: ["a", "b"] }) as {
    embeddings: number[][];
  };
  expect(ollama.embeddings.map((e) => e.length)).toEqual([
    FAKE_EMBEDDING_DIMENSIONS,
    FAKE_EMBEDDING_DIMENSIONS,
  ]);
  expect(fakeEmbeddingsAnswer("openai", {})).toBeUndefined();
});
