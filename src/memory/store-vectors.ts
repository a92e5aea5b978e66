/**
 * The vector side of the memory store (store.ts calls these inside its damage guard): the nearest
 * memories to a query vector, the memories still to embed, and saving vectors with their sign codes.
 */
import type { Database } from "bun:sqlite";
import { appendCodes } from "./code-pages.ts";
import {
  COLUMNS,
  type Filters,
  filterParams,
  type MemoryRow,
  NOT_EXCLUDED,
  recordOf,
  VALID,
} from "./store-sql.ts";
import type { MemoryRecord } from "./types.ts";
import type { VectorIndex } from "./vector-index.ts";
import { decodeVector, encodeVector, signCode } from "./vectors.ts";

type Params = Record<string, string | number | null>;

/** The memories whose content's vector is nearest to `query`, best first, filtered. */
export function nearestMemories(
  db: Database,
  index: VectorIndex,
  model: string,
  query: Float32Array,
  options: Filters & { limit: number },
): { memory: MemoryRecord; similarity: number }[] {
  const hits = index.nearest(model, query, signCode(query), options.limit);
  const byHash = new Map<string, MemoryRecord[]>();
  const rows = db
    .query<MemoryRow & { content_hash: string }, Params>(
      `SELECT ${COLUMNS}, m.content_hash FROM memories m
       WHERE m.content_hash IN (SELECT value FROM json_each($hashes)) AND ${VALID} AND ${NOT_EXCLUDED}
       ORDER BY m.seq DESC`,
    )
    .all({ ...filterParams(options), hashes: JSON.stringify(hits.map((hit) => hit.contentHash)) });
  for (const row of rows) {
    const list = byHash.get(row.content_hash);
    if (list) list.push(recordOf(row));
    else byHash.set(row.content_hash, [recordOf(row)]);
  }
  const out: { memory: MemoryRecord; similarity: number }[] = [];
  for (const hit of hits) {
    for (const memory of byHash.get(hit.contentHash) ?? []) {
      out.push({ memory, similarity: hit.similarity });
      if (out.length === options.limit) return out;
    }
  }
  return out;
}

/**
 * Valid memories with no vector under `model`, oldest first. `vector_progress` remembers the `seq`
 * below which every memory has one, so a store where all are embedded answers without a scan.
 */
export function memoriesWithoutVector(db: Database, model: string, limit: number): MemoryRecord[] {
  const mark =
    db.query<{ seq: number }, [string]>("SELECT seq FROM vector_progress WHERE model = ?").get(model)?.seq ??
    0;
  const rows = db
    .query<MemoryRow, Params>(
      `SELECT ${COLUMNS} FROM memories m
       WHERE m.seq > $mark AND (m.valid_to IS NULL OR m.valid_to > $now)
         AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = $model AND e.content_hash = m.content_hash)
       ORDER BY m.seq LIMIT $limit`,
    )
    .all({ mark, now: Date.now(), model, limit });
  // Everything below the first memory still missing has a vector: later calls start there.
  const done =
    rows.length > 0
      ? rows[0]!.seq - 1
      : (db.query<{ top: number | null }, []>("SELECT max(seq) AS top FROM memories").get()?.top ?? 0);
  if (done > mark)
    db.query(
      "INSERT INTO vector_progress (model, seq) VALUES (?, ?) ON CONFLICT (model) DO UPDATE SET seq = excluded.seq",
    ).run(model, done);
  return rows.map(recordOf);
}

/** Saves vectors (Float16) and their sign codes in one transaction; a content already embedded keeps its vector. */
export function insertVectors(
  db: Database,
  model: string,
  rows: readonly { contentHash: string; vector: Float32Array }[],
): void {
  const insert = db.query(
    "INSERT INTO embeddings (model, content_hash, dims, vector) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  db.transaction(() => {
    const codes = new Map<number, { vseq: number; code: Uint32Array }[]>(); // by dimensions
    for (const { contentHash: hash, vector } of rows) {
      const { changes, lastInsertRowid } = insert.run(model, hash, vector.length, encodeVector(vector));
      if (changes === 0) continue; // this content already has a vector under the model
      const list = codes.get(vector.length) ?? [];
      list.push({ vseq: Number(lastInsertRowid), code: signCode(vector) });
      codes.set(vector.length, list);
    }
    for (const [dims, entries] of codes) appendCodes(db, model, dims, entries);
  }).immediate();
}

export function storedVector(db: Database, model: string, hash: string): Float32Array | undefined {
  const row = db
    .query<{ vector: Uint8Array }, [string, string]>(
      "SELECT vector FROM embeddings WHERE model = ? AND content_hash = ?",
    )
    .get(model, hash);
  return row ? decodeVector(row.vector) : undefined;
}
