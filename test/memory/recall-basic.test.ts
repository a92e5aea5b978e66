import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { EMBED_PER_RECALL, recall } from "../../src/memory/recall.ts";
import { contentHash, MemoryStore } from "../../src/memory/store.ts";
import type { EmbeddingProvider, NewMemory } from "../../src/memory/types.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-memory-recall-");
const DAY = 86_400_000;
const NOW = 1_700_000_000_000;

function openStore(): MemoryStore {
  return MemoryStore.open(join(tempDir(), "memory.db"));
}

const said = (content: string, source = "old-session", ageDays = 1): NewMemory => ({
  content,
  source,
  type: "episodic",
  createdAt: NOW - ageDays * DAY,
});

/** Words that mean the same land on the same dimension, so similarity works without shared words. */
const CONCEPTS: Record<string, number> = {
  car: 0,
  automobile: 0,
  vehicle: 0,
  database: 1,
  postgres: 1,
  sql: 1,
};

/** A deterministic in-process embedder: a bag of concepts (other words hashed), normalised. */
class FakeEmbedder implements EmbeddingProvider {
  readonly model = "fake/concepts-16";
  calls: string[][] = [];
  failWith: Error | undefined;

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    if (this.failWith) throw this.failWith;
    this.calls.push(texts);
    return texts.map((text) => {
      const vector = new Float32Array(16);
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? [])
        vector[CONCEPTS[word] ?? 2 + (Bun.hash(word) % 14n > 0n ? Number(Bun.hash(word) % 14n) : 0)]! += 1;
      const norm = Math.hypot(...vector) || 1;
      return vector.map((x) => x / norm);
    });
  }
}

describe("recall without embeddings", () => {
  test("transactional input recalls nothing; classify: false searches anyway", async () => {
    const store = openStore();
    store.add([said("ok, the deploy target is staging")]);
    expect(await recall(store, "ok", { budgetTokens: 1000 })).toEqual({
      memories: [],
      tokens: 0,
      skipped: "transactional",
    });
    const forced = await recall(store, "ok", { budgetTokens: 1000, classify: false });
    expect(forced.skipped).toBe("empty"); // "ok" is a stopword: no words to search
    const staging = await recall(store, "staging", { budgetTokens: 1000, classify: false });
    expect(staging.memories).toHaveLength(1);
    store.close();
  });

  test("nothing to find is 'empty'", async () => {
    const store = openStore();
    store.add([said("the build uses bun")]);
    expect(await recall(store, "what about kubernetes clusters", { budgetTokens: 100 })).toEqual({
      memories: [],
      tokens: 0,
      skipped: "empty",
    });
    store.close();
  });

  test("ranks by BM25 with score parts, leaves out this session, the context and repeats", async () => {
    const store = openStore();
    store.add([
      said("the staging server listens on port 8443"),
      said("staging deploys run every night", "old-session", 2),
      said("the staging server listens on port 8443", "another-session", 3), // a repeat
      said("we talked about the staging server port just now", "current"),
      said("the production server listens on port 443"),
      said("unrelated note about lunch"),
    ]);
    const result = await recall(store, "which port does the staging server listen on?", {
      budgetTokens: 1000,
      excludeSource: "current",
      contextTexts: ["assistant: the production server listens on port 443 (from the docs)"],
      now: NOW,
    });
    const contents = result.memories.map((r) => r.memory.content);
    expect(contents).toEqual(["the staging server listens on port 8443", "staging deploys run every night"]);
    expect(result.memories[0]!.score).toMatchObject({ bm25Rank: 1 });
    expect(result.memories[0]!.score.bm25).toBeLessThan(0);
    expect(result.memories[0]!.score.recency).toBeGreaterThan(0);
    expect(result.memories[0]!.score.fused).toBeGreaterThan(result.memories[1]!.score.fused);
    expect(result.tokens).toBe(result.memories.reduce((sum, r) => sum + r.memory.tokens, 0));
    expect(result.skipped).toBeUndefined();
    store.close();
  });

  test("fills the budget exactly: a memory that does not fit is skipped and a smaller one fills", async () => {
    const store = openStore();
    const [big, small, tiny] = store.add([
      said(`deploy ${"x".repeat(70)}`), // 20 tokens
      said(`deploy ${"y".repeat(30)}`), // 10 tokens
      said(`deploy ${"z".repeat(10)}`), // 5 tokens
    ]);
    expect([big!.tokens, small!.tokens, tiny!.tokens]).toEqual([20, 10, 5]);
    const result = await recall(store, "how do we deploy", { budgetTokens: 15, now: NOW });
    expect(result.tokens).toBe(15);
    expect(result.memories.map((r) => r.memory.id).sort()).toEqual([small!.id, tiny!.id].sort());
    const none = await recall(store, "how do we deploy", { budgetTokens: 4, now: NOW });
    expect(none).toEqual({ memories: [], tokens: 0 });
    store.close();
  });

  test("asOf recalls what was known and valid then; forgotten memories are not recalled now", async () => {
    const store = openStore();
    const [old] = store.add([said("the api host is alpha.example.test", "s1", 10)]);
    store.forget(old!.id, NOW - 5 * DAY);
    store.add([said("the api host is beta.example.test", "s2", 5)]);
    const now = await recall(store, "what is the api host", { budgetTokens: 100, now: NOW });
    expect(now.memories.map((r) => r.memory.content)).toEqual(["the api host is beta.example.test"]);
    const then = await recall(store, "what is the api host", { budgetTokens: 100, asOf: NOW - 7 * DAY });
    expect(then.memories.map((r) => r.memory.content)).toEqual(["the api host is alpha.example.test"]);
    store.close();
  });
});

