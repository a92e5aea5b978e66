/**
 * The vector list of recall: the sign codes of one model's vectors, loaded once per process and then
 * only what is new (by `vseq`), scanned by Hamming distance; the closest few hundred are re-ranked by
 * exact cosine on their stored Float32 vectors. With fewer vectors than that, the ranking is exact.
 */
import type { Database } from "bun:sqlite";
import { codeWords, cosine, decodeVector, hammingAll, smallestK } from "./vectors.ts";

/** How many Hamming neighbours get an exact cosine re-rank. */
export const PREFILTER = 256;

export interface VectorHit {
  contentHash: string;
  similarity: number;
}

/** The codes of one (model, dimensions): parallel growable arrays. */
class CodeTable {
  readonly words: number;
  count = 0;
  lastVseq = 0;
  vseqs = new Float64Array(1024);
  codes: Uint32Array;

  constructor(readonly dims: number) {
    this.words = codeWords(dims);
    this.codes = new Uint32Array(1024 * this.words);
  }

  push(vseq: number, code: Uint8Array): void {
    if (this.count === this.vseqs.length) {
      const vseqs = new Float64Array(this.count * 2);
      vseqs.set(this.vseqs);
      this.vseqs = vseqs;
      const codes = new Uint32Array(this.count * 2 * this.words);
      codes.set(this.codes);
      this.codes = codes;
    }
    this.vseqs[this.count] = vseq;
    const bytes = new Uint8Array(this.codes.buffer, this.count * this.words * 4, this.words * 4);
    bytes.set(code.subarray(0, this.words * 4));
    this.count++;
    if (vseq > this.lastVseq) this.lastVseq = vseq;
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
    const read = this.db().query<{ content_hash: string; vector: Uint8Array }, [number]>(
      "SELECT content_hash, vector FROM embeddings WHERE vseq = ?",
    );
    const hits: VectorHit[] = [];
    for (const index of picked) {
      const row = read.get(table.vseqs[index]!);
      if (row)
        hits.push({ contentHash: row.content_hash, similarity: cosine(query, decodeVector(row.vector)) });
    }
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
    const rows = this.db()
      .query<unknown, [string, number, number]>(
        // `+model`: walk the rowid range of new rows, not the model's whole index
        "SELECT vseq, code FROM embeddings WHERE +model = ? AND dims = ? AND vseq > ? ORDER BY vseq",
      )
      .values(model, dims, table.lastVseq) as [number, Uint8Array][];
    for (const [vseq, code] of rows) table.push(vseq, code);
    return table;
  }
}
