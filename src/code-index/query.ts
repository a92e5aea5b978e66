/**
 * Reading the index: definitions by name (exact, then ignoring case, then by the words of the name),
 * a file's outline, references to a name with the definition each sits in, and the file graph the
 * repo map ranks. Paths are relative to the project's root, `/`-separated.
 *
 *   findDefinitions(db, "retry", 50)  → { match: "exact", total: 2, hits: [{ path: "src/net.ts", line: 40, … }] }
 *   findDefinitions(db, "httpreq", 50) → { match: "fuzzy", … parseHttpRequest … }
 *   findReferences(db, "retry", 50)   → { total: 7, hits: [{ path: "src/a.ts", line: 9, enclosing: { name: "load", … } }] }
 */
import type { Database } from "bun:sqlite";
import { nameWords, prefixQuery } from "./store-words.ts";

/** A definition found. */
export interface SymbolHit {
  path: string;
  line: number;
  endLine: number;
  kind: string;
  name: string;
  signature: string;
  parent?: string;
}

/** A reference found, with the innermost definition around it (the caller of a called function). */
export interface RefHit {
  path: string;
  line: number;
  kind: string;
  name: string;
  enclosing?: { name: string; kind: string; line: number };
}

/** How a lookup matched: the name as written, ignoring case, or by the words of names. */
export type MatchKind = "exact" | "case-insensitive" | "fuzzy";

export interface DefinitionLookup {
  hits: SymbolHit[];
  /** All matches, of which `hits` are the first `limit`. */
  total: number;
  match: MatchKind | "none";
}

export interface ReferenceLookup {
  hits: RefHit[];
  total: number;
}

/** The file graph for the repo map: an edge from a file referencing a name to each file defining it. */
export interface FileGraph {
  /** Every parsed file, by path. */
  files: string[];
  /**
   * `[referencing file, defining file, weight]`: per name, the square root of its references (the
   * tenth call of a name says less than the first), a quarter for a class member (`x.replace()` may be
   * any object's), split evenly among the name's definers.
   */
  edges: [string, string, number][];
  /** Each file's definitions in line order. */
  definitionsByFile: Map<string, SymbolHit[]>;
}

/**
 * A name defined in more files than this (`constructor`, `toString`, `get`, `run`) is a convention,
 * not a dependency: a reference to it says nothing about which file it uses, so it makes no edge.
 * Five keeps a name a few modules share (an interface and its two implementations) and drops the
 * method names every class has; the map's focus uses the same cut for mentioned names.
 */
export const MAX_DEFINERS = 5;
/**
 * A class member is called through an object (`x.replace()`, `path.join()`), so a reference to its name
 * may mean any library's method of that name: it counts a quarter (on this project, String.replace and
 * path.join calls otherwise made two small classes look central).
 */
const MEMBER_KINDS: ReadonlySet<string> = new Set(["method", "field", "property"]);
const MEMBER_SURENESS = 0.25;

const HIT_COLUMNS = "f.path, s.line, s.end_line AS endLine, s.kind, s.name, s.signature, s.parent";

interface HitRow extends Omit<SymbolHit, "parent"> {
  parent: string | null;
}

const toHit = ({ parent, ...row }: HitRow): SymbolHit => (parent === null ? row : { ...row, parent });

/** Definitions named exactly `name`; failing that, named `name` in any case. */
export function definitions(db: Database, name: string, limit: number): DefinitionLookup {
  const exact = db
    .query(
      `SELECT ${HIT_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE s.name = ?1 AND s.name = ?1 COLLATE BINARY ORDER BY f.path, s.line LIMIT ?2`,
    )
    .all(name, limit) as HitRow[];
  if (exact.length > 0) {
    const total =
      exact.length < limit ? exact.length : countWhere(db, "name = ?1 AND name = ?1 COLLATE BINARY", name);
    return { hits: exact.map(toHit), total, match: "exact" };
  }
  const folded = db
    .query(
      `SELECT ${HIT_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE s.name = ?1 ORDER BY f.path, s.line LIMIT ?2`,
    )
    .all(name, limit) as HitRow[];
  if (folded.length === 0) return { hits: [], total: 0, match: "none" };
  const total = folded.length < limit ? folded.length : countWhere(db, "name = ?1", name);
  return { hits: folded.map(toHit), total, match: "case-insensitive" };
}

