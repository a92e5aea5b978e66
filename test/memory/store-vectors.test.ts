import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { PAGE_CODES } from "../../src/memory/code-pages.ts";
import { contentHash, MemoryStore } from "../../src/memory/store.ts";
import { PREFILTER } from "../../src/memory/vector-index.ts";
import {
  cosine,
  decodeVector,
  encodeVector,
  hammingAll,
  popcount32,
  signCode,
  smallestK,
} from "../../src/memory/vectors.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-memory-vectors-");
const MODEL = "test/embed-4";

function openStore(): MemoryStore {
  return MemoryStore.open(join(tempDir(), "memory.db"));
}

/** A seeded generator, so the random vectors are the same every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

describe("vector arithmetic", () => {
  test("encode/decode round-trips, also from an unaligned blob", () => {
    const vector = new Float32Array([0.5, -1.25, 3, 0]);
    const blob = encodeVector(vector);
    expect(decodeVector(blob)).toEqual(vector);
    const unaligned = new Uint8Array(blob.length + 1).subarray(1);
    unaligned.set(blob);
    expect(decodeVector(unaligned)).toEqual(vector);
  });

  test("cosine: 1 for the same direction, 0 for orthogonal, zero or mismatched vectors", () => {
    expect(cosine(new Float32Array([1, 2]), new Float32Array([2, 4]))).toBeCloseTo(1, 6);
    expect(cosine(new Float32Array([1, 0]), new Float32Array([0, 3]))).toBe(0);
    expect(cosine(new Float32Array([0, 0]), new Float32Array([1, 1]))).toBe(0);
    expect(cosine(new Float32Array([1]), new Float32Array([1, 1]))).toBe(0);
  });

  test("sign codes and Hamming distances", () => {
    const code = signCode(new Float32Array(Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? 1 : -1))));
    expect(code).toHaveLength(2);
    expect(popcount32(code[0]!) + popcount32(code[1]!)).toBe(14);
    expect(popcount32(0xffffffff)).toBe(32);
    const codes = new Uint32Array([0, 0, 0xff, 0, 0xffffffff, 1]);
    const out = new Uint16Array(3);
    hammingAll(new Uint32Array([0, 0]), codes, 3, 2, out);
    expect([...out]).toEqual([0, 8, 33]);
  });

  test("smallestK picks exactly the k nearest, ties by index, for random inputs", () => {
    const random = seeded(7);
    for (let round = 0; round < 200; round++) {
      const count = Math.floor(random() * 300);
      const k = Math.floor(random() * 40);
      const distances = Uint16Array.from({ length: count }, () => Math.floor(random() * 20));
      const expected = [...distances.keys()]
        .sort((a, b) => distances[a]! - distances[b]! || a - b)
        .slice(0, k);
      expect(smallestK(distances, count, k, 19)).toEqual(expected);
    }
  });
});

describe("the store's vectors", () => {
  test("searchVectors ranks by cosine and applies validity, asOf and the excluded source", () => {
    const store = openStore();
    const [north, east, mine, old] = store.add([
      { content: "north", source: "s1", type: "episodic", createdAt: 1000 },
      { content: "east", source: "s1", type: "episodic", createdAt: 1000 },
      { content: "mine", source: "current", type: "episodic", createdAt: 1000 },
      { content: "old north", source: "s1", type: "episodic", createdAt: 1000 },
    ]);
    store.saveVectors(MODEL, [
      { contentHash: contentHash("north"), vector: new Float32Array([1, 0, 0, 0]) },
      { contentHash: contentHash("east"), vector: new Float32Array([0, 1, 0, 0]) },
      { contentHash: contentHash("mine"), vector: new Float32Array([0.9, 0.1, 0, 0]) },
      { contentHash: contentHash("old north"), vector: new Float32Array([0.95, 0, 0.05, 0]) },
    ]);
    store.forget(old!.id, 5000);
    const query = new Float32Array([1, 0.05, 0, 0]);
    const ids = (hits: { memory: { id: string } }[]) => hits.map((h) => h.memory.id);
    expect(ids(store.searchVectors(MODEL, query, { limit: 10 }))).toEqual([north!.id, mine!.id, east!.id]);
    expect(ids(store.searchVectors(MODEL, query, { limit: 10, excludeSource: "current" }))).toEqual([
      north!.id,
      east!.id,
    ]);
    expect(
      ids(store.searchVectors(MODEL, query, { limit: 2, asOf: 2000, excludeSource: "current" })),
    ).toEqual([north!.id, old!.id]);
    const [first] = store.searchVectors(MODEL, query, { limit: 1 });
    expect(first!.similarity).toBeCloseTo(cosine(query, new Float32Array([1, 0, 0, 0])), 6);
    expect(store.searchVectors("other/model", query, { limit: 5 })).toEqual([]);
    expect(store.searchVectors(MODEL, new Float32Array(8), { limit: 5 })).toEqual([]); // other dimensions
    store.close();
  });

  test("vectors saved after a search are found by the next one (the process cache loads what is new)", () => {
    const store = openStore();
    const [a] = store.add([{ content: "alpha", source: "s", type: "episodic" }]);
    store.saveVectors(MODEL, [{ contentHash: contentHash("alpha"), vector: new Float32Array([1, 0, 0, 0]) }]);
    expect(store.searchVectors(MODEL, new Float32Array([0, 1, 0, 0]), { limit: 5 })).toHaveLength(1);
    const [b] = store.add([{ content: "beta", source: "s", type: "episodic" }]);
    store.saveVectors(MODEL, [{ contentHash: contentHash("beta"), vector: new Float32Array([0, 1, 0, 0]) }]);
    const hits = store.searchVectors(MODEL, new Float32Array([0, 1, 0, 0]), { limit: 5 });
    expect(hits.map((h) => h.memory.id)).toEqual([b!.id, a!.id]);
    store.close();
  });

  test("with more vectors than the prefilter, the nearest ones are still found", () => {
    const store = openStore();
    const random = seeded(42);
    const dims = 64;
    const count = PREFILTER * 8;
    const vectors = Array.from({ length: count }, () =>
      Float32Array.from({ length: dims }, () => random() * 2 - 1),
    );
    const memories = store.add(
      vectors.map((_, i) => ({ content: `memory ${i}`, source: "s", type: "episodic" })),
    );
    store.saveVectors(
      "test/embed-64",
      memories.map((m, i) => ({ contentHash: contentHash(m.content), vector: vectors[i]! })),
    );
    // A query right next to memory 123: it must come first, found through its sign code.
    const query = vectors[123]!.map((x) => x + (random() - 0.5) * 0.05);
    const hits = store.searchVectors("test/embed-64", query, { limit: 10 });
    expect(hits).toHaveLength(10);
    expect(hits[0]!.memory.content).toBe("memory 123");
    for (let i = 1; i < hits.length; i++)
      expect(hits[i - 1]!.similarity).toBeGreaterThanOrEqual(hits[i]!.similarity);
    store.close();
  });

  test("codes span pages: saved in uneven batches, by two connections, each vector is found as itself", () => {
    const path = join(tempDir(), "memory.db");
    const writer = MemoryStore.open(path);
    const reader = MemoryStore.open(path);
    const random = seeded(5);
    const dims = 48;
    const model = "test/embed-48";
    const made: { id: string; vector: Float32Array }[] = [];
    const probe = (count: number) => {
      for (let i = 0; i < count; i++) {
        const { id, vector } = made[Math.floor(random() * made.length)]!;
        expect(reader.searchVectors(model, vector, { limit: 1 })[0]!.memory.id).toBe(id);
      }
    };
    for (const batch of [700, 700, 1, PAGE_CODES, 300]) {
      const vectors = Array.from({ length: batch }, () =>
        Float32Array.from({ length: dims }, () => random() * 2 - 1),
      );
      const memories = writer.add(
        vectors.map((_, i) => ({ content: `m${made.length + i}`, source: "s", type: "episodic" as const })),
      );
      writer.saveVectors(
        model,
        memories.map((m, i) => ({ contentHash: contentHash(m.content), vector: vectors[i]! })),
      );
      for (const [i, m] of memories.entries()) made.push({ id: m.id, vector: vectors[i]! });
      probe(20); // the reader loads what is new since its last search, across page boundaries
    }
    expect(made).toHaveLength(2725);
    writer.close();
    reader.close();
  });

  test("after a wipe by another connection, a searching one reloads instead of keeping stale codes", () => {
    const path = join(tempDir(), "memory.db");
    const wiper = MemoryStore.open(path);
    const reader = MemoryStore.open(path);
    const random = seeded(9);
    const fill = (count: number) => {
      const vectors = Array.from({ length: count }, () =>
        Float32Array.from({ length: 8 }, () => random() * 2 - 1),
      );
      const memories = wiper.add(
        vectors.map((_, i) => ({ content: `v${random()}-${i}`, source: "s", type: "episodic" as const })),
      );
      wiper.saveVectors(
        "test/embed-8",
        memories.map((m, i) => ({ contentHash: contentHash(m.content), vector: vectors[i]! })),
      );
      return memories.map((m, i) => ({ id: m.id, vector: vectors[i]! }));
    };
    const before = fill(PAGE_CODES * 2 + 10);
    expect(reader.searchVectors("test/embed-8", before[5]!.vector, { limit: 1 })[0]!.memory.id).toBe(
      before[5]!.id,
    );
    wiper.wipe();
    const after = fill(PAGE_CODES * 3); // fills pages 0-2 again, past the reader's last page
    for (const probe of [after[3]!, after[PAGE_CODES + 7]!, after[PAGE_CODES * 3 - 1]!])
      expect(reader.searchVectors("test/embed-8", probe.vector, { limit: 1 })[0]!.memory.id).toBe(probe.id);
    wiper.close();
    reader.close();
  });

  test("missingVectors: valid memories without a vector, oldest first, then none once all are embedded", () => {
    const store = openStore();
    const made = store.add(
      Array.from({ length: 6 }, (_, i) => ({ content: `text ${i}`, source: "s", type: "episodic" as const })),
    );
    store.forget(made[1]!.id);
    store.saveVectors(MODEL, [{ contentHash: contentHash("text 0"), vector: new Float32Array(4) }]);
    expect(store.missingVectors(MODEL, 2).map((m) => m.content)).toEqual(["text 2", "text 3"]);
    store.saveVectors(
      MODEL,
      ["text 2", "text 3", "text 4"].map((t) => ({
        contentHash: contentHash(t),
        vector: new Float32Array(4),
      })),
    );
    expect(store.missingVectors(MODEL, 10).map((m) => m.content)).toEqual(["text 5"]);
    store.saveVectors(MODEL, [{ contentHash: contentHash("text 5"), vector: new Float32Array(4) }]);
    expect(store.missingVectors(MODEL, 10)).toEqual([]);
    const [late] = store.add([{ content: "text 0", source: "s2", type: "episodic" }]); // content already embedded
    const [fresh] = store.add([{ content: "brand new", source: "s2", type: "episodic" }]);
    expect(store.missingVectors(MODEL, 10).map((m) => m.id)).toEqual([fresh!.id]);
    expect(late).toBeDefined();
    expect(store.missingVectors("another/model", 10)).toHaveLength(7); // 8 made, 1 forgotten
    store.close();
  });

  test("vectorFor returns the stored vector by model and content hash", () => {
    const store = openStore();
    const vector = new Float32Array([0.25, -0.5, 1, 2]);
    store.saveVectors(MODEL, [{ contentHash: contentHash("x"), vector }]);
    store.saveVectors(MODEL, [{ contentHash: contentHash("x"), vector: new Float32Array(4) }]); // kept: first wins
    expect(store.vectorFor(MODEL, contentHash("x"))).toEqual(vector);
    expect(store.vectorFor("other", contentHash("x"))).toBeUndefined();
    store.close();
  });
});
