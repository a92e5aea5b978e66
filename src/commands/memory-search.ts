import type { Env } from "../config/paths.ts";
import type { Config, Keys } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import type { MemoryStore } from "../memory/store.ts";
import type { RecalledMemory, ScoreParts } from "../memory/types.ts";
import { colorEnabled, createStyle, type Style } from "../ui/style.ts";
import { messageOf } from "../util/error-text.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { parseStrict } from "./_shared.ts";
import { searchArgs } from "./memory.ts";
import {
  memoryConfig,
  memoryExists,
  memoryItem,
  memorySummary,
  openMemoryStore,
  parseDate,
  parseLimit,
  SHORT_ID_MIN,
} from "./memory-common.ts";
import { shortIds } from "./sessions-list.ts";

export interface MemorySearch {
  asOf?: number;
  limit: number;
  config: Config;
  keys: Keys;
  env: Env;
  /** Told when the embedding model cannot be used: the search goes on by words and recency. */
  warn: (text: string) => void;
}

/**
 * The memories `query` finds, ranked as recall ranks them (BM25, vectors when an embedding model is
 * configured, the recency prior), best first — but every query is searched (no transactional skip),
 * nothing is excluded, and no budget applies beyond `limit`.
 */
export async function findMemories(
  store: MemoryStore,
  query: string,
  search: MemorySearch,
): Promise<RecalledMemory[]> {
  const { recall } = await import("../memory/recall.ts");
  const found = await recall(store, query, {
    budgetTokens: Number.MAX_SAFE_INTEGER,
    candidates: Math.max(50, search.limit),
    asOf: search.asOf,
    embedder: await embedder(search),
    halfLifeDays: search.config.memory?.recency_half_life_days,
    classify: false,
  });
  return found.memories.slice(0, search.limit);
}

async function embedder(search: MemorySearch) {
  const spec = search.config.memory?.embedding;
  if (spec === undefined) return undefined;
  const { embedderFor } = await import("../memory/embeddings.ts");
  try {
    return await embedderFor(spec, { config: search.config, env: search.env, keys: search.keys });
  } catch (err) {
    search.warn(`${messageOf(err)}; searching by words and recency only`);
    return undefined;
  }
}

/** Two lines a memory: id, day, type and content; then why it ranked there. */
export function hitLines(hits: readonly RecalledMemory[], style: Style, width = 100): string[] {
  const ids = shortIds(
    hits.map((hit) => hit.memory.id),
    SHORT_ID_MIN,
  );
  return hits.flatMap(({ memory, score }) => [
    `${style.dim(ids.get(memory.id) ?? memory.id)}  ${safeForTerminal(memorySummary(memory, width))}`,
    style.dim(`    ${scoreText(score)}`),
  ]);
}

/** `score 0.0325 · bm25 #1 (-3.21) · vector #4 (0.812) · recency +0.0012` */
export function scoreText(score: ScoreParts): string {
  const parts = [`score ${score.fused.toFixed(4)}`];
  if (score.bm25Rank !== undefined)
    parts.push(`bm25 #${score.bm25Rank} (${(score.bm25 ?? 0).toPrecision(3)})`);
  if (score.vectorRank !== undefined)
    parts.push(`vector #${score.vectorRank} (${(score.similarity ?? 0).toFixed(3)})`);
  parts.push(`recency +${score.recency.toFixed(4)}`);
  return parts.join(" · ");
}

/** `ion memory search QUERY [--as-of DATE] [--limit N] [--json]`. */
export async function searchMemories(rawArgs: string[]): Promise<void> {
  const args = parseStrict("memory search", rawArgs, searchArgs, Number.POSITIVE_INFINITY);
  const query = args._.join(" ").trim();
  if (query === "")
    throw new IonError("usage", '"ion memory search" needs something to look for', {
      hint: 'e.g. `ion memory search "tabs or spaces"`; --as-of 2026-11-01 for what ion knew then',
    });
  const asOf = args["as-of"] === undefined ? undefined : parseDate("--as-of", args["as-of"], "end");
  const limit = parseLimit(args.limit, 10);
  const { config, keys } = await memoryConfig();
  const warn = (text: string) => process.stderr.write(`ion: warning: ${safeForTerminal(text)}\n`);
  const store = memoryExists() ? openMemoryStore() : undefined;
  let hits: RecalledMemory[] = [];
  try {
    if (store) hits = await findMemories(store, query, { asOf, limit, config, keys, env: process.env, warn });
  } finally {
    store?.close();
  }
  if (args.json === true) {
    const items = hits.map((hit) => ({ ...memoryItem(hit.memory), score: hit.score }));
    process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    return;
  }
  if (hits.length === 0) {
    process.stderr.write(`no memories match ${JSON.stringify(query)}\n`);
    return;
  }
  const style = createStyle(colorEnabled(process.stdout.isTTY === true));
  const width = Math.max(40, (process.stdout.columns ?? 120) - 44);
  process.stdout.write(`${hitLines(hits, style, width).join("\n")}\n`);
}
