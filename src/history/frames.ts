/**
 * How a session file is cut into saves, so that a save interrupted by `kill -9` (a torn tail) can be
 * told apart from a damaged file.
 *
 * A session file is a sequence of RECORDS, one per save (the header is the first):
 *
 *     record = marker ‖ data frame
 *     marker = a zstd SKIPPABLE frame of 16 bytes, all integers little-endian:
 *                u32 magic 0x184D2A5E   (skippable magics are 0x184D2A50–0x184D2A5F; ion uses …5E)
 *                u32 payload size = 8
 *                u32 length of the data that follows, in bytes
 *                u32 CRC-32 (IEEE, as zlib) of those bytes
 *     data       = one standard zstd frame (magic 0xFD2FB528, content size in its header) of whole
 *                  JSON lines, each ending in "\n"; a save of more than 1 MiB is cut into several
 *                  frames of at most 1 MiB of content each (codec.ts MAX_FRAME_CONTENT)
 *
 * `zstd -dc` skips skippable frames and concatenates the data frames, so the file decodes to exactly
 * the JSON Lines: the header line, then one line per entry. Each record is written with one `write`
 * and made durable before the save is reported, so a crash can only leave a PREFIX of the last record
 * behind (or, after a power cut on some file systems, a zero-filled tail). (The store may later
 * rewrite many small records as a few large ones — store.ts "repack" — atomically, by rename.)
 * The scanner below reads the records from the start:
 *
 *   - a record cut short at the end of the file (marker or frame incomplete), a last record whose
 *     CRC does not match, or trailing zero bytes → a torn tail: everything from its start is dropped;
 *   - anything else that is not a record — an unknown magic, a CRC mismatch before the last record,
 *     a "cut short" record with an intact record after it (a damaged length), a first record that is
 *     incomplete — → the file is corrupt.
 *
 * To stay readable after other tools touch a file (e.g. `zstd -dc f | zstd > f`), the scanner also
 * accepts records it did not write: other skippable frames (skipped) and bare zstd frames, whose end
 * is found by walking the zstd frame format (frame header, block headers with their last-block flag
 * and sizes, optional content checksum). Those carry no CRC, so only truncation is detected in them.
 */

/** ion's marker: the skippable-frame magic 0x184D2A5E. */
export const MARKER_MAGIC = 0x184d2a5e;
/** Marker length: magic, size, frame length, CRC. */
export const MARKER_SIZE = 16;
const MARKER_PAYLOAD = 8;
export const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_BASE = 0x184d2a50;

/** CRC-32 (IEEE) of `data`. */
export function crc32(data: Uint8Array): number {
  return Bun.hash.crc32(data) >>> 0;
}

/** The largest block of a zstd frame (RFC 8878 §3.1.1.2.3: Block_Maximum_Size). */
const MAX_BLOCK = 128 * 1024;
const BLOCK_RAW = 0;

/**
 * `data` as one standard zstd frame of RAW blocks: stored, not compressed (RFC 8878: a frame header
 * with the content size, then blocks of type Raw_Block). Every zstd decoder reads it, `zstd -dc`
 * included, at the speed of a copy — where decoding thousands of small compressed frames costs
 * ~2 µs each in table set-up alone. The store writes small saves so; repacking compresses them.
 */
export function rawFrame(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / MAX_BLOCK));
  const out = new Uint8Array(4 + 1 + 4 + 3 * blocks + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, ZSTD_MAGIC, true);
  // Frame header descriptor: Frame_Content_Size_flag 2 (4 bytes), Single_Segment_flag 1 (no window
  // descriptor: the window is the content size), no checksum, no dictionary.
  out[4] = (2 << 6) | (1 << 5);
  view.setUint32(5, data.length, true);
  let at = 9;
  let offset = 0;
  do {
    const size = Math.min(MAX_BLOCK, data.length - offset);
    const last = offset + size >= data.length ? 1 : 0;
    const header = last | (BLOCK_RAW << 1) | (size << 3);
    out[at] = header & 0xff;
    out[at + 1] = (header >>> 8) & 0xff;
    out[at + 2] = (header >>> 16) & 0xff;
    out.set(data.subarray(offset, offset + size), at + 3);
    at += 3 + size;
    offset += size;
  } while (offset < data.length);
  return out;
}

/** One save as it is written: its marker followed by the data frame, in one buffer (one `write`). */
export function encodeRecord(frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(MARKER_SIZE + frame.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, MARKER_MAGIC, true);
  view.setUint32(4, MARKER_PAYLOAD, true);
  view.setUint32(8, frame.length, true);
  view.setUint32(12, crc32(frame), true);
  out.set(frame, MARKER_SIZE);
  return out;
}

