/**
 * The memory database's schema, as numbered migrations over `PRAGMA user_version`. Each step runs in
 * one IMMEDIATE transaction that re-reads the version first, so two processes opening a new file at
 * once migrate it once. A file from a newer ion (a version past the last step) is refused rather
 * than written with an older idea of its shape.
 */
import type { Database } from "bun:sqlite";

/**
 * Version 1:
 * - `memories`: one row per memory. `seq` is the integer key the FTS index and the vector cache use;
 *   `id` (UUIDv7) is what users see. `content_hash` keys the embeddings, so equal texts share one.
 * - `memories_fts`: FTS5 over `content` (external content, kept in sync by triggers; porter stemming so
 *   "tests" finds "test"; FTS5 secure-delete so a hard delete leaves no tokens behind).
 * - `embeddings`: one vector per (model, content hash), stored as Float16 (half the bytes of Float32;
 *   ~1e-3 off in cosine, well below what separates neighbours). `vseq` only grows (AUTOINCREMENT).
 * - `code_pages`: the vectors' sign bits for the Hamming prefilter, packed 1 024 to a row with their
 *   `vseq`s (code-pages.ts): a new process loads 100 000 codes in ~100 rows instead of 100 000.
 * - `vector_progress`: per model, the `seq` up to which every valid memory has a vector, so looking for
 *   memories still to embed does not rescan the whole table each turn.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE memories (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    content TEXT NOT NULL,
    source TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('episodic', 'semantic', 'procedural')),
    created_at INTEGER NOT NULL,
    valid_from INTEGER NOT NULL,
    valid_to INTEGER,
    tokens INTEGER NOT NULL,
    content_hash TEXT NOT NULL
  );
  CREATE INDEX memories_created ON memories (created_at);
  CREATE INDEX memories_hash ON memories (content_hash);
  CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content, content = 'memories', content_rowid = 'seq', tokenize = 'porter unicode61 remove_diacritics 2'
  );
  INSERT INTO memories_fts (memories_fts, rank) VALUES ('secure-delete', 1);
  CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.seq, new.content);
  END;
  CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
  END;
  CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.seq, new.content);
  END;
  CREATE TABLE embeddings (
    vseq INTEGER PRIMARY KEY AUTOINCREMENT,
    model TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    dims INTEGER NOT NULL,
    vector BLOB NOT NULL,
    UNIQUE (model, content_hash)
  );
  CREATE TABLE code_pages (
    model TEXT NOT NULL,
    dims INTEGER NOT NULL,
    page INTEGER NOT NULL,
    vseqs BLOB NOT NULL,
    codes BLOB NOT NULL,
    UNIQUE (model, dims, page)
  );
  CREATE TABLE vector_progress (model TEXT PRIMARY KEY, seq INTEGER NOT NULL);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Thrown for a database written by a newer ion: it is left as it is. */
export class NewerSchemaError extends Error {
  constructor(readonly found: number) {
    super(`memory.db has schema version ${found}; this ion knows up to ${SCHEMA_VERSION} (update ion)`);
    this.name = "NewerSchemaError";
  }
}

const versionOf = (db: Database): number =>
  (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;

export function refuseNewer(db: Database): void {
  const found = versionOf(db);
  if (found > SCHEMA_VERSION) throw new NewerSchemaError(found);
}

export function migrate(db: Database): void {
  if (versionOf(db) === SCHEMA_VERSION) return; // the usual case: no write lock taken
  db.transaction(() => {
    const current = versionOf(db);
    if (current > SCHEMA_VERSION) throw new NewerSchemaError(current);
    for (let version = current; version < SCHEMA_VERSION; version++) db.run(MIGRATIONS[version]!);
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
