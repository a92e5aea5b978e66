import { describe, expect, test } from "bun:test";
import { IonError } from "../../src/errors.ts";
import { textLines } from "../../src/util/text-lines.ts";

async function* chunks(...parts: (string | number[])[]): AsyncGenerator<Uint8Array> {
  for (const part of parts)
    yield typeof part === "string" ? new TextEncoder().encode(part) : new Uint8Array(part);
}

async function all(stream: AsyncIterable<Uint8Array>): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of textLines(stream)) lines.push(line);
  return lines;
}

describe("textLines", () => {
  test("splits on \\n, drops a \\r before it, keeps a last line without one", async () => {
    expect(await all(chunks("one\r\ntwo\n\nthree"))).toEqual(["one", "two", "", "three"]);
  });

  test("a character split between chunks is decoded whole", async () => {
    // "é" is 0xc3 0xa9; "世" is 0xe4 0xb8 0x96
    expect(await all(chunks([0x63, 0x61, 0x66, 0xc3], [0xa9, 0x0a, 0xe4], [0xb8, 0x96]))).toEqual([
      "café",
      "世",
    ]);
  });

  test("a line of invalid UTF-8 or with a NUL byte ends the input, naming the line", async () => {
    for (const bad of [
      [0x63, 0x61, 0x66, 0xe9],
      [0x61, 0x00, 0x62],
    ]) {
      const seen: string[] = [];
      const error = await (async () => {
        for await (const line of textLines(chunks("fine\n", bad, "\nnever\n"))) seen.push(line);
      })().catch((err: unknown) => err);
      expect(seen).toEqual(["fine"]);
      expect(error).toBeInstanceOf(IonError);
      expect((error as IonError).message).toBe(
        "stdin line 2 is binary data (NUL bytes or invalid UTF-8), not text",
      );
    }
  });
});
