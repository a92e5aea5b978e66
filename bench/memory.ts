/**
 * Memory speed (issue 23's bars): builds a memory.db of 100 000 synthetic memories with 384-dim vectors
 * in a temp dir, through the store, then times, over a few hundred questions:
 *
 *   - recall, BM25 only (no embedding model)          bars p50 < 25 ms, p99 < 60 ms
 *     (also for prompts made of only the commonest words, FTS5's worst case: see store-text.ts)
 *   - recall, fused with vectors (the query embedded by an in-process fake, so no network is timed)
 *                                                     bars p50 < 25 ms, p99 < 60 ms
 *   - learning one turn (3 memories, one transaction) bar  p50 < 5 ms
 *
 * and reports the database's size. Recall is everything `recall()` does: classifier, FTS5 query, the
 * vector list, RRF + recency, dedupe, budget fill (4 000 tokens). The vector list's two strategies are
 * also timed alone — exact cosine over every float vector held in memory, and the Hamming prefilter on
 * sign bits with exact re-ranking of the 256 nearest (what the store does) — with how many of the
 * exact top 10 / top 50 the prefilter keeps. A fresh process's first recall (opening the database and
 * loading the sign codes) is printed for information.
 *
 * The text is deterministic: 500 topics, each with its own words, over a Zipf-distributed vocabulary of
 * 20 000 made-up words; a memory's vector is its topic's centre plus noise, so neighbours exist as in
 * real embeddings. Prints PASS/MISS and exits 0 whatever the figures.
 *
 *   bun bench/memory.ts [--memories N] [--dims N] [--queries N]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recall } from "../src/memory/recall.ts";
import { contentHash, MemoryStore } from "../src/memory/store.ts";
import type { EmbeddingProvider, NewMemory } from "../src/memory/types.ts";
import { decodeVector } from "../src/memory/vectors.ts";
import { quantile, recordSummary, type SummaryRow, verdict } from "./lib.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
};
const MEMORIES = option("--memories", 100_000);
const DIMS = option("--dims", 384);
const QUERIES = option("--queries", 300);
const BARS = { p50: 25, p99: 60, ingest: 5 } as const;
const MODEL = `bench/synthetic-${DIMS}`;
const BUDGET = 4000;
const summary: SummaryRow[] = [];

// ── deterministic synthetic data ────────────────────────────────────────────────────────────────
let seed = 0x9e3779b9;
function random(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x1_0000_0000;
}
function gaussian(): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}
function normalised(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

const SYLLABLES = "ka ri to mu se na lo pe vi du za mo ne ti ra so fu ki be ya gu ho mi".split(" ");
const VOCABULARY = Array.from({ length: 20_000 }, (_, i) => {
  let word = "";
  for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
  return word.length < 4 ? `${word}x` : word;
});
// Zipf (s ≈ 1): the cumulative weights of 1/rank, searched by bisection.
const ZIPF = (() => {
  const cumulative = new Float64Array(VOCABULARY.length);
  let total = 0;
  for (let i = 0; i < VOCABULARY.length; i++) cumulative[i] = total += 1 / (i + 1);
  return cumulative.map((c) => c / total);
})();
function zipfWord(): string {
  const target = random();
  let lo = 0;
  let hi = ZIPF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ZIPF[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo]!;
}
const FILLER = "the a to of and in is it that for on with we I you this was".split(" ");

const TOPICS = Array.from({ length: 500 }, () => ({
  words: Array.from({ length: 30 }, () => VOCABULARY[200 + Math.floor(random() * 19_800)]!),
  centre: normalised(Float32Array.from({ length: DIMS }, gaussian)),
}));

function memoryText(topic: (typeof TOPICS)[number]): string {
  const length = 8 + Math.floor(random() * 50);
  const words: string[] = [];
  for (let i = 0; i < length; i++) {
    const r = random();
    words.push(
      r < 0.45
        ? topic.words[Math.floor(random() * 30)]!
        : r < 0.75
          ? zipfWord()
          : FILLER[Math.floor(random() * FILLER.length)]!,
    );
  }
  return words.join(" ");
}

/** Topic centre plus noise: cosine ≈ 0.6 to the centre, so a topic's memories are each other's neighbours. */
function nearby(centre: Float32Array, spread: number): Float32Array {
  const noise = 1 / Math.sqrt(DIMS);
  return normalised(centre.map((x) => x + gaussian() * noise * spread));
}