describe("recall with an embedder", () => {
  test("the vector list finds a memory that shares no word with the prompt", async () => {
    const store = openStore();
    store.add([said("my automobile is a blue hatchback"), said("lunch was pasta")]);
    const embedder = new FakeEmbedder();
    const result = await recall(store, "which car do I drive", { budgetTokens: 100, embedder, now: NOW });
    expect(result.memories[0]!.memory.content).toBe("my automobile is a blue hatchback");
    expect(result.memories[0]!.score.vectorRank).toBe(1);
    expect(result.memories[0]!.score.bm25Rank).toBeUndefined();
    expect(result.memories[0]!.score.similarity).toBeGreaterThan(0.3);
    store.close();
  });

  test("memories still without a vector are embedded a batch at a time, with the query", async () => {
    const store = openStore();
    store.add(
      Array.from({ length: EMBED_PER_RECALL + 4 }, (_, i) => said(`note number ${i} about postgres`)),
    );
    const embedder = new FakeEmbedder();
    await recall(store, "what about the database", { budgetTokens: 100, embedder });
    expect(embedder.calls).toHaveLength(1);
    expect(embedder.calls[0]![0]).toBe("what about the database");
    expect(embedder.calls[0]).toHaveLength(1 + EMBED_PER_RECALL);
    await recall(store, "what about the database", { budgetTokens: 100, embedder });
    expect(embedder.calls[1]).toHaveLength(1 + 4);
    await recall(store, "what about the database", { budgetTokens: 100, embedder });
    expect(embedder.calls[2]).toEqual(["what about the database"]);
    expect(store.stats().vectors).toEqual([{ model: embedder.model, count: EMBED_PER_RECALL + 4 }]);
    expect(store.vectorFor(embedder.model, contentHash("note number 0 about postgres"))).toHaveLength(16);
    store.close();
  });

  test("an embedder that fails leaves full text, and says why", async () => {
    const store = openStore();
    store.add([said("the database is postgres 16")]);
    const embedder = new FakeEmbedder();
    embedder.failWith = new Error("fake/concepts-16: connection refused");
    const result = await recall(store, "which database version", { budgetTokens: 100, embedder });
    expect(result.memories.map((r) => r.memory.content)).toEqual(["the database is postgres 16"]);
    expect(result.embeddingError).toBe("fake/concepts-16: connection refused");
    store.close();
  });

  test("an aborted recall throws instead of answering without vectors", async () => {
    const store = openStore();
    store.add([said("the database is postgres 16")]);
    const controller = new AbortController();
    controller.abort();
    await expect(
      recall(store, "which database version", {
        budgetTokens: 100,
        embedder: new FakeEmbedder(),
        signal: controller.signal,
      }),
    ).rejects.toThrow();
    store.close();
  });
});
