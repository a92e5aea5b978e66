import { IonError } from "../errors.ts";

/**
 * The lines of piped stdin as text, for the readers that take a turn per line (`ion run --input-format
 * stream-json`, piped chat). Split on `\n` (a `\r` before it is dropped). Each line is decoded as strict
 * UTF-8: a line of binary data — a NUL byte or invalid UTF-8 — ends the input with an io error instead
 * of reaching the model as U+FFFD replacement characters.
 */
export async function* textLines(stream: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const encoder = new TextEncoder();
  let pending: Uint8Array[] = [];
  let number = 0;
  const line = (bytes: Uint8Array): string => {
    number++;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const body = bytes.subarray(0, end);
    try {
      if (!body.includes(0)) return decoder.decode(body);
    } catch {
      // invalid UTF-8: said below, with the NUL byte case
    }
    throw new IonError("io", `stdin line ${number} is binary data (NUL bytes or invalid UTF-8), not text`);
  };
  for await (const chunk of stream) {
    let bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a)) {
      pending.push(bytes.subarray(0, newline));
      yield line(concat(pending));
      pending = [];
      bytes = bytes.subarray(newline + 1);
    }
    if (bytes.length > 0) pending.push(bytes);
  }
  if (pending.length > 0) yield line(concat(pending));
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}
