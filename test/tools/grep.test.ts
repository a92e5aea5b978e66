import { describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  GREP_MAX_FILE_BYTES,
  GREP_MAX_LINE_CHARS,
  GREP_MAX_MATCHES,
  GREP_MAX_OUTPUT_CHARS,
  grepTool,
} from "../../src/tools/grep.ts";
import { tree, useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-grep-", {});

const grep = (input: Record<string, unknown>, context = ws.ctx) => grepTool.execute(input, context);
const lines = async (input: Record<string, unknown>) => (await grep(input)).content.split("\n");

describe("grep", () => {
  test("prints path:line:text for every matching line, in path order", async () => {
    tree(ws.root, {
      "b.ts": "const x = 1;\nfunction foo() {}\n",
      "a.ts": "// foo here\nnothing\nfoo(); foo();\n",
      "src/c.md": "no match\n\nfoo bar",
    });
    expect(await grep({ pattern: "foo\\(?" })).toEqual({
      content: "a.ts:1:// foo here\na.ts:3:foo(); foo();\nb.ts:2:function foo() {}\nsrc/c.md:3:foo bar",
      is_error: false,
    });
    expect(await lines({ pattern: "^foo", path: "src" })).toEqual(["src/c.md:3:foo bar"]);
    expect(await lines({ pattern: "FOO\\(\\)", path: "a.ts" })).toEqual(["No matches for FOO\\(\\) in a.ts"]);
    expect(await lines({ pattern: "(?i)FOO\\(\\)", path: "a.ts" })).toEqual(["a.ts:3:foo(); foo();"]);
  });

  test("filters files with include: by name without a slash, by path with one", async () => {
    tree(ws.root, {
      "a.ts": "hit",
      "a.js": "hit",
      "src/b.ts": "hit",
      "src/deep/c.tsx": "hit",
      "lib/d.ts": "hit",
    });
    expect(await lines({ pattern: "hit", include: "*.ts" })).toEqual([
      "a.ts:1:hit",
      "lib/d.ts:1:hit",
      "src/b.ts:1:hit",
    ]);
    expect(await lines({ pattern: "hit", include: "src/**/*.{ts,tsx}" })).toEqual([
      "src/b.ts:1:hit",
      "src/deep/c.tsx:1:hit",
    ]);
    expect(await lines({ pattern: "hit", path: "src", include: "deep/*" })).toEqual(["src/deep/c.tsx:1:hit"]);
    expect(await lines({ pattern: "hit", include: "*.rs" })).toEqual([
      "No matches for hit in . (files matching *.rs)",
    ]);
  });

  test("handles CRLF line ends and lookarounds at the end of a line", async () => {
    tree(ws.root, { "win.txt": "alpha\r\nfoo\r\n", "unix.txt": "x foo\nfoo y\n" });
    expect(await lines({ pattern: "foo$" })).toEqual(["unix.txt:1:x foo", "win.txt:2:foo"]);
    expect(await lines({ pattern: "foo(?!\\s)", path: "unix.txt" })).toEqual(["unix.txt:1:x foo"]);
  });

  test("skips binary files, and files over the size limit with a note", async () => {
    tree(ws.root, {
      "bin.dat": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00, 0x01]),
      "latin1.txt": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0xe9, 0x0a]),
      "big.txt": `needle\n${"x".repeat(GREP_MAX_FILE_BYTES)}`,
      "small.txt": "needle\n",
    });
    expect(await grep({ pattern: "needle" })).toEqual({
      content: "small.txt:1:needle\n[skipped files over 5 MB: big.txt]",
      is_error: false,
    });
    expect((await grep({ pattern: "needle", path: "bin.dat" })).content).toBe(
      "bin.dat is a binary file; grep skips binary files",
    );
    expect((await grep({ pattern: "needle", path: "big.txt" })).content).toBe(
      `big.txt has ${GREP_MAX_FILE_BYTES + 7} bytes; grep skips files over 5 MB (read_file can page through it)`,
    );
  });

  test("caps at 500 matching lines with a marker", async () => {
    tree(ws.root, { "a.txt": "match\n".repeat(300), "b.txt": "match\n".repeat(300) });
    const output = await lines({ pattern: "match" });
    expect(output).toHaveLength(GREP_MAX_MATCHES + 1);
    expect(output[299]).toBe("a.txt:300:match");
    expect(output[GREP_MAX_MATCHES - 1]).toBe("b.txt:200:match");
    expect(output.at(-1)).toBe(
      `[match cap reached: only the first ${GREP_MAX_MATCHES} matching lines are shown; narrow the pattern, path or include to see the rest]`,
    );
  });

  test("the cap stops a search over many files, in order; exactly 500 matches has no marker", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`many/f${String(i).padStart(2, "0")}.txt`] = "hit\n".repeat(30);
    for (let i = 0; i < 5; i++) files[`exact/f${i}.txt`] = "hit\n".repeat(100);
    tree(ws.root, files);
    const output = await lines({ pattern: "hit", path: "many" });
    expect(output).toHaveLength(GREP_MAX_MATCHES + 1);
    expect(output[GREP_MAX_MATCHES - 1]).toBe("many/f16.txt:20:hit");
    expect(output.at(-1)).toStartWith("[match cap reached");
    const exact = await lines({ pattern: "hit", path: "exact" });
    expect(exact).toHaveLength(GREP_MAX_MATCHES);
    expect(exact.at(-1)).toBe("exact/f4.txt:100:hit");
  });

  test("stops at the output character limit on a whole line, with a marker", async () => {
    tree(ws.root, { "wide.txt": `hit ${"w".repeat(480)}\n`.repeat(300) });
    const output = await lines({ pattern: "hit" });
    const shown = output.slice(0, -1);
    expect(shown.join("\n").length).toBeLessThanOrEqual(GREP_MAX_OUTPUT_CHARS);
    expect(shown.length).toBeGreaterThan(100);
    expect(shown.every((line) => /^wide\.txt:\d+:hit w+$/.test(line))).toBe(true);
    expect(output.at(-1)).toBe(
      `[output limit reached: only the first ${shown.length} matching lines (${GREP_MAX_OUTPUT_CHARS} characters) are shown; narrow the pattern, path or include to see the rest]`,
    );
  });

  test("cuts long lines around the match with a marker", async () => {
    const long = `${"a".repeat(1000)}NEEDLE${"b".repeat(1000)}`;
    const head = `NEEDLE${"c".repeat(2000)}`;
    tree(ws.root, { "long.txt": `${long}\n${head}\n` });
    const [first, second] = await lines({ pattern: "NEEDLE" });
    expect(first).toContain("NEEDLE");
    expect(first!.startsWith("long.txt:1:…")).toBe(true);
    expect(first!.endsWith(`[… line cut: ${long.length} characters in all]`)).toBe(true);
    expect(first!.length).toBeLessThan(GREP_MAX_LINE_CHARS + 80);
    expect(second!.startsWith("long.txt:2:NEEDLEccc")).toBe(true);
    expect(second!.endsWith(`[… line cut: ${head.length} characters in all]`)).toBe(true);
  });

  test("invalid regex is an error carrying the parser's message", async () => {
    tree(ws.root, { "a.txt": "x" });
    const result = await grep({ pattern: "foo(" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("invalid regular expression");
    expect(result.content).toContain("missing )");
  });

  test("honours .gitignore (nested, negations) and skips .git", async () => {
    tree(ws.root, {
      ".gitignore": "*.log\nvendor/\n",
      ".git/COMMIT_EDITMSG": "token\n",
      "app.log": "token\n",
      "vendor/lib.js": "token\n",
      "src/.gitignore": "!important.log\n",
      "src/important.log": "token\n",
      "src/main.ts": "token\n",
    });
    expect(await lines({ pattern: "token" })).toEqual(["src/important.log:1:token", "src/main.ts:1:token"]);
  });

  test("never searches through a symlink that leaves the workspace", async () => {
    tree(ws.outside, { "secret.txt": "SECRET\n", "dir/inner.txt": "SECRET\n" });
    tree(ws.root, { "own.txt": "SECRET\n" });
    symlinkSync(join(ws.outside, "secret.txt"), join(ws.root, "leak.txt"));
    symlinkSync(join(ws.outside, "dir"), join(ws.root, "leakdir"));
    symlinkSync(join(ws.root, "own.txt"), join(ws.root, "alias.txt"));
    expect(await lines({ pattern: "SECRET" })).toEqual(["alias.txt:1:SECRET", "own.txt:1:SECRET"]);
    const direct = await grep({ pattern: "SECRET", path: "leak.txt" });
    expect(direct.is_error).toBe(true);
    expect(direct.content).toContain("outside the workspace");
    expect((await grep({ pattern: "SECRET", path: "leakdir" })).is_error).toBe(true);
  });

  test("a missing path is an error; no match is not", async () => {
    tree(ws.root, { "a.txt": "x" });
    expect(await grep({ pattern: "x", path: "nope" })).toEqual({
      content: "nope does not exist",
      is_error: true,
    });
    expect(await grep({ pattern: "zzz" })).toEqual({ content: "No matches for zzz in .", is_error: false });
  });

  test("a cancelled search is an error result", async () => {
    tree(ws.root, { "a.txt": "x" });
    expect(await grep({ pattern: "x" }, ws.cancelledCtx())).toEqual({
      content: "grep was cancelled",
      is_error: true,
    });
  });

  test("the spec describes the tool for the model", () => {
    expect(grepTool.readOnly).toBe(true);
    expect(grepTool.spec.description).toContain("5 MB");
    expect(grepTool.spec.input_schema).toMatchObject({ required: ["pattern"] });
  });
});