function countWhere(db: Database, where: string, name: string): number {
  return (db.query(`SELECT count(*) AS n FROM symbols WHERE ${where}`).get(name) as { n: number }).n;
}

/**
 * Definitions whose names have words starting with each of the query's words ("httpReq" finds
 * parseHttpRequest), best first: names with more of the query's words as whole words ("retry" in
 * RetryPolicy before retryable), then by FTS5's bm25, which favours names with fewer other words.
 * When no name has all the words: names containing the query as typed ("ttpreq"), shortest first;
 * then names with any of the words.
 */
export function fuzzyDefinitions(db: Database, query: string, limit: number): DefinitionLookup {
  const words = nameWords(query);
  if (words.length > 0) {
    const all = matchedByWords(db, words, false, limit);
    if (all.total > 0) return all;
  }
  const text = query.trim();
  if (text === "") return { hits: [], total: 0, match: "none" };
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const matched = `SELECT name, length(name) AS score FROM names WHERE name LIKE ?1 ESCAPE '\\'`;
  const inside = rankedByName(db, matched, [pattern], limit);
  if (inside.total > 0 || words.length < 2) return inside;
  return matchedByWords(db, words, true, limit);
}

function matchedByWords(db: Database, words: string[], any: boolean, limit: number): DefinitionLookup {
  // A query word found as a whole word of the name counts for more than any bm25 difference.
  const whole = words.map((_, i) => `(instr(' ' || n.words || ' ', ?${i + 3}) > 0)`).join(" + ");
  const matched = `SELECT n.name, bm25(names_fts) - 100 * (${whole}) AS score
    FROM names_fts JOIN names n ON n.id = names_fts.rowid WHERE names_fts MATCH ?1`;
  return rankedByName(db, matched, [prefixQuery(words, any), ...words.map((word) => ` ${word} `)], limit);
}

/**
 * The definitions of the names `matched` selects (name, score), lowest score first. `params` bind ?1
 * and ?3 onwards; ?2 is the limit.
 */
function rankedByName(db: Database, matched: string, params: string[], limit: number): DefinitionLookup {
  const [first, ...rest] = params;
  const from = `FROM (${matched}) m JOIN symbols s ON s.name = m.name AND s.name = m.name COLLATE BINARY
    JOIN files f ON f.id = s.file_id`;
  const hits = db
    .query(`SELECT ${HIT_COLUMNS} ${from} ORDER BY m.score, s.name, f.path, s.line LIMIT ?2`)
    .all(first ?? null, limit, ...rest) as HitRow[];
  if (hits.length === 0) return { hits: [], total: 0, match: "none" };
  const total =
    hits.length < limit
      ? hits.length
      : (db.query(`SELECT count(*) AS n ${from} LIMIT ?2`).get(first ?? null, -1, ...rest) as { n: number })
          .n;
  return { hits: hits.map(toHit), total, match: "fuzzy" };
}

/** What a user typing a name means: the name exactly, else in any case, else by its words. */
export function findDefinitions(db: Database, query: string, limit: number): DefinitionLookup {
  const found = definitions(db, query.trim(), limit);
  return found.total > 0 ? found : fuzzyDefinitions(db, query, limit);
}

/** A file's definitions in line order (an enclosing definition before those inside it). */
export function outline(db: Database, path: string): SymbolHit[] {
  const rows = db
    .query(
      `SELECT ${HIT_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE f.path = ?1 ORDER BY s.line, s.end_line DESC`,
    )
    .all(path) as HitRow[];
  return rows.map(toHit);
}

/** References to exactly `name`, by path and line; with `enclosing`, each with the innermost definition around it. */
export function findReferences(
  db: Database,
  name: string,
  limit: number,
  enclosing: boolean,
): ReferenceLookup {
  const groups = db
    .query(
      `SELECT f.path, r.file_id AS fileId, r.kind, r.lines FROM refs r JOIN files f ON f.id = r.file_id
       WHERE r.name = ?1 ORDER BY f.path`,
    )
    .all(name) as { path: string; fileId: number; kind: string; lines: string }[];
  const all: (RefHit & { fileId: number })[] = [];
  for (const { path, fileId, kind, lines } of groups)
    for (const line of lines.split(",")) all.push({ path, line: Number(line), kind, name, fileId });
  // Groups come by path; within a file, kinds were stored apart.
  all.sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1));
  const page = all.slice(0, limit);
  if (!enclosing) return { hits: page.map(({ fileId: _, ...hit }) => hit), total: all.length };
  const around = db.query(
    `SELECT name, kind, line FROM symbols WHERE file_id = ?1 AND line <= ?2 AND end_line >= ?2
     ORDER BY line DESC, end_line LIMIT 1`,
  );
  const hits = page.map(({ fileId, ...hit }): RefHit => {
    const within = around.get(fileId, hit.line) as RefHit["enclosing"] | null;
    return within ? { ...hit, enclosing: within } : hit;
  });
  return { hits, total: all.length };
}

