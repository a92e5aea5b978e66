/**
 * A project's code index: `<data>/index/<key>.db` on bun:sqlite (store-schema.ts has the tables), the
 * key the first 16 hex digits of the SHA-256 of the project root's real path. One connection per
 * process; writes are IMMEDIATE transactions a batch of files each, so two ion processes updating at
 * once take turns instead of failing. A database found damaged — on open or by any later statement —
 * is moved aside with one warning and replaced by an empty one, which the next update fills again.
 *
 *   const index = CodeIndex.open(indexDbPath(env, root), root, { warn });
 *   await index.update();                          → UpdateSummary (what was parsed, the totals)
 *   index.definitions("retry", { limit: 50 })       → SymbolHit[]
 */
import type { Database } from "bun:sqlite";
import { realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { dataDir, type Env } from "../config/paths.ts";
import { corruptionWarning, inodeOf, isCorruption, moveAside } from "../memory/store-open.ts";
import { LANGUAGES } from "./languages.ts";
import {
  type DefinitionLookup,
  definitions,
  type FileGraph,
  fileGraph,
  findDefinitions,
  findReferences,
  fuzzyDefinitions,
  outline,
  type ReferenceLookup,
  type RefHit,
  type SymbolHit,
} from "./query.ts";
import { connect } from "./store-open.ts";
import { type Batch, clearAll, generationOf, isEmptyBatch, writeBatch } from "./store-write.ts";
import type { LanguageId, SkipReason } from "./types.ts";
import { type UpdateOptions, type UpdateWork, updateFiles } from "./update.ts";

export type { DefinitionLookup, FileGraph, ReferenceLookup, RefHit, SymbolHit } from "./query.ts";
export type { UpdateOptions } from "./update.ts";

/** The index's contents. */
export interface IndexTotals {
  /** Files parsed and stored (skipped ones not counted). */
  files: number;
  symbols: number;
  references: number;
  /** Stored files per language. */
  languages: Record<LanguageId, number>;
  /** Files seen but not parsed, per reason. */
  skipped: Record<SkipReason, number>;
}

export interface UpdateSummary extends IndexTotals, UpdateWork {
  ms: number;
}

export interface IndexStatus extends IndexTotals {
  /** Bytes of the database with its WAL. */
  bytes: number;
  /** When an update last finished (ms since the epoch); null before the first. */
  updatedAt: number | null;
  /** Counted up by every write: a cached file graph is stale when it moved. */
  generation: number;
}

/** `<data>/index/<first 16 hex of sha256(realpath(root))>.db`. */
export function indexDbPath(env: Env, projectRoot: string): string {
  const key = new Bun.CryptoHasher("sha256").update(realpathSync(projectRoot)).digest("hex").slice(0, 16);
  return join(dataDir(env), "index", `${key}.db`);
}

const SKIP_REASONS: readonly SkipReason[] = ["binary", "not-utf8", "too-large", "unsupported"];

export class CodeIndex {
  private db: Database;
  private inode: number | undefined;
  private graph: { generation: number; graph: FileGraph } | undefined;

  private constructor(
    readonly path: string,
    readonly root: string,
    private readonly warn: (text: string) => void,
  ) {
    this.db = this.openOrReplace();
  }

  /** Opens (creating) the index at `path` for the project at `root` (a real path). */
  static open(path: string, root: string, options: { warn?: (text: string) => void } = {}): CodeIndex {
    const warn = options.warn ?? ((text) => process.stderr.write(`ion: warning: ${text}\n`));
    return new CodeIndex(path, root, warn);
  }

  /**
   * Brings the index up to date with the project (see update.ts) and returns what it did with the
   * totals after it. A database damaged midway is replaced and the update run again from the start.
   */
  async update(options: UpdateOptions = {}): Promise<UpdateSummary> {
    const started = performance.now();
    let work: UpdateWork;
    try {
      work = await updateFiles(this.root, this.writer(), options);
    } catch (err) {
      if (!isCorruption(err)) throw err;
      this.replace(err);
      work = await updateFiles(this.root, this.writer(), options);
    }
    if (options.paths === undefined) this.guard(() => this.markUpdated());
    return { ...work, ...this.guard(() => this.totals()), ms: performance.now() - started };
  }

  status(): IndexStatus {
    return this.guard(() => {
      const meta = new Map(
        (this.db.query("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map(
          (row) => [row.key, row.value],
        ),
      );
      const updated = meta.get("updated_at");
      return {
        ...this.totals(),
        bytes: sizeOf(this.path) + sizeOf(`${this.path}-wal`),
        updatedAt: updated === undefined ? null : Number(updated),
        generation: Number(meta.get("generation") ?? 0),
      };
    });
  }

  /** Definitions named exactly `name`, else named so in any case; by path and line. */
  definitions(name: string, options: { limit: number }): SymbolHit[] {
    return this.guard(() => definitions(this.db, name, options.limit).hits);
  }

  /** Definitions whose names' words start with the query's words, else whose names contain it; best first. */
  fuzzyDefinitions(query: string, options: { limit: number }): SymbolHit[] {
    return this.guard(() => fuzzyDefinitions(this.db, query, options.limit).hits);
  }

  /** Exact, then any case, then fuzzy — with how it matched and how many there are in all. */
  findDefinitions(query: string, options: { limit: number }): DefinitionLookup {
    return this.guard(() => findDefinitions(this.db, query, options.limit));
  }

  /** A file's definitions (path relative to the root) in line order, each with its parent. */
  outline(relPath: string): SymbolHit[] {
    return this.guard(() => outline(this.db, relPath));
  }

  /** References to exactly `name`, by path and line. */
  references(name: string, options: { limit: number }): RefHit[] {
    return this.guard(() => findReferences(this.db, name, options.limit, false).hits);
  }

  /** References with their total and the definition each sits in. */
  findReferences(name: string, options: { limit: number }): ReferenceLookup {
    return this.guard(() => findReferences(this.db, name, options.limit, true));
  }

  /** The file reference graph for the repo map, cached until the index changes (by any process). */
  fileGraph(): FileGraph {
    return this.guard(() => {
      const generation = generationOf(this.db);
      if (this.graph?.generation !== generation) this.graph = { generation, graph: fileGraph(this.db) };
      return this.graph.graph;
    });
  }

  /** Empties the index; the next update parses every file again. */
  clear(): void {
    this.graph = undefined;
    this.guard(() => clearAll(this.db));
  }

  close(): void {
    this.db.close();
  }

  private writer() {
    return {
      read: <T>(run: (db: Database) => T): T => run(this.db),
      write: (batch: Batch): void => {
        if (!isEmptyBatch(batch)) writeBatch(this.db, batch);
      },
    };
  }

  private markUpdated(): void {
    this.db
      .query(
        "INSERT INTO meta (key, value) VALUES ('updated_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      )
      .run(String(Date.now()));
  }

  private totals(): IndexTotals {
    const languages = Object.fromEntries(LANGUAGES.map((id) => [id, 0])) as Record<LanguageId, number>;
    const skipped = Object.fromEntries(SKIP_REASONS.map((reason) => [reason, 0])) as Record<
      SkipReason,
      number
    >;
    let files = 0;
    const rows = this.db
      .query("SELECT language, skipped, count(*) AS n FROM files GROUP BY language, skipped")
      .all() as { language: LanguageId; skipped: SkipReason | null; n: number }[];
    for (const { language, skipped: reason, n } of rows) {
      if (reason !== null) skipped[reason] += n;
      else {
        files += n;
        languages[language] = (languages[language] ?? 0) + n;
      }
    }
    const total = (sql: string) => (this.db.query(sql).get() as { n: number | null }).n ?? 0;
    return {
      files,
      symbols: total("SELECT count(*) AS n FROM symbols"),
      references: total("SELECT sum(count) AS n FROM refs"),
      languages,
      skipped,
    };
  }

  private openOrReplace(): Database {
    try {
      const db = connect(this.path, this.root);
      this.inode = inodeOf(this.path);
      return db;
    } catch (err) {
      if (!isCorruption(err)) throw err;
      const aside = moveAside(this.path, inodeOf(this.path));
      if (aside) this.warn(corruptionWarning(this.path, aside, err));
      const db = connect(this.path, this.root);
      this.inode = inodeOf(this.path);
      return db;
    }
  }

  /** Moves the damaged database aside (unless another process already did) and opens a new one. */
  private replace(err: unknown): void {
    this.db.close();
    this.graph = undefined;
    const aside = moveAside(this.path, this.inode);
    if (aside) this.warn(corruptionWarning(this.path, aside, err));
    this.db = connect(this.path, this.root);
    this.inode = inodeOf(this.path);
  }

  /** Runs a statement; on a damaged database, replaces it and runs it once more. */
  private guard<T>(run: () => T): T {
    try {
      return run();
    } catch (err) {
      if (!isCorruption(err)) throw err;
      this.replace(err);
      return run();
    }
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw err;
  }
}
