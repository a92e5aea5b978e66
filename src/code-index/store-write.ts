/**
 * Writing to the index: what is stored of each file, and one batch of changes — files parsed, files
 * only touched (same content, new mtime), files gone — applied in one IMMEDIATE transaction, so two
 * processes updating at once take turns batch by batch and each batch is all or nothing.
 */
import type { Database } from "bun:sqlite";
import { indexedWords } from "./store-words.ts";
import type { FileTags, LanguageId, SkipReason, SymbolRef } from "./types.ts";

/** What decides whether a file changed, as last stored. */
export interface StoredFile {
  size: number;
  mtimeMs: number;
  hash: string;
}

/** A file read from the project: where it is relative to the root, its stat and content hash. */
export interface FileVersion extends StoredFile {
  path: string;
  language: LanguageId;
}

/** A file parsed (or skipped by the parser) and ready to store. */
export type ParsedFile = FileVersion & ({ tags: FileTags } | { skipped: SkipReason });

export interface Batch {
  parsed: readonly ParsedFile[];
  /** Files whose mtime or size moved while their content hash did not: only the stat is updated. */
  touched: readonly FileVersion[];
  /** Paths no longer in the project. */
  removed: readonly string[];
}

/** Every stored file by path. */
export function storedFiles(db: Database): Map<string, StoredFile> {
  const rows = db.query("SELECT path, size, mtime_ms AS mtimeMs, hash FROM files").all() as (StoredFile & {
    path: string;
  })[];
  return new Map(rows.map(({ path, ...stored }) => [path, stored]));
}

/** Stored files among `paths`. */
export function storedFilesAmong(db: Database, paths: readonly string[]): Map<string, StoredFile> {
  const byPath = new Map<string, StoredFile>();
  const select = db.query("SELECT size, mtime_ms AS mtimeMs, hash FROM files WHERE path = ?");
  for (const path of paths) {
    const row = select.get(path) as StoredFile | null;
    if (row) byPath.set(path, row);
  }
  return byPath;
}

export function isEmptyBatch(batch: Batch): boolean {
  return batch.parsed.length === 0 && batch.touched.length === 0 && batch.removed.length === 0;
}

export function writeBatch(db: Database, batch: Batch): void {
  if (isEmptyBatch(batch)) return;
  db.transaction(() => {
    for (const path of batch.removed) removeFile(db, path);
    const touch = db.query("UPDATE files SET size = ?, mtime_ms = ? WHERE path = ?");
    for (const file of batch.touched) touch.run(file.size, file.mtimeMs, file.path);
    const lastName = (db.query("SELECT coalesce(max(id), 0) AS id FROM names").get() as { id: number }).id;
    for (const file of batch.parsed) storeFile(db, file);
    // The names this batch added (rowids only grow within the transaction) go into the FTS index at once.
    db.query("INSERT INTO names_fts (rowid, words) SELECT id, words FROM names WHERE id > ?").run(lastName);
    // Only a change of definitions or references makes a cached file graph stale.
    if (batch.parsed.length > 0 || batch.removed.length > 0)
      db.run("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'");
  }).immediate();
}

function removeFile(db: Database, path: string): void {
  const row = db.query("DELETE FROM files WHERE path = ? RETURNING id").get(path) as { id: number } | null;
  if (!row) return; // another process removed it first
  db.query("DELETE FROM symbols WHERE file_id = ?").run(row.id);
  db.query("DELETE FROM refs WHERE file_id = ?").run(row.id);
}

function storeFile(db: Database, file: ParsedFile): void {
  const tags = "tags" in file ? file.tags : undefined;
  const { id } = db
    .query(
      `INSERT INTO files (path, size, mtime_ms, hash, language, skipped, has_errors) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, hash = excluded.hash,
         language = excluded.language, skipped = excluded.skipped, has_errors = excluded.has_errors
       RETURNING id`,
    )
    .get(
      file.path,
      file.size,
      file.mtimeMs,
      file.hash,
      file.language,
      "skipped" in file ? file.skipped : null,
      tags?.hasErrors ? 1 : 0,
    ) as { id: number };
  // The file's previous tags, when it was stored before (by this process or another).
  db.query("DELETE FROM symbols WHERE file_id = ?").run(id);
  db.query("DELETE FROM refs WHERE file_id = ?").run(id);
  if (!tags) return;
  const symbol = db.query(
    "INSERT INTO symbols (file_id, line, end_line, name, kind, signature, parent) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const name = db.query("INSERT OR IGNORE INTO names (name, words) VALUES (?, ?)");
  const known = db.query("SELECT 1 FROM names WHERE name = ?");
  for (const def of tags.definitions) {
    symbol.run(id, def.line, def.endLine, def.name, def.kind, def.signature, def.parent ?? null);
    // Looked up first: computing the words of a name already stored would be wasted.
    if (!known.get(def.name)) name.run(def.name, indexedWords(def.name));
  }
  const ref = db.query("INSERT INTO refs (name, file_id, kind, lines, count) VALUES (?, ?, ?, ?, ?)");
  for (const { name: refName, kind, lines } of groupReferences(tags.references))
    ref.run(refName, id, kind, lines.join(","), lines.length);
}

/** A file's references grouped by name and kind, each group's lines ascending and distinct. */
function groupReferences(
  references: readonly SymbolRef[],
): { name: string; kind: string; lines: number[] }[] {
  const groups = new Map<string, { name: string; kind: string; lines: number[] }>();
  for (const { name, kind, line } of references) {
    const key = `${name}\0${kind}`;
    const group = groups.get(key);
    if (!group) groups.set(key, { name, kind, lines: [line] });
    else if (!group.lines.includes(line)) group.lines.push(line);
  }
  for (const group of groups.values()) group.lines.sort((a, b) => a - b);
  return [...groups.values()];
}

/** Drops names no definition has any more, and their FTS rows; run after a full update. */
export function pruneNames(db: Database): void {
  const unused = "NOT EXISTS (SELECT 1 FROM symbols WHERE symbols.name = names.name)";
  db.transaction(() => {
    db.run(
      `INSERT INTO names_fts (names_fts, rowid, words) SELECT 'delete', id, words FROM names WHERE ${unused}`,
    );
    db.run(`DELETE FROM names WHERE ${unused}`);
  }).immediate();
}

/** Empties the index (the root stays recorded) and gives the freed pages back to the file system. */
export function clearAll(db: Database): void {
  db.transaction(() => {
    for (const table of ["files", "symbols", "refs", "names"]) db.run(`DELETE FROM ${table}`);
    db.run("INSERT INTO names_fts (names_fts) VALUES ('delete-all')");
    db.run("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'");
  }).immediate();
  db.run("VACUUM");
}

export function generationOf(db: Database): number {
  const row = db.query("SELECT value FROM meta WHERE key = 'generation'").get() as { value: string } | null;
  return Number(row?.value ?? 0);
}
