/**
 * Recall quality of ion's memory on bench/data/memory-eval.json (542 memories over 40 sessions, 66
 * questions with known answers; see bench/data/make-memory-eval.ts). Loads the memories into a memory
 * store in a temporary directory, as learning would have stored them, asks each question and scores
 * the ranking:
 *
 *   recall@k  share of a question's answering memories in the first k, averaged over the questions
 *   MRR       1 / rank of the first answering memory (0 when none is in the list), averaged
 *
 * Rankings: BM25 alone (the FTS5 list), fused without embeddings (what `ion` does when no
 * embedding model is configured: BM25 + the recency prior), and with vectors both vector-only and
 * fused. Vectors come from `ION_EVAL_EMBEDDING=provider/model` (a real model, through ion's config and
 * keys) when set; the stand-in hashed bag-of-words vectors of the tests' fake server are always
 * measured too, in process, and labelled as such — they know words, not meaning.
 *
 *   bun bench/memory-eval.ts [--json] [--verbose] [--sweep]
 *
 * --verbose lists each question with the rank of its first answer in every ranking; --sweep also
 * measures fused without embeddings over a grid of recency weights and half-lives (how rank.ts's
 * default was chosen).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { toFtsQuery } from "../src/memory/fts-query.ts";
import { recall } from "../src/memory/recall.ts";
import { contentHash, MemoryStore } from "../src/memory/store.ts";
import type { EmbeddingProvider, MemoryRecord } from "../src/memory/types.ts";
import { fakeEmbedding } from "../test/support/fake-embeddings.ts";
import { DATASET_PATH, type EvalDataset, type EvalQuery } from "./data/make-memory-eval.ts";

/** Candidates per list, as recall uses. */
const CANDIDATES = 50;

export interface Scores {
  recallAt5: number;
  recallAt10: number;
  mrr: number;
}

export interface RankingResult {
  name: string;
  overall: Scores;
  byKind: Record<string, Scores>;
  /** Per query: the rank (1-based) of its first answering memory, or 0. */
  firstHit: Record<string, number>;
}

/** The stand-in embedder: the fake server's vectors, computed in process (no HTTP). */
export class HashedWordsEmbedder implements EmbeddingProvider {
  readonly model = "fake/hashed-bag-of-words";
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => fakeEmbedding(text));
  }
}

export function score(ranked: readonly string[], relevant: readonly string[]): Scores {
  const hits = (k: number) =>
    ranked.slice(0, k).filter((id) => relevant.includes(id)).length / relevant.length;
  const first = ranked.findIndex((id) => relevant.includes(id));
  return { recallAt5: hits(5), recallAt10: hits(10), mrr: first < 0 ? 0 : 1 / (first + 1) };
}

function mean(scores: readonly Scores[]): Scores {
  const sum = (pick: (s: Scores) => number) =>
    scores.reduce((total, s) => total + pick(s), 0) / scores.length;
  return { recallAt5: sum((s) => s.recallAt5), recallAt10: sum((s) => s.recallAt10), mrr: sum((s) => s.mrr) };
}

export type Ranker = (query: EvalQuery) => Promise<string[]>;

export async function evaluateRanking(
  name: string,
  queries: readonly EvalQuery[],
  rank: Ranker,
): Promise<RankingResult> {
  const all: Scores[] = [];
  const kinds = new Map<string, Scores[]>();
  const firstHit: Record<string, number> = {};
  for (const query of queries) {
    const ranked = await rank(query);
    const scores = score(ranked, query.relevant);
    all.push(scores);
    kinds.set(query.kind, [...(kinds.get(query.kind) ?? []), scores]);
    firstHit[query.id] = scores.mrr === 0 ? 0 : Math.round(1 / scores.mrr);
  }
  const byKind = Object.fromEntries([...kinds].map(([kind, list]) => [kind, mean(list)]));
  return { name, overall: mean(all), byKind, firstHit };
}

export async function loadDataset(path = DATASET_PATH): Promise<EvalDataset> {
  return (await Bun.file(path).json()) as EvalDataset;
}

/** A store in `dir` holding the dataset's memories; `ids` maps a store id back to the dataset's. */
export function loadStore(
  dataset: EvalDataset,
  dir: string,
): { store: MemoryStore; ids: Map<string, string>; now: number } {
  const store = MemoryStore.open(join(dir, "memory.db"));
  const records = store.add(
    dataset.memories.map((m) => ({
      content: m.content,
      source: m.session,
      type: "episodic" as const,
      createdAt: m.at,
    })),
  );
  const ids = new Map(records.map((record, at) => [record.id, dataset.memories[at]!.id]));
  // The questions are asked an hour after the last session.
  const now = Math.max(...dataset.memories.map((m) => m.at)) + 3_600_000;
  return { store, ids, now };
}

/** Embeds every memory once, as lazy re-embedding would have by the time the questions are asked. */
export async function embedAll(
  store: MemoryStore,
  embedder: EmbeddingProvider,
  records: readonly MemoryRecord[],
): Promise<void> {
  const unique = [...new Map(records.map((r) => [contentHash(r.content), r.content])).entries()];
  const vectors = await embedder.embed(unique.map(([, content]) => content));
  store.saveVectors(
    embedder.model,
    unique.map(([hash], at) => ({ contentHash: hash, vector: vectors[at]! })),
  );
}

export interface EvalReport {
  memories: number;
  queries: number;
  rankings: RankingResult[];
}

export interface RecencySetting {
  weight: number;
  halfLifeDays: number;
}

export interface EvalOptions {
  /** A real embedding model, measured beside the stand-in vectors. */
  real?: EmbeddingProvider | undefined;
  /** Recency priors to measure fused without embeddings with, beside recall's defaults. */
  sweep?: readonly RecencySetting[];
}

