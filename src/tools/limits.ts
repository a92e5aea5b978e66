/** Output caps shared by the tools, so nothing a tool returns can flood the model's context. */

/** Cuts at a code-point boundary: never leaves half of a surrogate pair at the cut. */
function safeEnd(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

function safeStart(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index + 1 : index;
}

/** Keeps the first `max` characters, with a marker saying how much was cut. */
export function truncateHead(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = safeEnd(text, max);
  return `${text.slice(0, end)}\n[… truncated: ${text.length - end} more characters not shown]`;
}

/** Keeps the last `max` characters (the end of a command's output matters most), with a marker. */
export function truncateTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const start = safeStart(text, text.length - max);
  return `[… truncated: the first ${start} characters are not shown]\n${text.slice(start)}`;
}

/** A NUL byte in the first 8 KB, or invalid UTF-8, marks a file as binary. */
export function isBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 8192);
  if (sample.includes(0)) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(
      sample.length < bytes.length ? trimPartial(sample) : sample,
    );
    return false;
  } catch {
    return true; // not valid UTF-8
  }
}

/** The sample may end inside a multi-byte character; drop that partial character before decoding. */
function trimPartial(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  let back = 0;
  while (end > 0 && back < 4 && ((bytes[end - 1] ?? 0) & 0xc0) === 0x80) {
    end--;
    back++;
  }
  if (end > 0 && ((bytes[end - 1] ?? 0) & 0x80) !== 0) end--;
  return bytes.subarray(0, end);
}
