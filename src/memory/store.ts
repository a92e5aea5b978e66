/**
 * The memory store: `<data>/memory.db` on bun:sqlite (see store-schema.ts for the tables). Synchronous,
 * one connection per process; every write is one IMMEDIATE transaction, so two ion processes writing at
 * once wait for each other (busy timeout) instead of failing. Bi-temporal: `forget` ends a memory's
 * validity and keeps the row, `asOf` reads what was known and valid at a time, `remove` deletes for good.
 * A database found damaged — on open or by any later statement — is moved aside with one warning and
 * replaced by a new one, and the call is retried there.
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import { tokensOfChars } from "../agent/tokens.ts";
import { dataDir, type Env } from "../config/paths.ts";
import { connect, corruptionWarning, inodeOf, isCorruption, moveAside } from "./store-open.ts";
import { COLUMNS, type Filters, filterParams, type MemoryRow, recordOf, VALID } from "./store-sql.ts";
import { textCandidates } from "./store-text.ts";
import { insertVectors, memoriesWithoutVector, nearestMemories, storedVector } from "./store-vectors.ts";
import type { MemoryRecord, MemoryType, NewMemory } from "./types.ts";
import { uuid7 } from "./uuid7.ts";
import { VectorIndex } from "./vector-index.ts";

export function memoryDbPath(env: Env = process.env): string {
  return join(dataDir(env), "memory.db");
}

/** The key of a text's embedding (the cache by content): SHA-1, hex. */
export function contentHash(text: string): string {
  return new Bun.CryptoHasher("sha1").update(text).digest("hex");
}

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

export class MemoryStore {
  private db: Database;
  private inode: number | undefined;
  private readonly index: VectorIndex;

  private constructor(
    readonly path: string,
    private readonly warn: (text: string) => void,
  ) {
    this.db = this.openOrReplace();
    this.index = new VectorIndex(() => this.db);
  }

  static open(path: string, options: { warn?: (text: string) => void } = {}): MemoryStore {
    return new MemoryStore(path, options.warn ?? ((text) => process.stderr.write(`ion: warning: ${text}\n`)));
  }

