import { open } from "node:fs/promises";
import { isBinary } from "./limits.ts";

/**
 * Reading a window of lines from a file too large to load whole: chunk by chunk, keeping only the
 * lines asked for, and stopping once they are read. Memory stays at one chunk plus the window.
 */

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export interface LineWindow {
  /** The lines from `offset` on (at most `limit`), without their line ends. */
  lines: string[];
  /** Characters cut from each line beyond what was kept (see `keepBytes`); 0 for a whole line. */
  cut: number[];
  /** The file's line count when the read reached its end; undefined when it stopped before. */
  total: number | undefined;
  /** The first chunk held a NUL byte or invalid UTF-8. */
  binary: boolean;
}

/** UTF-16 code units the UTF-8 bytes decode to: one per lead byte, two for a 4-byte sequence. */
function utf16Units(bytes: Uint8Array): number {
  let units = 0;
  for (const byte of bytes) {
    if ((byte & 0xc0) !== 0x80) units += byte >= 0xf0 ? 2 : 1;
  }
  return units;
}

/**
 * Lines `offset` (1-based) to `offset + limit - 1` of the file. A line keeps at most `keepBytes`
 * bytes (the rest is only counted, in `cut`), so one enormous line cannot fill the memory either.
 * `wanted(lines, chars)` says whether to keep reading after each line of the window.
 */
export async function readLineWindow(
  path: string,
  offset: number,
  limit: number,
  keepBytes: number,
  size: number,
  signal: AbortSignal | undefined,
  wanted: (kept: string[]) => boolean,
): Promise<LineWindow> {
  const handle = await open(path, "r");
  const decoder = new TextDecoder("utf-8");
  const lines: string[] = [];
  const cut: number[] = [];
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let lineNo = 1; // the line the next byte belongs to
  let pieces: Uint8Array[] = [];
  let keptBytes = 0;
  let cutUnits = 0;
  let first = true;
  let sawBytes = false;
  let endedWithNewline = true;
  let position = 0; // bytes before the current chunk
  const inWindow = () => lineNo >= offset && lineNo < offset + limit;
  const keep = (bytes: Uint8Array) => {
    const room = keepBytes - keptBytes;
    if (room > 0) {
      const part = bytes.subarray(0, room);
      pieces.push(Uint8Array.from(part)); // a copy: the chunk buffer is reused
      keptBytes += part.length;
    }
    if (bytes.length > room) cutUnits += utf16Units(bytes.subarray(Math.max(room, 0)));
  };
  const endLine = (): boolean => {
    if (inWindow()) {
      let text = decoder.decode(Buffer.concat(pieces));
      if (text.endsWith("\r")) text = text.slice(0, -1);
      lines.push(text);
      cut.push(cutUnits);
    }
    pieces = [];
    keptBytes = 0;
    cutUnits = 0;
    lineNo++;
    return lineNo < offset + limit && (lines.length === 0 || wanted(lines));
  };
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (first && isBinary(chunk)) return { lines: [], cut: [], total: undefined, binary: true };
      first = false;
      sawBytes = true;
      let start = 0;
      while (start < chunk.length) {
        const end = chunk.indexOf(NEWLINE, start);
        if (end === -1) {
          if (inWindow()) keep(chunk.subarray(start));
          endedWithNewline = false;
          break;
        }
        if (inWindow()) keep(chunk.subarray(start, end));
        endedWithNewline = true;
        start = end + 1;
        if (!endLine()) {
          // Stopped early; the count is still known when nothing follows.
          const done = position + start >= size;
          return { lines, cut, total: done ? lineNo - 1 : undefined, binary: false };
        }
      }
      position += bytesRead;
    }
    // A last line without a line end is still a line; a final line end does not start another.
    if (sawBytes && !endedWithNewline) endLine();
    return { lines, cut, total: lineNo - 1, binary: false };
  } finally {
    await handle.close();
  }
}