/** Answers the benchmark's questions with their prepared vectors; any other text gets a seeded one. */
class FakeEmbedder implements EmbeddingProvider {
  readonly model = MODEL;
  readonly known = new Map<string, Float32Array>();
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map(
      (text) => this.known.get(text) ?? normalised(Float32Array.from({ length: DIMS }, gaussian)),
    );
  }
}

// ── helpers ─────────────────────────────────────────────────────────────────────────────────────
const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

function row(label: string, samples: number[], bars?: { p50?: number; p99?: number }, name?: string): void {
  const sorted = ascending(samples);
  const p50 = quantile(sorted, 0.5);
  const p99 = quantile(sorted, 0.99);
  const pass50 = bars?.p50 === undefined || p50 < bars.p50;
  const pass99 = bars?.p99 === undefined || p99 < bars.p99;
  const bar = bars
    ? `(bars ${bars.p50 !== undefined ? `p50 < ${bars.p50}` : ""}${bars.p99 !== undefined ? `, p99 < ${bars.p99}` : ""} ms)  ${verdict(pass50 && pass99)}`
    : "";
  console.log(`  ${label.padEnd(44)} p50 ${fmt(p50).padStart(9)}   p99 ${fmt(p99).padStart(9)}   ${bar}`);
  if (name && bars?.p50 !== undefined)
    summary.push({
      bench: "memory",
      name: `${name} p50`,
      value: fmt(p50),
      floor: "",
      target: `< ${bars.p50} ms`,
      pass: pass50,
    });
  if (name && bars?.p99 !== undefined)
    summary.push({
      bench: "memory",
      name: `${name} p99`,
      value: fmt(p99),
      floor: "",
      target: `< ${bars.p99} ms`,
      pass: pass99,
    });
}

async function timeEach<T>(
  items: readonly T[],
  run: (item: T) => Promise<unknown> | unknown,
): Promise<number[]> {
  for (const item of items.slice(0, 5)) await run(item); // warm-up
  const samples: number[] = [];
  for (const item of items) {
    const started = performance.now();
    await run(item);
    samples.push(performance.now() - started);
  }
  return samples;
}

function topK(scores: Float32Array, k: number): number[] {
  const picked: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (picked.length < k) {
      picked.push(i);
      if (picked.length === k) picked.sort((a, b) => scores[b]! - scores[a]!);
    } else if (scores[i]! > scores[picked[k - 1]!]!) {
      let at = k - 1;
      while (at > 0 && scores[picked[at - 1]!]! < scores[i]!) at--;
      picked.splice(at, 0, i);
      picked.pop();
    }
  }
  return picked.sort((a, b) => scores[b]! - scores[a]!);
}

