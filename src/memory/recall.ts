/**
 * Recall: what earlier sessions taught that bears on this prompt, within a token budget.
 *
 * Transactional input (classify.ts) recalls nothing. Otherwise the candidates are the FTS5 BM25 top
 * `candidates` and, with an embedder, the vector top `candidates`; they are fused by RRF with a small
 * recency prior (rank.ts), memories already in the context (or equal to a better one) are dropped, and
 * the rest fill the budget greedily, best first. The query is embedded together with a small batch of
 * memories still without a vector under the embedder's model (oldest first), so a new or changed
 * embedding model catches up a little each turn without ever blocking one long. An embedder that
 * fails leaves full text and recency, and says why in `embeddingError`.
 */
import { isTransactional } from "./classify.ts";
import { toFtsQuery } from "./fts-query.ts";
import { DEFAULT_HALF_LIFE_DAYS, fillBudget, fuse } from "./rank.ts";
import { contentHash, type MemoryStore } from "./store.ts";
import type { EmbeddingProvider, RecalledMemory, RecallOptions, RecallResult } from "./types.ts";

export const DEFAULT_CANDIDATES = 50;
/** Memories embedded along with each query, at most. */
export const EMBED_PER_RECALL = 16;

export async function recall(
  store: MemoryStore,
  text: string,
  options: RecallOptions,
): Promise<RecallResult> {
  if (options.classify !== false && isTransactional(text))
    return { memories: [], tokens: 0, skipped: "transactional" };
  const limit = options.candidates ?? DEFAULT_CANDIDATES;
  const filters = { asOf: options.asOf, excludeSource: options.excludeSource, now: options.now, limit };
  const match = toFtsQuery(text);
  const textHits = match === "" ? [] : store.searchText(match, filters);

  let vectorHits: { memory: RecalledMemory["memory"]; similarity: number }[] = [];
  let embeddingError: string | undefined;
  if (options.embedder) {
    try {
      const query = await embedQuery(store, options.embedder, text, options.signal);
      vectorHits = store.searchVectors(options.embedder.model, query, filters);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      embeddingError = err instanceof Error ? err.message : String(err);
    }
  }
  const extra = embeddingError === undefined ? {} : { embeddingError };
  if (textHits.length === 0 && vectorHits.length === 0)
    return { memories: [], tokens: 0, skipped: "empty", ...extra };

  const ranked = fuse(textHits, vectorHits, {
    now: options.asOf ?? options.now ?? Date.now(),
    halfLifeDays: options.halfLifeDays ?? DEFAULT_HALF_LIFE_DAYS,
    recencyWeight: options.recencyWeight,
  });
  const { items, tokens } = fillBudget(
    notYetKnown(ranked, options.contextTexts ?? []),
    options.budgetTokens,
    (r) => r.memory.tokens,
  );
  return { memories: items, tokens, ...extra };
}

/**
 * Embeds the query, and in the same request the next few memories still missing a vector under this
 * model (saved by content hash). Returns the query's vector.
 */
async function embedQuery(
  store: MemoryStore,
  embedder: EmbeddingProvider,
  text: string,
  signal: AbortSignal | undefined,
): Promise<Float32Array> {
  const missing = store.missingVectors(embedder.model, EMBED_PER_RECALL);
  const contents = [...new Set(missing.map((memory) => memory.content))];
  const vectors = await embedder.embed([text, ...contents], signal);
  if (vectors.length !== contents.length + 1)
    throw new Error(`${embedder.model} returned ${vectors.length} vectors for ${contents.length + 1} texts`);
  if (contents.length > 0)
    store.saveVectors(
      embedder.model,
      contents.map((content, i) => ({ contentHash: contentHash(content), vector: vectors[i + 1]! })),
    );
  return vectors[0]!;
}

/** Drops memories whose text the context already holds, and repeats of a text ranked higher. */
function notYetKnown(ranked: readonly RecalledMemory[], contextTexts: readonly string[]): RecalledMemory[] {
  const context = contextTexts.join("\n\u0000");
  const seen = new Set<string>();
  return ranked.filter(({ memory }) => {
    if (seen.has(memory.content)) return false;
    seen.add(memory.content);
    return !context.includes(memory.content);
  });
}