/** A complete record found by the scanner: `[start, end)` in the file, its data frame `[frameStart, end)`. */
export interface FrameRecord {
  start: number;
  frameStart: number;
  end: number;
  /** "marked" = ion's marker + frame; "bare" = a zstd frame with no marker; "skippable" = a foreign skippable frame. */
  kind: "marked" | "bare" | "skippable";
}

export interface TornTail {
  /** Where the torn record starts: the file is whole up to here. */
  offset: number;
  /** How many bytes were dropped. */
  bytes: number;
  reason: string;
}

export interface ScanResult {
  records: FrameRecord[];
  /** The end of the last complete record: the file may be truncated to this length. */
  validEnd: number;
  tail: TornTail | undefined;
}

/** The file is not a session file, or is damaged before its last record. */
export class FrameError extends Error {
  readonly offset: number;
  constructor(offset: number, reason: string) {
    super(`${reason} at byte ${offset}`);
    this.name = "FrameError";
    this.offset = offset;
  }
}

/** Splits a session file into records; throws `FrameError` when the file is corrupt (not merely torn). */
export function scanRecords(bytes: Uint8Array): ScanResult {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = bytes.length;
  const records: FrameRecord[] = [];
  let offset = 0;
  const torn = (reason: string): ScanResult => {
    // The first record is written atomically (create renames it into place), so it is never torn.
    if (offset === 0) throw new FrameError(0, `first record is incomplete (${reason})`);
    // A crash leaves a prefix of ONE record. A complete record further on means a damaged length
    // field, not a crash: cutting the file here would throw saves away.
    if (completeRecordAfter(bytes, offset + 1)) throw new FrameError(offset, `damaged record (${reason})`);
    return { records, validEnd: offset, tail: { offset, bytes: length - offset, reason } };
  };
  if (length === 0) throw new FrameError(0, "empty file");
  while (offset < length) {
    const remaining = length - offset;
    if (remaining < 4) return torn(isZeros(bytes, offset) ? "zero-filled tail" : "cut-off magic");
    const magic = view.getUint32(offset, true);
    if (magic === MARKER_MAGIC) {
      if (remaining < MARKER_SIZE) return torn("cut-off marker");
      const payload = view.getUint32(offset + 4, true);
      if (payload !== MARKER_PAYLOAD) throw new FrameError(offset, `bad marker size ${payload}`);
      const frameLength = view.getUint32(offset + 8, true);
      const expected = view.getUint32(offset + 12, true);
      const frameStart = offset + MARKER_SIZE;
      const end = frameStart + frameLength;
      if (end > length) return torn("cut-off frame");
      if (crc32(bytes.subarray(frameStart, end)) !== expected) {
        if (end === length) return torn("checksum mismatch in the last save");
        throw new FrameError(offset, "checksum mismatch");
      }
      records.push({ start: offset, frameStart, end, kind: "marked" });
      offset = end;
    } else if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_BASE) {
      if (remaining < 8) return torn("cut-off skippable frame");
      const end = offset + 8 + view.getUint32(offset + 4, true);
      if (end > length) return torn("cut-off skippable frame");
      records.push({ start: offset, frameStart: offset, end, kind: "skippable" });
      offset = end;
    } else if (magic === ZSTD_MAGIC) {
      const end = zstdFrameEnd(bytes, offset);
      if (end === "truncated") return torn("cut-off frame");
      if (end === "invalid") throw new FrameError(offset, "malformed zstd frame");
      records.push({ start: offset, frameStart: offset, end, kind: "bare" });
      offset = end;
    } else {
      if (offset > 0 && isZeros(bytes, offset)) return torn("zero-filled tail");
      throw new FrameError(offset, offset === 0 ? "not a zstd file (bad magic)" : "unknown data");
    }
  }
  return { records, validEnd: offset, tail: undefined };
}

/** Whether an intact ion record (marker whose CRC matches its frame) starts anywhere at or after `from`. */
function completeRecordAfter(bytes: Uint8Array, from: number): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const first = MARKER_MAGIC & 0xff;
  for (let at = bytes.indexOf(first, from); at >= 0; at = bytes.indexOf(first, at + 1)) {
    if (at + MARKER_SIZE > bytes.length) return false;
    if (view.getUint32(at, true) !== MARKER_MAGIC || view.getUint32(at + 4, true) !== MARKER_PAYLOAD)
      continue;
    const end = at + MARKER_SIZE + view.getUint32(at + 8, true);
    if (
      end <= bytes.length &&
      crc32(bytes.subarray(at + MARKER_SIZE, end)) === view.getUint32(at + 12, true)
    ) {
      return true;
    }
  }
  return false;
}

