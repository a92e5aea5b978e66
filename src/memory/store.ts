/**
 * The memory store: `<data>/memory.db` on bun:sqlite (see store-schema.ts for the tables). Synchronous,
 * one connection per process; every write is one IMMEDIATE transaction, so two ion processes writing at
 * once wait for each other (busy timeout) instead of failing. Bi-temporal: `forget` ends a memory's
 * validity and keeps the row, `asOf` reads what was known and valid at a time, `remove` deletes for good.
 * A database found damaged — on open or by any later statement — is moved aside with one warning and
 * replaced by a new one, and the call is retried there. The statements live in store-records.ts,
 * store-text.ts and store-vectors.ts.
 */
import type { Database } from "bun:sqlite";
import { emptyInbox, pendingMemories, removeFiles, setAside } from "./inbox.ts";
import { connect, corruptionWarning, inodeOf, isCorruption, moveAside } from "./store-open.ts";
import {
  addMemories,
  deleteAll,
  deleteMemory,
  endValidity,
  type ListOptions,
  listMemories,
  type MemoryStats,
  memoryById,
  storeStats,
} from "./store-records.ts";
import type { Filters } from "./store-sql.ts";
import { textCandidates } from "./store-text.ts";
import { insertVectors, memoriesWithoutVector, nearestMemories, storedVector } from "./store-vectors.ts";
import type { MemoryRecord, NewMemory } from "./types.ts";
import { VectorIndex } from "./vector-index.ts";

export { memoryDbPath } from "./inbox.ts";
export { contentHash, type ListOptions, type MemoryStats } from "./store-records.ts";

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

  /** Opens the store and takes in what learning posted to the inbox meanwhile. */
  static open(path: string, options: { warn?: (text: string) => void } = {}): MemoryStore {
    const store = new MemoryStore(
      path,
      options.warn ?? ((text) => process.stderr.write(`ion: warning: ${text}\n`)),
    );
    store.takeInbox();
    return store;
  }

  /**
   * Moves the memories waiting in the inbox (inbox.ts) into the database, then removes their files;
   * a file that is not one ion wrote is set aside with a warning. Returns how many were waiting.
   */
  takeInbox(): number {
    const pending = pendingMemories(this.path);
    for (const file of pending.unreadable) {
      setAside(file);
      this.warn(`${file} holds no memories ion can read; set aside as ${file}.bad`);
    }
    if (pending.memories.length > 0) this.add(pending.memories);
    removeFiles(pending.files);
    return pending.memories.length;
  }

  add(items: readonly NewMemory[]): MemoryRecord[] {
    return this.guard(() => addMemories(this.db, items));
  }

  /** A memory by its id or by a prefix of it that names exactly one. */
  get(idOrUniquePrefix: string): MemoryRecord | undefined {
    const key = idOrUniquePrefix.trim().toLowerCase();
    return key === "" ? undefined : this.guard(() => memoryById(this.db, key));
  }

  /** Newest first. Without `includeEnded`, only memories valid now (or at `asOf`). */
  list(options: ListOptions = {}): MemoryRecord[] {
    return this.guard(() => listMemories(this.db, options));
  }

  /** Ends a memory's validity at `at` (default now); the row stays for `asOf`. False when none was valid. */
  forget(id: string, at: number = Date.now()): boolean {
    return this.guard(() => endValidity(this.db, id, at));
  }

  /** Deletes a memory for good: its row, its FTS entry, and its vectors unless another memory shares them. */
  remove(id: string): boolean {
    return this.guard(() => deleteMemory(this.db, id));
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
    return this.guard(() => storeStats(this.db, this.path));
  }

  /** Deletes every memory (those waiting in the inbox too) and vector, and compacts the file so none of their bytes stay in it. */
  wipe(): void {
    emptyInbox(this.path);
    this.guard(() => deleteAll(this.db));
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