/**
 * The reference graph between files (see FileGraph). A reference to a name its own file defines is
 * taken to mean that definition and makes no edge; a name defined in more than MAX_DEFINERS files
 * makes none either, nor a definition inside a function (a local helper no other file can reach).
 */
export function fileGraph(db: Database): FileGraph {
  const fileRows = db.query("SELECT id, path FROM files WHERE skipped IS NULL ORDER BY path").all() as {
    id: number;
    path: string;
  }[];
  const pathOf = new Map(fileRows.map(({ id, path }) => [id, path]));
  const definitionsByFile = new Map<string, SymbolHit[]>();
  // Name → defining file → how surely a reference to the name means that file's definition.
  const definers = new Map<string, Map<number, number>>();
  let kinds = new Map<string, string>(); // the current file's definitions' kinds, to judge their parents
  let kindsOf: number | undefined;
  // Rows as arrays, each hit built once: on 300 000 lines this read is most of the map's time.
  const defRows = db
    .query(
      `SELECT file_id, line, end_line, kind, name, signature, parent
       FROM symbols ORDER BY file_id, line, end_line DESC`,
    )
    .values() as [number, number, number, string, string, string, string | null][];
  let list: SymbolHit[] = [];
  for (const [fileId, line, endLine, kind, name, signature, parent] of defRows) {
    const path = pathOf.get(fileId);
    if (path === undefined) continue;
    if (kindsOf !== fileId) {
      [kinds, kindsOf, list] = [new Map(), fileId, []];
      definitionsByFile.set(path, list);
    }
    list.push(
      parent === null
        ? { path, line, endLine, kind, name, signature }
        : { path, line, endLine, kind, name, signature, parent },
    );
    if (!kinds.has(name)) kinds.set(name, kind);
    // A definition inside a function is local to it: no other file can refer to it.
    const parentKind = parent === null ? undefined : kinds.get(parent);
    if (parentKind === "function" || parentKind === "method") continue;
    const files = definers.get(name) ?? new Map<number, number>();
    definers.set(name, files);
    const sureness = MEMBER_KINDS.has(kind) ? MEMBER_SURENESS : 1;
    files.set(fileId, Math.max(files.get(fileId) ?? 0, sureness));
  }

  const weights = new Map<number, Map<number, number>>();
  // In primary-key order (name, file, kind), so a name's rows in one file come together: summed here,
  // which is half the cost of SQLite's GROUP BY.
  const refRows = db.query("SELECT name, file_id, count FROM refs").values() as [string, number, number][];
  for (let i = 0; i < refRows.length; i++) {
    const [name, fileId] = refRows[i]!;
    let n = refRows[i]![2];
    while (refRows[i + 1]?.[0] === name && refRows[i + 1]?.[1] === fileId) n += refRows[++i]![2];
    const targets = definers.get(name);
    if (!targets || targets.size > MAX_DEFINERS || targets.has(fileId)) continue;
    const out = weights.get(fileId) ?? new Map<number, number>();
    weights.set(fileId, out);
    for (const [target, sureness] of targets)
      out.set(target, (out.get(target) ?? 0) + (Math.sqrt(n) * sureness) / targets.size);
  }
  // Edges by their files' places in path order, compared as numbers (comparing the paths themselves
  // was a sixth of the map's time on a large project).
  const order = new Map(fileRows.map(({ id }, index) => [id, index]));
  const numbered: [number, number, number][] = [];
  for (const [from, out] of weights)
    for (const [to, weight] of out) numbered.push([order.get(from) ?? -1, order.get(to) ?? -1, weight]);
  numbered.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const edges: [string, string, number][] = [];
  for (const [from, to, weight] of numbered) {
    const fromPath = fileRows[from]?.path;
    const toPath = fileRows[to]?.path;
    if (fromPath !== undefined && toPath !== undefined) edges.push([fromPath, toPath, weight]);
  }
  return { files: fileRows.map(({ path }) => path), edges, definitionsByFile };
}