function isZeros(bytes: Uint8Array, from: number): boolean {
  for (let i = from; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

const DICT_ID_SIZES = [0, 1, 2, 4] as const;
const CONTENT_SIZE_SIZES = [0, 2, 4, 8] as const;
const BLOCK_RLE = 1;
const BLOCK_RESERVED = 3;

/**
 * The end of the standard zstd frame starting at `start` (RFC 8878 §3.1.1): the frame header, then
 * blocks (3-byte headers: bit 0 last block, bits 1–2 type, bits 3–23 size), then a 4-byte checksum
 * when the header says so. "truncated" when the file ends first; "invalid" for a reserved bit or
 * block type.
 */
export function zstdFrameEnd(bytes: Uint8Array, start: number): number | "truncated" | "invalid" {
  let p = start + 4;
  if (p >= bytes.length) return "truncated";
  const descriptor = bytes[p]!;
  const contentSizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const reserved = (descriptor >> 3) & 1;
  const hasChecksum = (descriptor >> 2) & 1;
  const dictIdFlag = descriptor & 3;
  if (reserved) return "invalid";
  p += 1;
  if (!singleSegment) p += 1; // window descriptor
  p += DICT_ID_SIZES[dictIdFlag]!;
  p += contentSizeFlag === 0 ? singleSegment : CONTENT_SIZE_SIZES[contentSizeFlag]!;
  for (;;) {
    if (p + 3 > bytes.length) return "truncated";
    const header = bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16);
    const last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    if (type === BLOCK_RESERVED) return "invalid";
    p += 3 + (type === BLOCK_RLE ? 1 : size);
    if (p > bytes.length) return "truncated";
    if (last) break;
  }
  if (hasChecksum) p += 4;
  return p > bytes.length ? "truncated" : p;
}

/**
 * The decompressed size a zstd frame header declares (Frame_Content_Size), or undefined when the
 * frame does not say (or its header is cut off).
 */
export function zstdContentSize(bytes: Uint8Array, start: number): number | undefined {
  const p = start + 4;
  if (p >= bytes.length) return undefined;
  const descriptor = bytes[p]!;
  const contentSizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const size = contentSizeFlag === 0 ? singleSegment : CONTENT_SIZE_SIZES[contentSizeFlag]!;
  if (size === 0) return undefined;
  const at = p + 1 + (singleSegment ? 0 : 1) + DICT_ID_SIZES[descriptor & 3]!;
  if (at + size > bytes.length) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (size) {
    case 1:
      return bytes[at]!;
    case 2:
      return view.getUint16(at, true) + 256; // the 2-byte field is stored minus 256
    case 4:
      return view.getUint32(at, true);
    default:
      return Number(view.getBigUint64(at, true));
  }
}

/** Each frame (zstd or skippable) in `[from, to)`: its start, end and kind; throws FrameError when malformed. */
export function framesIn(
  bytes: Uint8Array,
  from: number,
  to: number,
): { start: number; end: number; skippable: boolean }[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const region = bytes.subarray(0, to);
  const frames: { start: number; end: number; skippable: boolean }[] = [];
  let offset = from;
  while (offset < to) {
    if (offset + 4 > to) throw new FrameError(offset, "cut-off frame");
    const magic = view.getUint32(offset, true);
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_BASE) {
      if (offset + 8 > to) throw new FrameError(offset, "cut-off skippable frame");
      const end = offset + 8 + view.getUint32(offset + 4, true);
      if (end > to) throw new FrameError(offset, "cut-off skippable frame");
      frames.push({ start: offset, end, skippable: true });
      offset = end;
    } else if (magic === ZSTD_MAGIC) {
      const end = zstdFrameEnd(region, offset);
      if (typeof end !== "number")
        throw new FrameError(offset, end === "truncated" ? "cut-off frame" : "malformed zstd frame");
      frames.push({ start: offset, end, skippable: false });
      offset = end;
    } else {
      throw new FrameError(offset, "not a zstd frame");
    }
  }
  return frames;
}

/** The decompressed size of the zstd frames in `[from, to)`, when every frame declares it. */
export function contentSizeOf(bytes: Uint8Array, from: number, to: number): number | undefined {
  let total = 0;
  for (const frame of framesIn(bytes, from, to)) {
    if (frame.skippable) continue;
    const size = zstdContentSize(bytes, frame.start);
    if (size === undefined) return undefined;
    total += size;
  }
  return total;
}
