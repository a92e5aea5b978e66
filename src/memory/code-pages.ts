/**
 * The sign codes of one (model, dimensions), packed in pages of PAGE_CODES: each `code_pages` row holds
 * the `vseq`s (Float64) and the codes (32-bit words) of up to that many vectors, in `vseq` order. Reading
 * a hundred rows of a few dozen KB is what makes a new process's first vector search cheap (one row per
 * code cost ~30 ms of row overhead at 100 000). A vector deleted later leaves its code in its page; the
 * search finds no vector for it and skips it.
 */
import type { Database } from "bun:sqlite";
import { codeWords } from "./vectors.ts";

export const PAGE_CODES = 1024;

interface PageRow {
  page: number;
  vseqs: Uint8Array;
  codes: Uint8Array;
}

/** A blob's bytes 8-byte aligned: itself when it is (bun hands out fresh buffers), else a copy. */
const aligned = (blob: Uint8Array): ArrayBuffer =>
  blob.byteOffset === 0 && blob.byteLength === blob.buffer.byteLength
    ? (blob.buffer as ArrayBuffer)
    : blob.slice().buffer;

/** Appends codes (vseq ascending, all above those stored) to the last page, opening new pages as they fill. Call inside a write transaction. */
export function appendCodes(
  db: Database,
  model: string,
  dims: number,
  entries: readonly { vseq: number; code: Uint32Array }[],
): void {
  if (entries.length === 0) return;
  const words = codeWords(dims);
  const last = db
    .query<PageRow, [string, number]>(
      "SELECT page, vseqs, codes FROM code_pages WHERE model = ? AND dims = ? ORDER BY page DESC LIMIT 1",
    )
    .get(model, dims);
  let page = last?.page ?? 0;
  let vseqs: number[] = last ? [...new Float64Array(aligned(last.vseqs))] : [];
  let codes: number[] = last ? [...new Uint32Array(aligned(last.codes))] : [];
  const write = db.query(
    "INSERT INTO code_pages (model, dims, page, vseqs, codes) VALUES (?, ?, ?, ?, ?) ON CONFLICT (model, dims, page) DO UPDATE SET vseqs = excluded.vseqs, codes = excluded.codes",
  );
  const flush = () => {
    const packedCodes = Uint32Array.from(codes);
    write.run(
      model,
      dims,
      page,
      new Uint8Array(Float64Array.from(vseqs).buffer),
      new Uint8Array(packedCodes.buffer),
    );
  };
  for (const { vseq, code } of entries) {
    if (vseqs.length === PAGE_CODES) {
      flush();
      page++;
      vseqs = [];
      codes = [];
    }
    vseqs.push(vseq);
    for (let w = 0; w < words; w++) codes.push(code[w] ?? 0);
  }
  flush();
}

/** The pages from `fromPage` on, in order, as typed arrays. */
export function readPages(
  db: Database,
  model: string,
  dims: number,
  fromPage: number,
): { page: number; vseqs: Float64Array; codes: Uint32Array }[] {
  return db
    .query<PageRow, [string, number, number]>(
      "SELECT page, vseqs, codes FROM code_pages WHERE model = ? AND dims = ? AND page >= ? ORDER BY page",
    )
    .all(model, dims, fromPage)
    .map((row) => ({
      page: row.page,
      vseqs: new Float64Array(aligned(row.vseqs)),
      codes: new Uint32Array(aligned(row.codes)),
    }));
}
