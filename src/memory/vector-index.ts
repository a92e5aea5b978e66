/**
 * The vector list of recall: the sign codes of one model's vectors, loaded once per process (from their
 * pages, code-pages.ts) and then only what is new, scanned by Hamming distance; the closest few hundred are re-ranked by
 * exact cosine on their stored vectors. With fewer vectors than that, the ranking is exact.
 */
import type { Database } from "bun:sqlite";
import { PAGE_CODES, readPages } from "./code-pages.ts";
import { codeWords, cosine, decodeVector, hammingAll, smallestK } from "./vectors.ts";

/** How many Hamming neighbours get an exact cosine re-rank. */
export const PREFILTER = 256;

export interface VectorHit {
  contentHash: string;
  similarity: number;
}

/** The codes of one (model, dimensions) in this process: parallel growable arrays. */
class CodeTable {
  readonly words: number;
  count = 0;
  lastVseq = 0;
  /** The page the last code came from: the next refresh reads from there. */
  lastPage = 0;
  /** The first vseq of that page as loaded: a different one there means the pages were rewritten. */
  lastPageStart = -1;
  vseqs = new Float64Array(PAGE_CODES);
  codes: Uint32Array;

  constructor(readonly dims: number) {
    this.words = codeWords(dims);
    this.codes = new Uint32Array(PAGE_CODES * this.words);
  }

  /** Adds a page's codes that are not loaded yet (those above lastVseq). */
  addPage(page: number, vseqs: Float64Array, codes: Uint32Array): void {
    let first = 0;
    while (first < vseqs.length && vseqs[first]! <= this.lastVseq) first++;
    const n = vseqs.length - first;
    this.lastPage = page;
    this.lastPageStart = vseqs[0] ?? -1;
    if (n <= 0) return;
    this.reserve(this.count + n);
    this.vseqs.set(vseqs.subarray(first), this.count);
    this.codes.set(codes.subarray(first * this.words, vseqs.length * this.words), this.count * this.words);
    this.count += n;
    this.lastVseq = vseqs[vseqs.length - 1]!;
  }

  /** Room for `size` codes in all (a first load reserves once instead of doubling through the pages). */
  reserve(size: number): void {
    if (size <= this.vseqs.length) return;
    const capacity = Math.max(size, this.vseqs.length * 2);
    const vseqs = new Float64Array(capacity);
    vseqs.set(this.vseqs.subarray(0, this.count));
    this.vseqs = vseqs;
    const codes = new Uint32Array(capacity * this.words);
    codes.set(this.codes.subarray(0, this.count * this.words));
    this.codes = codes;
  }
}

export class VectorIndex {
  private readonly tables = new Map<string, CodeTable>();

  /** `db` is read at each call: the store swaps its connection when it replaces a damaged file. */
  constructor(private readonly db: () => Database) {}

  /** Forgets every loaded code (after a wipe or a database swap). */
  clear(): void {
    this.tables.clear();
  }

  /**
   * Content hashes near `query` among the model's vectors, best first by cosine: at least `limit`
   * (the Hamming prefilter's size) when there are that many, so the caller can skip ones it filters out.
   */
  nearest(model: string, query: Float32Array, queryCode: Uint32Array, limit: number): VectorHit[] {
    const table = this.refreshed(model, query.length);
    if (table.count === 0) return [];
    const distances = new Uint16Array(table.count);
    hammingAll(queryCode, table.codes, table.count, table.words, distances);
    const picked = smallestK(distances, table.count, Math.max(limit, PREFILTER), table.dims);
    // One statement for all of them: 256 point lookups cost more than the scan itself.
    const rows = this.db()
      .query<{ content_hash: string; vector: Uint8Array }, [string]>(
        "SELECT content_hash, vector FROM embeddings WHERE vseq IN (SELECT value FROM json_each(?))",
      )
      .all(JSON.stringify(picked.map((index) => table.vseqs[index]!)));
    const hits: VectorHit[] = rows.map((row) => ({
      contentHash: row.content_hash,
      similarity: cosine(query, decodeVector(row.vector)),
    }));
    hits.sort((a, b) => b.similarity - a.similarity);
    return hits;
  }

  private refreshed(model: string, dims: number): CodeTable {
    const key = `${dims}:${model}`;
    let table = this.tables.get(key);
    if (!table) {
      table = new CodeTable(dims);
      this.tables.set(key, table);
    }
    let pages = readPages(this.db(), model, dims, table.lastPage);
    const first = pages[0];
    if (table.count > 0 && (first?.page !== table.lastPage || first.vseqs[0] !== table.lastPageStart)) {
      // Another process wiped the vectors (and may have saved new ones): start over.
      table = new CodeTable(dims);
      this.tables.set(key, table);
      pages = readPages(this.db(), model, dims, 0);
    }
    table.reserve(table.count + pages.reduce((sum, page) => sum + page.vseqs.length, 0));
    for (const page of pages) table.addPage(page.page, page.vseqs, page.codes);
    return table;
  }
}
