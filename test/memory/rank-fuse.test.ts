import { describe, expect, test } from "bun:test";
import { fillBudget, fuse, RECENCY_WEIGHT, RRF_K, recencyBoost, rrf } from "../../src/memory/rank.ts";
import type { MemoryRecord } from "../../src/memory/types.ts";

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;

function memory(id: string, ageDays = 0, tokens = 10): MemoryRecord {
  const createdAt = NOW - ageDays * DAY;
  return {
    id,
    content: id,
    source: "s",
    type: "episodic",
    createdAt,
    validFrom: createdAt,
    validTo: null,
    tokens,
  };
}

/** A seeded generator, so every run checks the same cases. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
}

describe("fuse", () => {
  test("RRF with k = 60: a memory in both lists sums its two places", () => {
    const [a, b, c] = [memory("a"), memory("b"), memory("c")];
    const fused = fuse(
      [
        { memory: a, bm25: -3 },
        { memory: b, bm25: -2 },
      ],
      [
        { memory: c, similarity: 0.9 },
        { memory: b, similarity: 0.8 },
      ],
      { now: NOW, halfLifeDays: 30, recencyWeight: 0 },
    );
    expect(RRF_K).toBe(60);
    expect(fused.map((r) => r.memory.id)).toEqual(["b", "a", "c"]);
    expect(fused[0]!.score).toEqual({
      bm25Rank: 2,
      bm25: -2,
      vectorRank: 2,
      similarity: 0.8,
      recency: 0,
      fused: 1 / 62 + 1 / 62,
    });
    // a and c tie on 1/61: the full-text place wins the tie.
    expect(fused[1]!.score).toEqual({ bm25Rank: 1, bm25: -3, recency: 0, fused: 1 / 61 });
    expect(fused[2]!.score).toEqual({ vectorRank: 1, similarity: 0.9, recency: 0, fused: 1 / 61 });
  });

  test("recency is a small prior: it settles near-ties, never lifts a weak candidate far, never adds one", () => {
    const old = memory("old", 400);
    const fresh = memory("fresh", 0);
    const fused = fuse(
      [
        { memory: old, bm25: -5 },
        { memory: fresh, bm25: -5 },
      ],
      [],
      { now: NOW, halfLifeDays: 90 },
    );
    // Neighbouring places: the fresh one moves up, by a share of its own score.
    expect(fused.map((r) => r.memory.id)).toEqual(["fresh", "old"]);
    expect(fused[0]!.score.recency).toBeCloseTo(rrf(2) * RECENCY_WEIGHT, 12);
    expect(fused[1]!.score.recency).toBeCloseTo(rrf(1) * RECENCY_WEIGHT * 0.5 ** (400 / 90), 12);
    // A fresh memory in 12th place does not pass an old one in 1st: the boost is at most RECENCY_WEIGHT.
    const list = Array.from({ length: 12 }, (_, i) => ({
      memory: memory(`m${i}`, i === 11 ? 0 : 1000),
      bm25: -12 + i,
    }));
    expect(fuse(list, [], { now: NOW, halfLifeDays: 90 })[0]!.memory.id).toBe("m0");
    expect(recencyBoost(0, 90)).toBe(RECENCY_WEIGHT);
    expect(RECENCY_WEIGHT).toBeLessThanOrEqual(0.25);
    expect(recencyBoost(90 * DAY, 90)).toBeCloseTo(RECENCY_WEIGHT / 2, 12);
    expect(recencyBoost(-5 * DAY, 90)).toBe(RECENCY_WEIGHT); // a clock ahead is "now"
    expect(recencyBoost(0, 0)).toBe(0);
    expect(recencyBoost(0, 90, 0)).toBe(0);
  });

  test("with no vector list and no recency, the order is the full-text order (random lists)", () => {
    const random = seeded(3);
    for (let round = 0; round < 100; round++) {
      const n = Math.floor(random() * 60);
      const list = Array.from({ length: n }, (_, i) => ({
        memory: memory(`m${i}`, random() * 100),
        bm25: -n + i,
      }));
      const fused = fuse(list, [], { now: NOW, halfLifeDays: 30, recencyWeight: 0 });
      expect(fused.map((r) => r.memory.id)).toEqual(list.map((h) => h.memory.id));
    }
  });

  test("a memory named twice in one list keeps its better place", () => {
    const a = memory("a");
    const fused = fuse(
      [
        { memory: a, bm25: -2 },
        { memory: a, bm25: -1 },
      ],
      [],
      { now: NOW, halfLifeDays: 30, recencyWeight: 0 },
    );
    expect(fused).toHaveLength(1);
    expect(fused[0]!.score.fused).toBe(rrf(1));
  });
});

describe("fillBudget", () => {
  const cost = (n: number) => n;

  test("takes in order, skips what does not fit, stops exactly at the limit", () => {
    expect(fillBudget([5, 8, 3, 2, 1], 10, cost)).toEqual({ items: [5, 3, 2], tokens: 10 });
    expect(fillBudget([4, 4, 4], 10, cost)).toEqual({ items: [4, 4], tokens: 8 });
    expect(fillBudget([11, 12], 10, cost)).toEqual({ items: [], tokens: 0 });
    expect(fillBudget([], 10, cost)).toEqual({ items: [], tokens: 0 });
    expect(fillBudget([1, 2], 0, cost)).toEqual({ items: [], tokens: 0 });
    expect(fillBudget([10, 0, 1], 10, cost)).toEqual({ items: [10], tokens: 10 }); // full: nothing more
    expect(fillBudget([1, 2, 3], Number.POSITIVE_INFINITY, cost)).toEqual({ items: [1, 2, 3], tokens: 6 });
  });

  test("property: never over budget, stable, maximal, and exact whenever the greedy order reaches the budget", () => {
    const random = seeded(11);
    for (let round = 0; round < 2000; round++) {
      const n = Math.floor(random() * 40);
      const sizes = Array.from({ length: n }, () => 1 + Math.floor(random() * (random() < 0.5 ? 20 : 400)));
      const budget = Math.floor(random() * 1500);
      const items = sizes.map((size, index) => ({ index, size }));
      const { items: kept, tokens } = fillBudget(items, budget, (item) => item.size);

      expect(tokens).toBe(kept.reduce((sum, item) => sum + item.size, 0));
      expect(tokens).toBeLessThanOrEqual(budget);
      // Stable: the kept items are in their input order.
      for (let i = 1; i < kept.length; i++) expect(kept[i]!.index).toBeGreaterThan(kept[i - 1]!.index);
      // Greedy and maximal: walking the input, an item was skipped only when it did not fit what was left
      // then — so no skipped item fits the room left at the end either.
      const keptIndexes = new Set(kept.map((item) => item.index));
      let used = 0;
      for (const item of items) {
        if (used === budget) break;
        if (keptIndexes.has(item.index)) used += item.size;
        else expect(item.size).toBeGreaterThan(budget - used);
      }
      // Exact: if the greedy walk (take what fits) can reach the budget, the fill is exactly the budget.
      let walk = 0;
      for (const size of sizes) if (size <= budget - walk) walk += size;
      if (walk === budget) expect(tokens).toBe(budget);
      // And if everything fits, everything is kept.
      const total = sizes.reduce((sum, size) => sum + size, 0);
      if (total <= budget) expect(kept).toHaveLength(n);
    }
  });
});
