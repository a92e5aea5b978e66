/**
 * Embedding providers against the fake LLM server (real HTTP on 127.0.0.1): each wire's request, the
 * batching, retries, errors and abort.
 */
import { describe, expect, test } from "bun:test";
import type { Config } from "../../src/config/schema.ts";
import { IonError } from "../../src/errors.ts";
import { EMBED_BATCH, EmbeddingError, embedderFor } from "../../src/memory/embeddings.ts";
import type { RetryPolicy } from "../../src/providers/retry.ts";
import { fakeEmbedding } from "../support/fake-embeddings.ts";
import { useFakeLLM } from "../support/stream-helpers.ts";

const KEY = "test-key-123";
const FAST: RetryPolicy = { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 20, maxServerDelayMs: 50 };
const server = useFakeLLM({ resetRequestsEachTest: true });

function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return {
    status,
    pathSuffix: "/embeddings",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  };
}

/** An OpenAI embedder pointed at the fake server, with `config` merged in. */
function openai(config: Config = {}, retry: RetryPolicy = FAST) {
  return embedderFor("openai/text-embedding-3-small", {
    config,
    env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: KEY },
    retry,
  });
}

function near(actual: Float32Array, expected: Float32Array): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i]).toBeCloseTo(expected[i]!, 5);
}

describe("request shape per wire", () => {
  test("OpenAI: POST /v1/embeddings with model, input list, dimensions, bearer key and configured headers", async () => {
    const embedder = await openai({
      memory: { embedding_dimensions: 64 },
      providers: { openai: { headers: { "x-team": "memory" } } },
    });
    expect(embedder.model).toBe("openai/text-embedding-3-small@64");
    const [vector] = await embedder.embed(["the staging database listens on 6543"]);
    near(vector!, fakeEmbedding("the staging database listens on 6543", 64));
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/embeddings");
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers["x-team"]).toBe("memory");
    expect(request?.body).toEqual({
      model: "text-embedding-3-small",
      input: ["the staging database listens on 6543"],
      dimensions: 64,
    });
  });

  test("without embedding_dimensions no size is sent and the id is the spec", async () => {
    const embedder = await openai();
    expect(embedder.model).toBe("openai/text-embedding-3-small");
    const [vector] = await embedder.embed(["hello"]);
    expect(vector?.length).toBe(256);
    expect(server.requests[0]?.body).toEqual({ model: "text-embedding-3-small", input: ["hello"] });
  });

  test("Gemini's OpenAI-compatible endpoint: {api_base}/embeddings with the Gemini key", async () => {
    const embedder = await embedderFor("google/gemini-embedding-001", {
      config: { providers: { google: { api_base: `${server.url}/v1beta/openai` } } },
      env: { GEMINI_API_KEY: KEY },
    });
    await embedder.embed(["a", "b"]);
    expect(server.requests[0]?.path).toBe("/v1beta/openai/embeddings");
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]?.body).toEqual({ model: "gemini-embedding-001", input: ["a", "b"] });
  });

  test("Mistral: the server root + /v1/embeddings, its size field is output_dimension", async () => {
    const embedder = await embedderFor("mistral/mistral-embed", {
      config: { memory: { embedding_dimensions: 32 } },
      env: { MISTRAL_BASE_URL: server.url, MISTRAL_API_KEY: KEY },
    });
    const [vector] = await embedder.embed(["pnpm install"]);
    expect(vector?.length).toBe(32);
    expect(server.requests[0]?.path).toBe("/v1/embeddings");
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]?.body).toEqual({
      model: "mistral-embed",
      input: ["pnpm install"],
      output_dimension: 32,
    });
  });

  test("Groq, OpenRouter (a model id with a slash) and a custom provider use their api_base", async () => {
    const config: Config = {
      providers: {
        groq: { api_base: `${server.url}/groq/v1` },
        openrouter: { api_base: `${server.url}/openrouter/v1` },
        local: { type: "openai-compatible", api_base: `${server.url}/local/v1` },
      },
    };
    const env = { GROQ_API_KEY: KEY, OPENROUTER_API_KEY: KEY };
    await (await embedderFor("groq/nomic-embed", { config, env })).embed(["x"]);
    await (await embedderFor("openrouter/openai/text-embedding-3-small", { config, env })).embed(["x"]);
    await (await embedderFor("local/bge-m3", { config, env })).embed(["x"]);
    expect(server.requests.map((r) => r.path)).toEqual([
      "/groq/v1/embeddings",
      "/openrouter/v1/embeddings",
      "/local/v1/embeddings",
    ]);
    expect(server.requests.map((r) => (r.body as { model: string }).model)).toEqual([
      "nomic-embed",
      "openai/text-embedding-3-small",
      "bge-m3",
    ]);
    // The custom provider has no key: no Authorization header at all.
    expect(server.requests[2]?.headers.authorization).toBeUndefined();
  });

  test("Ollama: native POST /api/embed on the host, no key needed", async () => {
    const embedder = await embedderFor("ollama/nomic-embed-text", {
      config: { memory: { embedding_dimensions: 48 } },
      env: { OLLAMA_HOST: server.url },
    });
    const texts = ["bash npm test: error", "the tests fail on CI"];
    const vectors = await embedder.embed(texts);
    near(vectors[1]!, fakeEmbedding(texts[1]!, 48));
    const [request] = server.requests;
    expect(request?.path).toBe("/api/embed");
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toEqual({ model: "nomic-embed-text", input: texts, dimensions: 48 });
  });
});