  add(items: readonly NewMemory[]): MemoryRecord[] {
    return this.guard(() => {
      const insert = this.db.query(
        `INSERT INTO memories (id, content, source, type, created_at, valid_from, valid_to, tokens, content_hash)
         VALUES ($id, $content, $source, $type, $createdAt, $validFrom, NULL, $tokens, $hash)`,
      );
      const now = Date.now();
      return this.db
        .transaction(() =>
          items.map((item): MemoryRecord => {
            const createdAt = item.createdAt ?? now;
            const record: MemoryRecord = {
              id: uuid7(createdAt),
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
    });
  }

  /** A memory by its id or by a prefix of it that names exactly one. */
  get(idOrUniquePrefix: string): MemoryRecord | undefined {
    const key = idOrUniquePrefix.trim().toLowerCase();
    if (key === "") return undefined;
    return this.guard(() => {
      const exact = this.db
        .query<MemoryRow, [string]>(`SELECT ${COLUMNS} FROM memories m WHERE id = ?`)
        .get(key);
      if (exact) return recordOf(exact);
      // Ids are lowercase hex and dashes, all below "g": [key, key + "g") is exactly the ids it begins.
      const rows = this.db
        .query<MemoryRow, [string, string]>(
          `SELECT ${COLUMNS} FROM memories m WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`,
        )
        .all(key, `${key}g`);
      return rows.length === 1 ? recordOf(rows[0]!) : undefined;
    });
  }

  /** Newest first. Without `includeEnded`, only memories valid now (or at `asOf`). */
  list(options: ListOptions = {}): MemoryRecord[] {
    return this.guard(() =>
      this.db
        .query<MemoryRow, Record<string, string | number | null>>(
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
        .map(recordOf),
    );
  }

  /** Ends a memory's validity at `at` (default now); the row stays for `asOf`. False when none was valid. */
  forget(id: string, at: number = Date.now()): boolean {
    return this.guard(
      () =>
        this.db
          .query("UPDATE memories SET valid_to = $at WHERE id = $id AND (valid_to IS NULL OR valid_to > $at)")
          .run({ id, at }).changes > 0,
    );
  }

  /** Deletes a memory for good: its row, its FTS entry, and its vectors unless another memory shares them. */
  remove(id: string): boolean {
    return this.guard(() =>
      this.db
        .transaction(() => {
          const row = this.db
            .query<{ content_hash: string }, [string]>("SELECT content_hash FROM memories WHERE id = ?")
            .get(id);
          if (!row) return false;
          this.db.query("DELETE FROM memories WHERE id = ?").run(id);
          this.db
            .query(
              "DELETE FROM embeddings WHERE content_hash = $hash AND NOT EXISTS (SELECT 1 FROM memories WHERE content_hash = $hash)",
            )
            .run({ hash: row.content_hash });
          return true;
        })
        .immediate(),
    );
  }

  /**
   * Full-text candidates for an FTS5 MATCH expression (see fts-query.ts), best first, with FTS5's
   * bm25() (lower is better). In a large store the most common words of the query may be left out to
   * bound the cost (store-text.ts).
   */
  searchText(
    match: string,
    options: Filters & { limit: number; postingBudget?: number },
  ): { memory: MemoryRecord; bm25: number }[] {
    if (match === "") return [];
    return this.guard(() => textCandidates(this.db, match, options));
  }

  /**
   * Vector candidates: the memories whose content's vector (under `model`) is nearest to `query`,
   * best first by cosine similarity. Memories sharing a content each appear, with the same similarity.
   */
  searchVectors(
    model: string,
    query: Float32Array,
    options: Filters & { limit: number },
  ): { memory: MemoryRecord; similarity: number }[] {
    return this.guard(() => nearestMemories(this.db, this.index, model, query, options));
  }

  /** Valid memories with no vector under `model` yet, oldest first: what to embed next. */
  missingVectors(model: string, limit: number): MemoryRecord[] {
    return this.guard(() => memoriesWithoutVector(this.db, model, limit));
  }

  /** Stores vectors by content hash (a hash already stored for the model keeps its vector). */
  saveVectors(model: string, rows: readonly { contentHash: string; vector: Float32Array }[]): void {
    this.guard(() => insertVectors(this.db, model, rows));
  }

  vectorFor(model: string, hash: string): Float32Array | undefined {
    return this.guard(() => storedVector(this.db, model, hash));
  }

  stats(): MemoryStats {
    return this.guard(() => {
      const now = Date.now();
      const byType: Record<MemoryType, number> = { episodic: 0, semantic: 0, procedural: 0 };
      for (const row of this.db
        .query<{ type: MemoryType; n: number }, []>("SELECT type, count(*) AS n FROM memories GROUP BY type")
        .all())
        byType[row.type] = row.n;
      const totals = this.db
        .query<{ valid: number; last: number | null }, [number]>(
          "SELECT count(*) AS valid, (SELECT max(created_at) FROM memories) AS last FROM memories WHERE valid_to IS NULL OR valid_to > ?",
        )
        .get(now)!;
      const vectors = this.db
        .query<{ model: string; count: number }, []>(
          "SELECT model, count(*) AS count FROM embeddings GROUP BY model ORDER BY model",
        )
        .all();
      return {
        count: byType.episodic + byType.semantic + byType.procedural,
        valid: totals.valid,
        bytes: fileSize(this.path) + fileSize(`${this.path}-wal`),
        byType,
        vectors,
        lastLearnedAt: totals.last,
      };
    });
  }

  /** Deletes every memory and vector, and compacts the file so none of their bytes stay in it. */
  wipe(): void {
    this.guard(() => {
      this.db
        .transaction(() => {
          this.db.run("DELETE FROM memories");
          this.db.run("DELETE FROM embeddings");
          this.db.run("DELETE FROM code_pages");
          this.db.run("DELETE FROM vector_progress");
        })
        .immediate();
      this.db.run("VACUUM");
      this.db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
    });
    this.index.clear();
  }

  close(): void {
    this.db.close();
  }

  private openOrReplace(): Database {
    try {
      const db = connect(this.path);
      this.inode = inodeOf(this.path);
      return db;
    } catch (err) {
      if (!isCorruption(err)) throw err;
      this.replaceDamaged(err, inodeOf(this.path));
      const db = connect(this.path);
      this.inode = inodeOf(this.path);
      return db;
    }
  }

  private replaceDamaged(err: unknown, inode: number | undefined): void {
    const aside = moveAside(this.path, inode);
    if (aside) this.warn(corruptionWarning(this.path, aside, err));
  }

  /** Runs a statement; on a damaged database, moves it aside, opens a new one and runs it once more. */
  private guard<T>(run: () => T): T {
    try {
      return run();
    } catch (err) {
      if (!isCorruption(err)) throw err;
      this.db.close();
      this.replaceDamaged(err, this.inode);
      this.index.clear();
      this.db = connect(this.path);
      this.inode = inodeOf(this.path);
      return run();
    }
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0; // no WAL right now
    throw err;
  }
}