/** Every ranking over the dataset: BM25 only and fused without embeddings first, in that order. */
export async function evaluate(dataset: EvalDataset, options: EvalOptions = {}): Promise<EvalReport> {
  const { real, sweep = [] } = options;
  const dir = mkdtempSync(join(tmpdir(), "ion-memory-eval-"));
  try {
    const { store, ids, now } = loadStore(dataset, dir);
    const records = store.list({ includeEnded: true });
    const back = (list: readonly { memory: MemoryRecord }[]) => list.map((hit) => ids.get(hit.memory.id)!);
    const budgetTokens = 1_000_000; // the whole ranking, not a budget's worth of it
    const bm25: Ranker = async (q) => back(store.searchText(toFtsQuery(q.text), { limit: CANDIDATES }));
    const fused =
      (embedder?: EmbeddingProvider, recency?: RecencySetting): Ranker =>
      async (q) =>
        back(
          (
            await recall(store, q.text, {
              budgetTokens,
              now,
              candidates: CANDIDATES,
              ...(embedder ? { embedder } : {}),
              ...(recency ? { recencyWeight: recency.weight, halfLifeDays: recency.halfLifeDays } : {}),
            })
          ).memories,
        );
    const vectorOnly =
      (embedder: EmbeddingProvider): Ranker =>
      async (q) => {
        const [vector] = await embedder.embed([q.text]);
        return back(store.searchVectors(embedder.model, vector!, { limit: CANDIDATES }));
      };

    const rankings = [
      await evaluateRanking("BM25 only", dataset.queries, bm25),
      await evaluateRanking("fused, no embeddings (BM25 + recency)", dataset.queries, fused()),
    ];
    for (const setting of sweep) {
      const name = `  recency weight ${setting.weight}, half-life ${setting.halfLifeDays} d`;
      rankings.push(await evaluateRanking(name, dataset.queries, fused(undefined, setting)));
    }
    const stand = new HashedWordsEmbedder();
    await embedAll(store, stand, records);
    rankings.push(
      await evaluateRanking("vector only, stand-in hashed bag-of-words", dataset.queries, vectorOnly(stand)),
      await evaluateRanking("fused, stand-in hashed bag-of-words", dataset.queries, fused(stand)),
    );
    if (real) {
      await embedAll(store, real, records);
      rankings.push(
        await evaluateRanking(`vector only, ${real.model}`, dataset.queries, vectorOnly(real)),
        await evaluateRanking(`fused, ${real.model}`, dataset.queries, fused(real)),
      );
    }
    store.close();
    return { memories: dataset.memories.length, queries: dataset.queries.length, rankings };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `ION_EVAL_EMBEDDING=provider/model` through the user's ion config and keys, as `ion` would use it. */
async function realEmbedder(spec: string): Promise<EmbeddingProvider> {
  const [{ loadConfig }, { embedderFor }] = await Promise.all([
    import("../src/config/load.ts"),
    import("../src/memory/embeddings.ts"),
  ]);
  const loaded = await loadConfig({ cwd: process.cwd() });
  return embedderFor(spec, { config: loaded.config, env: process.env, keys: loaded.keys });
}

function formatTable(report: EvalReport): string {
  const pad = (text: string, width: number) => text.padEnd(width);
  const width = Math.max(...report.rankings.map((r) => r.name.length)) + 2;
  const fixed = (n: number) => n.toFixed(3);
  const lines = [
    `${report.memories} memories, ${report.queries} questions`,
    "",
    `${pad("ranking", width)}recall@5  recall@10  MRR     MRR by kind (keyword / paraphrase / newer)`,
  ];
  for (const r of report.rankings) {
    const kinds = ["keyword", "paraphrase", "newer"].map((k) => fixed(r.byKind[k]?.mrr ?? 0)).join(" / ");
    lines.push(
      `${pad(r.name, width)}${pad(fixed(r.overall.recallAt5), 10)}${pad(fixed(r.overall.recallAt10), 11)}${pad(fixed(r.overall.mrr), 8)}${kinds}`,
    );
  }
  const [bm25, plain] = report.rankings;
  if (bm25 && plain) {
    const atLeast = (["recallAt5", "recallAt10", "mrr"] as const).every(
      (key) => plain.overall[key] >= bm25.overall[key],
    );
    lines.push(
      "",
      `fused without embeddings ≥ BM25 only on recall@5, recall@10 and MRR: ${atLeast ? "yes" : "NO"}`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { json: { type: "boolean" }, verbose: { type: "boolean" }, sweep: { type: "boolean" } },
  });
  const dataset = await loadDataset();
  const spec = process.env.ION_EVAL_EMBEDDING;
  const real = spec ? await realEmbedder(spec) : undefined;
  const sweep = values.sweep
    ? [0, 0.05, 0.1, 0.13, 0.15, 0.2].flatMap((weight) =>
        [30, 60, 90, 120].map((halfLifeDays) => ({ weight, halfLifeDays })),
      )
    : [];
  const report = await evaluate(dataset, { real, sweep });
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else {
    console.log(formatTable(report));
    if (!spec)
      console.log(
        "(set ION_EVAL_EMBEDDING=provider/model, e.g. ollama/nomic-embed-text, to measure a real model)",
      );
  }
  if (values.verbose) {
    for (const query of dataset.queries) {
      const ranks = report.rankings.map((r) => String(r.firstHit[query.id] || "-").padStart(3)).join(" ");
      console.log(`${query.id} ${query.kind.padEnd(10)} ${ranks}  ${query.text}`);
    }
  }
}
