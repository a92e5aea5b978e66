import { rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { writeFileAtomicSync } from "../util/atomic-write.ts";
import { type Codec, compressFrames, concat, MAX_FRAME_CONTENT } from "./codec.ts";
import { contentSizeOf, encodeRecord, type FrameRecord, MARKER_SIZE } from "./frames.ts";

/**
 * Repacking (at openForAppend): once this many small records follow the last full one, they are
 * rewritten as records of up to MAX_FRAME_CONTENT bytes each. Small frames compress worse and
 * decompress slower; repacking keeps a long session's file small and its load fast.
 */
const REPACK_AT = 32;
/** A record holding at least this much text counts as full and is kept as it is. */
const FULL_RECORD = MAX_FRAME_CONTENT / 2;
const REPACK_SUFFIX = ".repack.tmp";

/**
 * Temp files of a repack of the session file `path` cut short by a crash (no one else can be
 * repacking: the caller holds the lock).
 */
export async function removeRepackLeftovers(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.`;
  for (const name of await readdir(dir)) {
    if (name.startsWith(prefix) && name.endsWith(REPACK_SUFFIX)) rmSync(join(dir, name), { force: true });
  }
}

/**
 * Where repacking starts: after the header record and the full records that follow it; undefined
 * when there are fewer than REPACK_AT records after that, or the file has frames ion did not write.
 */
export function repackFrom(bytes: Uint8Array, records: readonly FrameRecord[]): number | undefined {
  if (records.length === 0 || !records.every((r) => r.kind === "marked")) return undefined;
  let k = 1;
  while (k < records.length) {
    const record = records[k]!;
    const size = contentSizeOf(bytes, record.frameStart, record.end);
    if (size === undefined || size < FULL_RECORD) break;
    k++;
  }
  return records.length - k >= REPACK_AT ? records[k]!.start : undefined;
}

/**
 * Rewrites the records from `from` on as records of whole lines of up to MAX_FRAME_CONTENT bytes;
 * what comes before is copied byte for byte. The new records are checked (they must decompress to
 * the same text), the file is written to a temp file, fsynced and renamed over the old one: a crash
 * leaves one or the other, never a mix. The caller holds the lock. Returns the new size.
 */
export function repack(path: string, bytes: Uint8Array, from: number, codec: Codec): number {
  const text = codec.decompress(bytes.subarray(from));
  const records: Uint8Array[] = [];
  for (const piece of lineChunks(text, MAX_FRAME_CONTENT)) {
    const record = encodeRecord(compressFrames(codec, piece));
    if (!sameBytes(codec.decompress(record.subarray(MARKER_SIZE)), piece)) {
      throw new Error("the repacked data did not decompress to the original");
    }
    records.push(record);
  }
  const next = concat([bytes.subarray(0, from), ...records]);
  // The temp file is named so that removeRepackLeftovers finds it after a crash.
  writeFileAtomicSync(path, next, {
    mode: 0o600,
    durability: "directory",
    temp: `${path}.${process.pid}${REPACK_SUFFIX}`,
  });
  return next.length;
}

/** `text` cut after newlines into pieces of at most `max` bytes (a longer line is a piece of its own). */
function lineChunks(text: Uint8Array, max: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + max, text.length);
    if (end < text.length) {
      const newline = text.lastIndexOf(0x0a, end - 1);
      if (newline >= start) end = newline + 1;
      else {
        const next = text.indexOf(0x0a, end);
        end = next < 0 ? text.length : next + 1;
      }
    }
    pieces.push(text.subarray(start, end));
    start = end;
  }
  return pieces;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
