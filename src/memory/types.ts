/**
 * Memory's shared types: what is stored (bi-temporal: `createdAt` is when ion learnt it, `validFrom`/
 * `validTo` when it held), why a memory was recalled, and the embedding seam.
 */
export type MemoryType = "episodic" | "semantic" | "procedural";
export interface MemoryRecord {
  id: string; // UUIDv7
  content: string;
  source: string; // session id or file path
  type: MemoryType;
  createdAt: number; // ms since epoch (transaction time)
  validFrom: number; // ms (valid time start)
  validTo: number | null; // ms; null = still valid. forget sets it
  tokens: number; // estimated tokens of content
}
export interface NewMemory {
  /** Given when the memory was posted before it was stored (the inbox): stored once however often added. */
  id?: string;
  content: string;
  source: string;
  type: MemoryType;
  createdAt?: number;
  validFrom?: number;
}
/** Why a memory ranked where it did (shown by `ion memory search`). */
export interface ScoreParts {
  bm25Rank?: number;
  bm25?: number; // 1-based rank in the FTS5 list, FTS5's bm25() value
  vectorRank?: number;
  similarity?: number; // 1-based rank in the vector list, cosine similarity
  recency: number; // the recency prior's contribution
  fused: number; // the final score (higher = better)
}
export interface RecalledMemory {
  memory: MemoryRecord;
  score: ScoreParts;
}
/** Turns text into vectors. `model` is "provider/model". */
export interface EmbeddingProvider {
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
export interface RecallOptions {
  budgetTokens: number;
  asOf?: number; // ms; memories valid at that time (valid_from <= t and (valid_to null or > t)), created before t
  excludeSource?: string; // the current session's id: its own turns are never recalled
  contextTexts?: readonly string[]; // texts already in the context: a memory whose content is in one of them is skipped
  embedder?: EmbeddingProvider; // absent → BM25 + recency only
  halfLifeDays?: number; // recency prior (default chosen by M1's measurement)
  recencyWeight?: number; // the recency prior's ceiling, a fraction of the memory's own score (default: rank.ts)
  classify?: boolean; // false: recall even what looks transactional (`ion memory search ok`); default true
  candidates?: number; // per list, default 50
  now?: number;
  signal?: AbortSignal;
}
export interface RecallResult {
  memories: RecalledMemory[];
  tokens: number;
  skipped?: "transactional" | "empty";
  embeddingError?: string; // the embedder failed: these memories come from full text and recency only
}
