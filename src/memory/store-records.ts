/**
 * The memory store's statements on memories themselves (store.ts calls them inside its damage guard):
 * add, look up, list, end validity, delete, count, wipe.
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { tokensOfChars } from "../agent/tokens.ts";
import { COLUMNS, filterParams, type MemoryRow, recordOf, VALID } from "./store-sql.ts";
import type { MemoryRecord, MemoryType, NewMemory } from "./types.ts";
import { uuid7 } from "./uuid7.ts";

export interface ListOptions {
  type?: MemoryType;
  since?: number;
  asOf?: number;
  includeEnded?: boolean;
  limit?: number;
}

export interface MemoryStats {
  count: number;
  valid: number;
  bytes: number;
  byType: Record<MemoryType, number>;
  vectors: { model: string; count: number }[];
  lastLearnedAt: number | null;
}

type Params = Record<string, string | number | null>;

/** The key of a text's embedding (the cache by content): SHA-1, hex. */
export function contentHash(text: string): string {
  return new Bun.CryptoHasher("sha1").update(text).digest("hex");
}

export function addMemories(db: Database, items: readonly NewMemory[]): MemoryRecord[] {
  // A memory with its own id (posted to the inbox first) may be added twice: the second is ignored.
  const insert = db.query(
    `INSERT OR IGNORE INTO memories (id, content, source, type, created_at, valid_from, valid_to, tokens, content_hash)
     VALUES ($id, $content, $source, $type, $createdAt, $validFrom, NULL, $tokens, $hash)`,
  );
  const now = Date.now();
  return db
    .transaction(() =>
      items.map((item): MemoryRecord => {
        const createdAt = item.createdAt ?? now;
        const record: MemoryRecord = {
          id: item.id ?? uuid7(createdAt),
          content: item.content,
          source: item.source,
          type: item.type,
          createdAt,
          validFrom: item.validFrom ?? createdAt,
          validTo: null,
          tokens: tokensOfChars(item.content.length),
        };
        insert.run({ ...record, hash: contentHash(item.content) });
        return record;
      }),
    )
    .immediate();
}

/** By id, else by a lowercase prefix that names exactly one. */
export function memoryById(db: Database, key: string): MemoryRecord | undefined {
  const exact = db.query<MemoryRow, [string]>(`SELECT ${COLUMNS} FROM memories m WHERE id = ?`).get(key);
  if (exact) return recordOf(exact);
  // Ids are lowercase hex and dashes, all below "g": [key, key + "g") is exactly the ids it begins.
  const rows = db
    .query<MemoryRow, [string, string]>(
      `SELECT ${COLUMNS} FROM memories m WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`,
    )
    .all(key, `${key}g`);
  return rows.length === 1 ? recordOf(rows[0]!) : undefined;
}

export function listMemories(db: Database, options: ListOptions): MemoryRecord[] {
  return db
    .query<MemoryRow, Params>(
      `SELECT ${COLUMNS} FROM memories m
       WHERE ($type IS NULL OR m.type = $type) AND ($since IS NULL OR m.created_at >= $since)
         AND ($asOf IS NULL OR m.created_at <= $asOf) AND ($includeEnded OR ${VALID})
       ORDER BY m.created_at DESC, m.seq DESC LIMIT $limit`,
    )
    .all({
      ...filterParams(options),
      type: options.type ?? null,
      since: options.since ?? null,
      includeEnded: options.includeEnded ? 1 : 0,
      limit: options.limit ?? -1,
    })
    .map(recordOf);
}

export function endValidity(db: Database, id: string, at: number): boolean {
  return (
    db
      .query("UPDATE memories SET valid_to = $at WHERE id = $id AND (valid_to IS NULL OR valid_to > $at)")
      .run({ id, at }).changes > 0
  );
}

/** Deletes the row (its FTS entry goes by trigger) and its vector unless another memory has that text. */
export function deleteMemory(db: Database, id: string): boolean {
  return db
    .transaction(() => {
      const row = db
        .query<{ content_hash: string }, [string]>("SELECT content_hash FROM memories WHERE id = ?")
        .get(id);
      if (!row) return false;
      db.query("DELETE FROM memories WHERE id = ?").run(id);
      db.query(
        "DELETE FROM embeddings WHERE content_hash = $hash AND NOT EXISTS (SELECT 1 FROM memories WHERE content_hash = $hash)",
      ).run({ hash: row.content_hash });
      return true;
    })
    .immediate();
}

export function storeStats(db: Database, path: string): MemoryStats {
  const byType: Record<MemoryType, number> = { episodic: 0, semantic: 0, procedural: 0 };
  for (const row of db
    .query<{ type: MemoryType; n: number }, []>("SELECT type, count(*) AS n FROM memories GROUP BY type")
    .all())
    byType[row.type] = row.n;
  const totals = db
    .query<{ valid: number; last: number | null }, [number]>(
      "SELECT count(*) AS valid, (SELECT max(created_at) FROM memories) AS last FROM memories WHERE valid_to IS NULL OR valid_to > ?",
    )
    .get(Date.now())!;
  const vectors = db
    .query<{ model: string; count: number }, []>(
      "SELECT model, count(*) AS count FROM embeddings GROUP BY model ORDER BY model",
    )
    .all();
  return {
    count: byType.episodic + byType.semantic + byType.procedural,
    valid: totals.valid,
    bytes: fileSize(path) + fileSize(`${path}-wal`),
    byType,
    vectors,
    lastLearnedAt: totals.last,
  };
}

/** Deletes every memory and vector, then compacts the file so none of their bytes stay in it. */
export function deleteAll(db: Database): void {
  db.transaction(() => {
    db.run("DELETE FROM memories");
    db.run("DELETE FROM embeddings");
    db.run("DELETE FROM code_pages");
    db.run("DELETE FROM vector_progress");
  }).immediate();
  db.run("VACUUM");
  db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0; // no WAL right now
    throw err;
  }
}