describe("batching", () => {
  test(`inputs go ${EMBED_BATCH} a request, and the vectors come back in input order`, async () => {
    const texts = Array.from(
      { length: 2 * EMBED_BATCH + 8 },
      (_, i) => `memory number ${i} about topic ${i % 7}`,
    );
    const vectors = await (await openai()).embed(texts);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input.length)).toEqual([
      EMBED_BATCH,
      EMBED_BATCH,
      8,
    ]);
    expect(vectors).toHaveLength(texts.length);
    for (const at of [0, EMBED_BATCH, texts.length - 1]) near(vectors[at]!, fakeEmbedding(texts[at]!));
  });

  test("an empty list makes no request", async () => {
    expect(await (await openai()).embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  test("items out of order are put back by their index", async () => {
    const a = Array.from(fakeEmbedding("alpha"));
    const b = Array.from(fakeEmbedding("beta"));
    server.enqueue(
      json(200, {
        data: [
          { index: 1, embedding: b },
          { index: 0, embedding: a },
        ],
      }),
    );
    const vectors = await (await openai()).embed(["alpha", "beta"]);
    near(vectors[0]!, fakeEmbedding("alpha"));
    near(vectors[1]!, fakeEmbedding("beta"));
  });
});

describe("retries and errors", () => {
  test("429 with retry-after-ms, then success: retried once", async () => {
    server.enqueue(
      json(429, { error: { message: "Rate limit reached", type: "requests" } }, { "retry-after-ms": "10" }),
    );
    const vectors = await (await openai()).embed(["retry me"]);
    near(vectors[0]!, fakeEmbedding("retry me"));
    expect(server.requests).toHaveLength(2);
  });

  test("a 503 and a connection cut mid-answer are retried", async () => {
    server.enqueue(json(503, { error: { message: "overloaded, try later" } }));
    server.enqueue({ pathSuffix: "/embeddings", chunks: ['{"data":[', "x"], dropAfterChunks: 1 });
    const vectors = await (await openai()).embed(["still works"]);
    near(vectors[0]!, fakeEmbedding("still works"));
    expect(server.requests).toHaveLength(3);
  });

  test("after 3 retries the rate limit is the error", async () => {
    for (let i = 0; i < 4; i++) server.enqueue(json(429, { error: { message: "Rate limit reached" } }));
    const error = await (await openai()).embed(["x"]).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as EmbeddingError).kind).toBe("rate_limit");
    expect((error as EmbeddingError).message).toBe(
      "embeddings openai/text-embedding-3-small: rate limited from openai: Rate limit reached",
    );
    expect(server.requests).toHaveLength(4);
  });

  test("401: one line naming the key's source, never the key, not retried", async () => {
    server.enqueue(
      json(401, {
        error: {
          message: `Incorrect API key provided: ${KEY}.\nFind your key on the dashboard.`,
          code: "invalid_api_key",
        },
      }),
    );
    const error = (await (await openai()).embed(["x"]).catch((err: unknown) => err)) as EmbeddingError;
    expect(error).toBeInstanceOf(EmbeddingError);
    expect(error.kind).toBe("auth");
    expect(error.status).toBe(401);
    expect(error.message).toStartWith(
      "embeddings openai/text-embedding-3-small: invalid API key for openai (from env OPENAI_API_KEY): Incorrect API key provided:",
    );
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain("\n");
    expect(server.requests).toHaveLength(1);
  });

  test("an answer with the wrong number of vectors is an error, not retried", async () => {
    server.enqueue(json(200, { data: [{ index: 0, embedding: [0.1, 0.2] }] }));
    const error = (await (await openai()).embed(["a", "b"]).catch((err: unknown) => err)) as EmbeddingError;
    expect(error.kind).toBe("bad_request");
    expect(error.message).toBe(
      "embeddings openai/text-embedding-3-small: openai answered 1 embeddings for 2 inputs",
    );
  });

  test("abort ends a request the server never answers", async () => {
    server.enqueue({ pathSuffix: "/embeddings", stallBeforeHeaders: true });
    const controller = new AbortController();
    const pending = (await openai()).embed(["x"], controller.signal).catch((err: unknown) => err);
    await server.waitForRequests(1);
    const started = performance.now();
    controller.abort();
    const error = (await pending) as EmbeddingError;
    expect(error).toBeInstanceOf(EmbeddingError);
    expect(error.kind).toBe("aborted");
    expect(error.message).toBe("embeddings openai/text-embedding-3-small: request to openai was cancelled");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  test("abort during a retry's wait stops at once, with no further request", async () => {
    server.enqueue(json(429, { error: { message: "slow down" } }, { "retry-after": "30" }));
    const controller = new AbortController();
    const slowServerWait: RetryPolicy = { ...FAST, maxServerDelayMs: 60_000 };
    const pending = (await openai({}, slowServerWait))
      .embed(["x"], controller.signal)
      .catch((err: unknown) => err);
    await server.waitForRequests(1);
    await Bun.sleep(20);
    controller.abort();
    const error = (await pending) as EmbeddingError;
    expect(error.kind).toBe("aborted");
    expect(server.requests).toHaveLength(1);
  });
});

describe("setup errors", () => {
  test("a built-in provider without a key is refused before any request", async () => {
    const error = await embedderFor("openai/text-embedding-3-small", {
      config: {},
      env: { OPENAI_BASE_URL: `${server.url}/v1` },
    }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as EmbeddingError).kind).toBe("auth");
    expect((error as EmbeddingError).message).toStartWith(
      "embeddings openai/text-embedding-3-small: no API key for openai",
    );
    expect(server.requests).toHaveLength(0);
  });

  test("a key from keys.json is used", async () => {
    const embedder = await embedderFor("openai/text-embedding-3-small", {
      config: {},
      env: { OPENAI_BASE_URL: `${server.url}/v1` },
      keys: { openai: KEY },
    });
    await embedder.embed(["x"]);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  test("Anthropic has no embeddings API; an unknown provider or a spec without a model is a config error", async () => {
    const anthropic = await embedderFor("anthropic/claude", {
      config: {},
      env: { ANTHROPIC_API_KEY: KEY },
    }).catch((err: unknown) => err);
    expect(anthropic).toBeInstanceOf(IonError);
    expect((anthropic as IonError).code).toBe("config");
    expect((anthropic as IonError).message).toBe(
      'memory.embedding "anthropic/claude": Anthropic offers no embeddings API',
    );
    for (const spec of ["nowhere/model", "openai", "openai/"]) {
      const error = await embedderFor(spec, { config: {}, env: {} }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(IonError);
      expect((error as IonError).code).toBe("config");
    }
  });
});
