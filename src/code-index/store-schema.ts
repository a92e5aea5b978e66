/**
 * The code index's schema, as numbered migrations over `PRAGMA user_version` (as memory.db does):
 * each step runs in one IMMEDIATE transaction that re-reads the version first, so two processes
 * opening a new file at once migrate it once; a file from a newer ion is refused, not rewritten.
 */
import type { Database } from "bun:sqlite";

/**
 * Version 1:
 * - `meta`: the project's root (for `ion index status`) and a generation counted up by every write,
 *   so a reader can tell its cached file graph is stale.
 * - `files`: one row per source file seen (paths relative to the root, `/`-separated): size and mtime
 *   to notice a change cheaply, the content hash to tell a touched file from an edited one, the
 *   language, and why it was skipped (binary, not UTF-8, too large) when it was.
 * - `symbols`: definitions. `name` compares case-insensitively (its one index serves exact lookups,
 *   filtered to the exact spelling, and case-insensitive ones); (file_id, line) serves outlines.
 * - `refs`: references, one row per name, file and kind with the lines it is on (`"12,40"`) and how
 *   many: a third of the rows one per reference takes, so a cold index writes less. Clustered by name
 *   (lookups), with an index by file (re-parsing a file).
 * - `names` + `names_fts`: each distinct defined name once, with its words split on case and
 *   underscores ("parseHttpRequest" → "parse http request parsehttprequest") for prefix search.
 *   Names no longer defined are pruned by a full update. The writer keeps names_fts in step with
 *   `names` itself, a batch's new names in one statement: a trigger per row cost five times as much.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  INSERT INTO meta (key, value) VALUES ('generation', '0');
  CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    hash TEXT NOT NULL,
    language TEXT NOT NULL,
    skipped TEXT CHECK (skipped IN ('binary', 'not-utf8', 'too-large', 'unsupported')),
    has_errors INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE symbols (
    file_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE,
    kind TEXT NOT NULL,
    signature TEXT NOT NULL,
    parent TEXT
  );
  CREATE INDEX symbols_file ON symbols (file_id, line);
  CREATE INDEX symbols_name ON symbols (name);
  CREATE TABLE refs (
    name TEXT NOT NULL,
    file_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    lines TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (name, file_id, kind)
  ) WITHOUT ROWID;
  CREATE INDEX refs_file ON refs (file_id);
  CREATE TABLE names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, words TEXT NOT NULL);
  CREATE VIRTUAL TABLE names_fts USING fts5 (
    words, content = 'names', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
  );
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Thrown for an index written by a newer ion: it is left as it is. */
export class NewerIndexError extends Error {
  constructor(
    readonly path: string,
    readonly found: number,
  ) {
    super(`${path} has schema version ${found}; this ion knows up to ${SCHEMA_VERSION} (update ion)`);
    this.name = "NewerIndexError";
  }
}

const versionOf = (db: Database): number =>
  (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;

export function refuseNewer(db: Database, path: string): void {
  const found = versionOf(db);
  if (found > SCHEMA_VERSION) throw new NewerIndexError(path, found);
}

export function migrate(db: Database, path: string): void {
  if (versionOf(db) === SCHEMA_VERSION) return; // the usual case: no write lock taken
  db.transaction(() => {
    const current = versionOf(db);
    if (current > SCHEMA_VERSION) throw new NewerIndexError(path, current);
    for (let version = current; version < SCHEMA_VERSION; version++) db.run(MIGRATIONS[version]!);
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