// ── the run ─────────────────────────────────────────────────────────────────────────────────────
const dir = mkdtempSync(join(tmpdir(), "ion-bench-memory-"));
const path = join(dir, "memory.db");
try {
  console.log(`building ${MEMORIES.toLocaleString("en")} memories with ${DIMS}-dim vectors …`);
  const built = performance.now();
  const store = MemoryStore.open(path);
  const topicOf: number[] = [];
  const vectorOf: Float32Array[] = [];
  const texts: string[] = [];
  const start = Date.UTC(2026, 0, 1);
  for (let done = 0; done < MEMORIES; done += 1000) {
    const batch: NewMemory[] = [];
    for (let i = done; i < Math.min(MEMORIES, done + 1000); i++) {
      const topic = Math.floor(random() * TOPICS.length);
      const content = `${memoryText(TOPICS[topic]!)} #${i}`;
      topicOf.push(topic);
      texts.push(content);
      vectorOf.push(nearby(TOPICS[topic]!.centre, 1.3));
      batch.push({
        content,
        source: `session-${Math.floor(i / 30)}`,
        type: "episodic",
        createdAt: start + i * 60_000,
      });
    }
    store.add(batch);
    store.saveVectors(
      MODEL,
      batch.map((memory, j) => ({ contentHash: contentHash(memory.content), vector: vectorOf[done + j]! })),
    );
  }
  store.close();
  const raw = new Database(path);
  raw.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
  // Where the bytes are: the vectors (embeddings, their index, the sign-code pages) against the rest.
  const parts = raw
    .query<{ name: string; bytes: number }, []>("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name")
    .all();
  raw.close();
  const vectorBytes = parts
    .filter((part) => /^(embeddings|code_pages|sqlite_autoindex_embeddings)/.test(part.name))
    .reduce((sum, part) => sum + part.bytes, 0);
  const bytes = statSync(path).size;
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  console.log(
    `built in ${((performance.now() - built) / 1000).toFixed(1)} s; memory.db ${mb(bytes)} ` +
      `(${mb((bytes / MEMORIES) * 100_000)} per 100 000 memories): vectors (Float16, with their sign codes) ${mb(vectorBytes)}, ` +
      `text, full-text index and the rest ${mb(bytes - vectorBytes)}\n`,
  );
  summary.push({
    bench: "memory",
    name: `memory.db, ${MEMORIES.toLocaleString("en")} memories`,
    value: `${(bytes / 1e6).toFixed(1)} MB`,
    floor: "",
    target: "reported",
    pass: undefined,
  });

  // Questions: a few of one memory's words in a sentence, and a vector near that memory's.
  const embedder = new FakeEmbedder();
  const questions = Array.from({ length: QUERIES }, (_, q) => {
    const target = Math.floor(random() * MEMORIES);
    const words = texts[target]!.split(" ").filter((w) => w.length > 3);
    const picked = Array.from(
      { length: 3 + Math.floor(random() * 5) },
      () => words[Math.floor(random() * words.length)]!,
    );
    const text = `what did we say about ${picked.join(" ")} (${q})?`;
    embedder.known.set(text, nearby(vectorOf[target]!, 0.6));
    return text;
  });

  // A fresh process's first recall: open, FTS, and (fused) loading every sign code.
  const probe = join(dir, "cold.ts");
  await Bun.write(
    probe,
    `import { MemoryStore } from ${JSON.stringify(join(import.meta.dir, "../src/memory/store.ts"))};
     import { recall } from ${JSON.stringify(join(import.meta.dir, "../src/memory/recall.ts"))};
     const vector = new Float32Array(${JSON.stringify([...embedder.known.get(questions[0]!)!])});
     const embedder = { model: ${JSON.stringify(MODEL)}, embed: async () => [vector] };
     const t0 = performance.now();
     const store = MemoryStore.open(${JSON.stringify(path)});
     const t1 = performance.now();
     await recall(store, ${JSON.stringify(questions[1])}, { budgetTokens: ${BUDGET} });
     const t2 = performance.now();
     await recall(store, ${JSON.stringify(questions[0])}, { budgetTokens: ${BUDGET}, embedder });
     const t3 = performance.now();
     console.log(JSON.stringify([t1 - t0, t2 - t1, t3 - t2]));`,
  );
  const cold = Array.from({ length: 3 }, () => {
    const run = Bun.spawnSync([process.execPath, probe]);
    return JSON.parse(run.stdout.toString()) as [number, number, number];
  });
  const coldMedian = (i: number) => quantile(ascending(cold.map((c) => c[i]!)), 0.5);
  console.log("first recall in a fresh process (information, median of 3):");
  console.log(
    `  open memory.db ${fmt(coldMedian(0))}; first BM25 recall ${fmt(coldMedian(1))}; first fused recall (loads the sign codes) ${fmt(coldMedian(2))}\n`,
  );

  const warm = MemoryStore.open(path);
  console.log(`recall, ${QUERIES} questions, budget ${BUDGET} tokens, candidates 50 per list:`);
  const bm25 = await timeEach(questions, (text) => recall(warm, text, { budgetTokens: BUDGET }));
  row("recall, BM25 only", bm25, BARS, "recall, BM25 only");
  const fused = await timeEach(questions, (text) => recall(warm, text, { budgetTokens: BUDGET, embedder }));
  row("recall, BM25 + vectors fused", fused, BARS, "recall, fused with vectors");
  // The worst case for FTS5: prompts of only the most common words (each in a large share of the rows).
  const common = Array.from(
    { length: 60 },
    (_, i) =>
      `what about ${VOCABULARY[i % 12]} ${VOCABULARY[(i * 5 + 1) % 12]} ${VOCABULARY[(i * 7 + 2) % 12]} now`,
  );
  const worst = await timeEach(common, (text) => recall(warm, text, { budgetTokens: BUDGET }));
  row("recall, BM25, only the 12 commonest words", worst, BARS);
  const found = await recall(warm, questions[2]!, { budgetTokens: BUDGET, embedder });
  console.log(`  (a recall returns ${found.memories.length} memories, ${found.tokens} tokens)\n`);

  // The vector list alone: exact over floats in memory against the prefilter the store uses.
  console.log("the vector list alone (top 50):");
  const loadStarted = performance.now();
  const db = new Database(path, { readonly: true });
  const all = new Float32Array(MEMORIES * DIMS);
  let n = 0;
  for (const [vector] of db.query("SELECT vector FROM embeddings ORDER BY vseq").values() as [Uint8Array][])
    all.set(decodeVector(vector), DIMS * n++);
  db.close();
  console.log(
    `  loading every float vector: ${fmt(performance.now() - loadStarted)}, ${(all.byteLength / 1e6).toFixed(0)} MB held`,
  );
  const exactTop: number[][] = [];
  const scores = new Float32Array(MEMORIES);
  const exact = await timeEach(questions, (text) => {
    const query = embedder.known.get(text)!;
    for (let row = 0, base = 0; row < n; row++, base += DIMS) {
      let dot = 0;
      for (let d = 0; d < DIMS; d++) dot += all[base + d]! * query[d]!;
      scores[row] = dot;
    }
    exactTop.push(topK(scores, 50));
  });
  row("exact cosine over all floats (in memory)", exact);
  const prefilterTop: number[][] = [];
  const seqOf = new Map(texts.map((text, i) => [text, i]));
  const prefilter = await timeEach(questions, (text) => {
    const hits = warm.searchVectors(MODEL, embedder.known.get(text)!, { limit: 50 });
    prefilterTop.push(hits.map((hit) => seqOf.get(hit.memory.content)!));
  });
  row("Hamming prefilter + exact re-rank of 256", prefilter);
  const overlap = (k: number) => {
    let kept = 0;
    const offset = exactTop.length - prefilterTop.length; // the warm-up rounds come first in exactTop
    prefilterTop.forEach((list, i) => {
      const truth = new Set(exactTop[i + offset]!.slice(0, k));
      kept += list.slice(0, k).filter((index) => truth.has(index)).length;
    });
    return kept / (prefilterTop.length * k);
  };
  console.log(
    `  the prefilter keeps ${(overlap(10) * 100).toFixed(1)} % of the exact top 10, ${(overlap(50) * 100).toFixed(1)} % of the top 50\n`,
  );

  console.log("learning one turn (3 memories: prompt, a tool line, the answer; one transaction):");
  const turns = Array.from({ length: 300 }, (_, i) => [
    { content: `user: ${memoryText(TOPICS[i % 500]!)}`, source: "bench-session", type: "episodic" as const },
    {
      content: `tool read_file src/${VOCABULARY[i]}.ts: ok`,
      source: "bench-session",
      type: "episodic" as const,
    },
    {
      content: `assistant: ${memoryText(TOPICS[(i * 7) % 500]!)}`,
      source: "bench-session",
      type: "episodic" as const,
    },
  ]);
  const ingest = await timeEach(turns, (turn) => warm.add(turn));
  row("add one turn", ingest, { p50: BARS.ingest }, "learn one turn (3 memories)");
  warm.close();
  recordSummary(summary);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
