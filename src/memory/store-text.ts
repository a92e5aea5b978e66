/**
 * The full-text list of recall. FTS5 scores every row a query's terms match, so its cost grows with
 * how common the terms are: at 100 000 memories one word found in all of them costs ~60 ms of bm25().
 * Above POSTING_BUDGET memories, each term of a plain OR query (what fts-query.ts makes) is first
 * counted — a count bounded at the budget, cheap even for common words — and the most common terms are
 * left out until the rest fit the budget. Those are the words bm25 weighs least (IDF near zero for a
 * word in half the rows), so the ranking hardly moves; the rarest term is always kept.
 */
import type { Database } from "bun:sqlite";
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

/** Rows bm25() may score for one search: ~10 ms on the reference machine. */
export const POSTING_BUDGET = 15_000;

const PLAIN_OR = /^"[^"]+"(?: OR "[^"]+")*$/;

export function textCandidates(
  db: Database,
  match: string,
  options: Filters & { limit: number; postingBudget?: number },
): { memory: MemoryRecord; bm25: number }[] {
  const budget = options.postingBudget ?? POSTING_BUDGET;
  const { expression, after } = PLAIN_OR.test(match)
    ? withinBudget(db, match, budget)
    : { expression: match, after: 0 };
  return db
    .query<MemoryRow & { bm25: number }, Record<string, string | number | null>>(
      `SELECT ${COLUMNS}, bm25(memories_fts) AS bm25 FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
       WHERE memories_fts MATCH $match AND memories_fts.rowid > $after AND ${VALID} AND ${NOT_EXCLUDED}
       ORDER BY bm25 LIMIT $limit`,
    )
    .all({ ...filterParams(options), match: expression, after, limit: options.limit })
    .map((row) => ({ memory: recordOf(row), bm25: row.bm25 }));
}

/**
 * The query's terms, rarest first, as many as fit the posting budget (at least one). When even the
 * rarest fills it (every word is everywhere), the search is kept to the newest `budget` memories:
 * `after` is the `seq` they start above.
 */
function withinBudget(db: Database, match: string, budget: number): { expression: string; after: number } {
  const size = db.query<{ top: number | null }, []>("SELECT max(seq) AS top FROM memories").get()?.top ?? 0;
  if (size <= budget) return { expression: match, after: 0 }; // scoring every row is within budget anyway
  const count = db.query<{ n: number }, [string, number]>(
    "SELECT count(*) AS n FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
  );
  const terms = match
    .split(" OR ")
    .map((term) => ({ term, rows: count.get(term, budget)!.n }))
    .sort((a, b) => a.rows - b.rows);
  const kept: string[] = [];
  let rows = 0;
  for (const { term, rows: n } of terms) {
    if (kept.length > 0 && rows + n > budget) break;
    kept.push(term);
    rows += n;
  }
  return { expression: kept.join(" OR "), after: rows >= budget ? size - budget : 0 };
}
