import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_OUTPUT_CHARS, readFileTool } from "../../src/tools/read-file.ts";
import { useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-read-file-");

const read = (input: Record<string, unknown>) => readFileTool.execute(input, ws.ctx);
const lines = (count: number, make = (n: number) => `line ${n}`) =>
  `${Array.from({ length: count }, (_, i) => make(i + 1)).join("\n")}\n`;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("read_file", () => {
  test("numbers lines like cat -n and keeps tabs", async () => {
    writeFileSync(join(ws.root, "a.txt"), "alpha\n\tbeta\n");
    expect(await read({ path: "a.txt" })).toEqual({
      is_error: false,
      content: "     1\talpha\n     2\t\tbeta",
    });
  });

  test("a last line without newline and CRLF line ends read as plain lines", async () => {
    writeFileSync(join(ws.root, "crlf.txt"), "one\r\ntwo\r\nthree");
    expect((await read({ path: "crlf.txt" })).content).toBe("     1\tone\n     2\ttwo\n     3\tthree");
  });

  test("offset and limit select lines and say how to continue", async () => {
    writeFileSync(join(ws.root, "ten.txt"), lines(10));
    const result = await read({ path: "ten.txt", offset: 3, limit: 2 });
    expect(result.content).toBe(
      "     3\tline 3\n     4\tline 4\n[showing lines 3-4 of 10; call read_file with offset 5 to continue]",
    );
    expect((await read({ path: "ten.txt", offset: 9 })).content).toBe("     9\tline 9\n    10\tline 10");
  });

  test("more than 2000 lines: the first 2000, then a paging note; the next page follows", async () => {
    writeFileSync(join(ws.root, "big.txt"), lines(2500));
    const first = (await read({ path: "big.txt" })).content.split("\n");
    expect(first).toHaveLength(2001);
    expect(first[1999]).toBe("  2000\tline 2000");
    expect(first[2000]).toBe("[showing lines 1-2000 of 2500; call read_file with offset 2001 to continue]");
    const second = (await read({ path: "big.txt", offset: 2001 })).content.split("\n");
    expect(second).toHaveLength(500);
    expect(second[0]).toBe("  2001\tline 2001");
    expect(second.at(-1)).toBe("  2500\tline 2500");
  });

  test("a line longer than 2000 characters is cut with a marker", async () => {
    writeFileSync(join(ws.root, "long.txt"), `${"x".repeat(2500)}\nnext\n`);
    const shown = (await read({ path: "long.txt" })).content.split("\n");
    expect(shown[0]).toBe(`     1\t${"x".repeat(2000)}`);
    expect(shown[1]).toBe("[… truncated: 500 more characters not shown]");
    expect(shown[2]).toBe("     2\tnext");
  });

  test("multi-byte characters and emoji at the line cut stay intact", async () => {
    writeFileSync(
      join(ws.root, "emoji.txt"),
      `${"a".repeat(1999)}😀${"b".repeat(50)}\n${"é".repeat(2100)}\n`,
    );
    const content = (await read({ path: "emoji.txt" })).content;
    expect(content).not.toMatch(LONE_SURROGATE);
    const shown = content.split("\n");
    expect(shown[0]).toBe(`     1\t${"a".repeat(1999)}`);
    expect(shown[2]).toBe(`     2\t${"é".repeat(2000)}`);
  });

  test("the total output stays under the cap and pages from the last whole line shown", async () => {
    writeFileSync(
      join(ws.root, "wide.txt"),
      lines(2000, (n) => `${n}:${"w".repeat(1000)}`),
    );
    const shown = (await read({ path: "wide.txt" })).content;
    const note = shown.split("\n").at(-1) ?? "";
    const last = Number(/lines 1-(\d+) of 2000/.exec(note)?.[1]);
    expect(last).toBeGreaterThan(90);
    expect(last).toBeLessThan(100);
    expect(note).toBe(
      `[showing lines 1-${last} of 2000; call read_file with offset ${last + 1} to continue]`,
    );
    expect(shown.length - note.length - 1).toBeLessThanOrEqual(MAX_OUTPUT_CHARS);
    expect(shown).toContain(`${String(last).padStart(6)}\t${last}:${"w".repeat(1000)}\n[showing`);
  });

  test("a character split across the 8 KB binary sniff is still text", async () => {
    // 81 lines of 100 bytes, then 90 bytes: the 4-byte emoji spans bytes 8190-8193.
    const text = `${`${"x".repeat(99)}\n`.repeat(81)}${"y".repeat(90)}😀tail\n`;
    expect(Buffer.byteLength(text.slice(0, text.indexOf("😀")))).toBe(8190);
    writeFileSync(join(ws.root, "edge.txt"), text);
    const result = await read({ path: "edge.txt" });
    expect(result.is_error).toBe(false);
    expect(result.content).toEndWith("😀tail");
  });

  test("binary files are refused with their size: NUL bytes, invalid UTF-8", async () => {
    writeFileSync(join(ws.root, "nul.bin"), new Uint8Array([0x41, 0x00, 0x42, 0x43]));
    writeFileSync(join(ws.root, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    for (const [path, size] of [
      ["nul.bin", 4],
      ["latin1.txt", 5],
    ] as const) {
      const result = await read({ path });
      expect(result.is_error).toBe(true);
      expect(result.content).toBe(`${path} is a binary file (${size} bytes); read_file only shows text`);
    }
  });

  test("an empty file says so", async () => {
    writeFileSync(join(ws.root, "empty.txt"), "");
    expect(await read({ path: "empty.txt" })).toEqual({
      is_error: false,
      content: "empty.txt is empty (0 bytes)",
    });
  });

  test("a directory points to list_files; a missing file says no such file", async () => {
    mkdirSync(join(ws.root, "dir"));
    expect(await read({ path: "dir" })).toEqual({
      is_error: true,
      content: "dir is a directory; use list_files to see its entries",
    });
    expect(await read({ path: "nope.txt" })).toEqual({ is_error: true, content: "no such file: nope.txt" });
    expect((await read({ path: "nope/deeper.txt" })).content).toBe("no such file: nope/deeper.txt");
  });

  test("an offset past the end is an error naming the line count", async () => {
    writeFileSync(join(ws.root, "three.txt"), lines(3));
    expect(await read({ path: "three.txt", offset: 4 })).toEqual({
      is_error: true,
      content: "offset 4 is past the end of three.txt, which has 3 lines",
    });
  });

  test("invalid arguments name the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, "path"],
      [{ path: 5 }, "path"],
      [{ path: "a", offset: 0 }, "offset"],
      [{ path: "a", offset: 1.5 }, "offset"],
      [{ path: "a", limit: 2001 }, "limit"],
      [{ path: "a", limit: "10" }, "limit"],
    ];
    for (const [input, field] of cases) {
      const result = await read(input);
      expect(result.is_error).toBe(true);
      expect(result.content).toStartWith(`invalid arguments for read_file: ${field}:`);
    }
  });

  test("is read-only, and its schema has only path required and no exclusive bounds", () => {
    expect(readFileTool.readOnly).toBe(true);
    const schema = readFileTool.spec.input_schema;
    expect(schema.required).toEqual(["path"]);
    expect(JSON.stringify(schema)).not.toContain("exclusive");
  });
});

describe("read_file and the workspace guard", () => {
  test("../, /etc/passwd and an escaping symlink are refused without showing the content", async () => {
    symlinkSync(join(ws.outside, "secret.txt"), join(ws.root, "link.txt"));
    symlinkSync(ws.outside, join(ws.root, "link-dir"));
    for (const path of ["../outside/secret.txt", "/etc/passwd", "link.txt", "link-dir/secret.txt"]) {
      const result = await read({ path });
      expect(result.is_error).toBe(true);
      expect(result.content).toContain("outside the workspace");
      expect(result.content).not.toContain("TOP-SECRET");
      expect(result.content).not.toContain("root:");
    }
  });

  test("absolute paths inside the workspace and workspace.allow dirs are readable", async () => {
    writeFileSync(join(ws.root, "in.txt"), "inside\n");
    expect((await read({ path: join(ws.root, "in.txt") })).content).toBe("     1\tinside");
    ws.ctx = { ...ws.ctx, allow: [ws.outside] };
    expect((await read({ path: "../outside/secret.txt" })).content).toBe("     1\tTOP-SECRET");
  });
});
