/**
 * The recall-quality dataset and benchmark (bench/memory-eval.ts): the committed dataset is what its
 * generator writes and is as large as the issue asks, and on it the ranking ion uses without an
 * embedding model (BM25 + the recency prior) is never worse than BM25 alone.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { buildDataset, DATASET_PATH, datasetText } from "../../bench/data/make-memory-eval.ts";
import { evaluate, loadDataset, score } from "../../bench/memory-eval.ts";

describe("the dataset", () => {
  test("the committed JSON is what the generator writes (same seed, same facts)", () => {
    expect(readFileSync(DATASET_PATH, "utf8")).toBe(datasetText(buildDataset()));
  });

  test("≥ 500 memories over ~40 sessions, ≥ 60 questions of every kind, every answer a real memory", async () => {
    const dataset = await loadDataset();
    expect(dataset.memories.length).toBeGreaterThanOrEqual(500);
    expect(new Set(dataset.memories.map((m) => m.session)).size).toBe(40);
    expect(dataset.queries.length).toBeGreaterThanOrEqual(60);
    const kinds = new Set(dataset.queries.map((q) => q.kind));
    expect([...kinds].sort()).toEqual(["keyword", "newer", "paraphrase"]);
    const ids = new Set(dataset.memories.map((m) => m.id));
    for (const query of dataset.queries) {
      expect(query.relevant.length).toBeGreaterThan(0);
      for (const id of query.relevant) expect(ids.has(id)).toBe(true);
    }
    // Time runs forward: a corrected fact's newer memory really is newer.
    const at = dataset.memories.map((m) => m.at);
    expect(at).toEqual(at.toSorted((a, b) => a - b));
  });
});

test("score: recall@k is the share of answers in the first k, MRR the first answer's reciprocal rank", () => {
  const ranked = ["a", "b", "c", "d", "e", "f"];
  expect(score(ranked, ["b", "z"])).toEqual({ recallAt5: 0.5, recallAt10: 0.5, mrr: 0.5 });
  expect(score(ranked, ["f"])).toEqual({ recallAt5: 0, recallAt10: 1, mrr: 1 / 6 });
  expect(score(ranked, ["z"])).toEqual({ recallAt5: 0, recallAt10: 0, mrr: 0 });
});

test("fused without embeddings ranks at least as well as BM25 alone on recall@5, recall@10 and MRR", async () => {
  const report = await evaluate(await loadDataset());
  const [bm25, fused] = report.rankings;
  expect(bm25?.name).toBe("BM25 only");
  expect(fused?.name).toBe("fused, no embeddings (BM25 + recency)");
  expect(fused!.overall.recallAt5).toBeGreaterThanOrEqual(bm25!.overall.recallAt5);
  expect(fused!.overall.recallAt10).toBeGreaterThanOrEqual(bm25!.overall.recallAt10);
  expect(fused!.overall.mrr).toBeGreaterThanOrEqual(bm25!.overall.mrr);
  // BM25 finds the facts asked in their own words; the vectors are ranked too.
  expect(bm25!.byKind.keyword!.mrr).toBeGreaterThan(0.5);
  expect(report.rankings.map((r) => r.name)).toContain("fused, stand-in hashed bag-of-words");
}, 30_000);
