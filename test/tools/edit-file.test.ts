import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { editFileTool } from "../../src/tools/edit-file.ts";
import { useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-edit-file-");

const edit = (input: Record<string, unknown>) => editFileTool.execute(input, ws.ctx);
const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line${i + 1}\n`).join("");
const file = (name: string) => readFileSync(join(ws.root, name), "utf8");

describe("edit_file", () => {
  test("replaces a unique string and returns the unified diff with 3 lines of context", async () => {
    writeFileSync(join(ws.root, "f.txt"), numbered(10));
    const result = await edit({ path: "f.txt", old_string: "line5\n", new_string: "LINE5\nextra\n" });
    expect(result.metadata?.diff).toStartWith("--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,8 @@\n");
    expect(result).toMatchObject({
      is_error: false,
      content: [
        "Edited f.txt (replaced 1 occurrence)",
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -2,7 +2,8 @@",
        " line2",
        " line3",
        " line4",
        "-line5",
        "+LINE5",
        "+extra",
        " line6",
        " line7",
        " line8",
        "",
      ].join("\n"),
    });
    expect(file("f.txt")).toBe(numbered(10).replace("line5\n", "LINE5\nextra\n"));
  });

  test("changes more than 6 unchanged lines apart get separate hunks, closer ones share one", async () => {
    const marked = (at: number[]) =>
      Array.from({ length: 20 }, (_, i) => (at.includes(i + 1) ? "mark\n" : `line${i + 1}\n`)).join("");
    writeFileSync(join(ws.root, "f.txt"), marked([2, 10]));
    const apart = await edit({ path: "f.txt", old_string: "mark", new_string: "MARK", replace_all: true });
    expect(apart.content).toContain(
      "\n@@ -1,5 +1,5 @@\n line1\n-mark\n+MARK\n line3\n line4\n line5\n@@ -7,7 +7,7 @@\n",
    );
    writeFileSync(join(ws.root, "f.txt"), marked([2, 9]));
    const close = await edit({ path: "f.txt", old_string: "mark", new_string: "MARK", replace_all: true });
    expect(close.content.match(/^@@.*$/gm)).toEqual(["@@ -1,12 +1,12 @@"]);
  });

  test("a missing newline at the end of the file is marked", async () => {
    writeFileSync(join(ws.root, "f.txt"), "a\nb");
    expect((await edit({ path: "f.txt", old_string: "b", new_string: "c" })).content).toBe(
      "Edited f.txt (replaced 1 occurrence)\n--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
    );
    expect((await edit({ path: "f.txt", old_string: "c", new_string: "c\n" })).content).toEndWith(
      "@@ -1,2 +1,2 @@\n a\n-c\n\\ No newline at end of file\n+c\n",
    );
  });

  test("old_string not found: an error with the hint, file unchanged", async () => {
    writeFileSync(join(ws.root, "f.txt"), "  indented\n");
    const result = await edit({ path: "f.txt", old_string: "\tindented", new_string: "x" });
    expect(result.is_error).toBe(true);
    expect(result.content).toStartWith(
      "old_string was not found in f.txt. Read the file with read_file first",
    );
    expect(result.content).toContain("whitespace");
    expect(file("f.txt")).toBe("  indented\n");
  });

  test("old_string found more than once: says how many times and how to disambiguate", async () => {
    writeFileSync(join(ws.root, "f.txt"), "a = 1\nb = 1\nc = 1\n");
    const result = await edit({ path: "f.txt", old_string: "= 1", new_string: "= 2" });
    expect(result).toEqual({
      is_error: true,
      content:
        "old_string was found 3 times in f.txt; include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence",
    });
    expect(file("f.txt")).toBe("a = 1\nb = 1\nc = 1\n");
  });

  test("replace_all replaces every occurrence; overlapping text counts once per match", async () => {
    writeFileSync(join(ws.root, "f.txt"), "a = 1\nb = 1\nc = 1\naaaa\n");
    expect(
      (await edit({ path: "f.txt", old_string: "= 1", new_string: "= 2", replace_all: true })).content,
    ).toStartWith("Edited f.txt (replaced 3 occurrences)\n");
    expect(
      (await edit({ path: "f.txt", old_string: "aa", new_string: "b", replace_all: true })).content,
    ).toStartWith("Edited f.txt (replaced 2 occurrences)\n");
    expect(file("f.txt")).toBe("a = 2\nb = 2\nc = 2\nbb\n");
  });

  test("replacement text is literal: $& and $1 are not patterns", async () => {
    writeFileSync(join(ws.root, "f.txt"), "price: X\n");
    await edit({ path: "f.txt", old_string: "X", new_string: "$& $1 $$" });
    expect(file("f.txt")).toBe("price: $& $1 $$\n");
  });

  test("identical strings, empty old_string and a missing file are errors", async () => {
    writeFileSync(join(ws.root, "f.txt"), "same\n");
    expect(await edit({ path: "f.txt", old_string: "same", new_string: "same" })).toEqual({
      is_error: true,
      content: "old_string and new_string are identical; there is nothing to change",
    });
    const empty = await edit({ path: "f.txt", old_string: "", new_string: "x" });
    expect(empty.is_error).toBe(true);
    expect(empty.content).toBe(
      "invalid arguments for edit_file: old_string: must not be empty; to create a file or replace all of it use write_file",
    );
    expect(await edit({ path: "missing.txt", old_string: "a", new_string: "b" })).toEqual({
      is_error: true,
      content: "no such file: missing.txt (edit_file changes existing files; use write_file to create one)",
    });
    mkdirSync(join(ws.root, "dir"));
    expect((await edit({ path: "dir", old_string: "a", new_string: "b" })).content).toBe(
      "dir is a directory, not a file",
    );
  });

  test("CRLF files keep their line ends; the model writes plain newlines", async () => {
    writeFileSync(join(ws.root, "win.txt"), "one\r\ntwo\r\nthree\r\n");
    const result = await edit({ path: "win.txt", old_string: "one\ntwo\n", new_string: "uno\ndos\nmás\n" });
    expect(file("win.txt")).toBe("uno\r\ndos\r\nmás\r\nthree\r\n");
    expect(result.content).toBe(
      "Edited win.txt (replaced 1 occurrence)\n--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,4 @@\n-one\n-two\n+uno\n+dos\n+más\n three\n",
    );
    // Single-line edits leave the CRLF around them alone.
    await edit({ path: "win.txt", old_string: "three", new_string: "tres" });
    expect(file("win.txt")).toBe("uno\r\ndos\r\nmás\r\ntres\r\n");
    // A one-line old_string with new lines in new_string: the new lines get CRLF too.
    await edit({ path: "win.txt", old_string: "tres", new_string: "tres\ncuatro" });
    expect(file("win.txt")).toBe("uno\r\ndos\r\nmás\r\ntres\r\ncuatro\r\n");
  });

  test("a file with mixed line ends keeps each line's own ending", async () => {
    writeFileSync(join(ws.root, "mixed.txt"), "a\r\nb\nc\r\n");
    await edit({ path: "mixed.txt", old_string: "b\n", new_string: "b\nB\n" });
    expect(file("mixed.txt")).toBe("a\r\nb\nB\nc\r\n");
    await edit({ path: "mixed.txt", old_string: "c\n", new_string: "C\n" });
    expect(file("mixed.txt")).toBe("a\r\nb\nB\nC\r\n");
  });

  test("a BOM and the bytes outside the edit are kept", async () => {
    writeFileSync(join(ws.root, "bom.txt"), "\ufeffhello\nworld\n");
    await edit({ path: "bom.txt", old_string: "world", new_string: "there" });
    expect([...readFileSync(join(ws.root, "bom.txt")).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(file("bom.txt")).toBe("\ufeffhello\nthere\n");
  });

  test("binary and non-UTF-8 files are refused and left alone", async () => {
    const nul = new Uint8Array([0x61, 0x00, 0x62]);
    const latin1 = new Uint8Array([...new TextEncoder().encode("a".repeat(9000)), 0xe9, 0x0a]);
    writeFileSync(join(ws.root, "nul.bin"), nul);
    writeFileSync(join(ws.root, "late.txt"), latin1);
    expect(await edit({ path: "nul.bin", old_string: "a", new_string: "c" })).toEqual({
      is_error: true,
      content: "nul.bin is a binary or non-UTF-8 file (3 bytes); edit_file only edits text",
    });
    // Invalid UTF-8 past the 8 KB sniff would be corrupted by a lossy decode: refused too.
    expect(
      (await edit({ path: "late.txt", old_string: "a", new_string: "c", replace_all: true })).is_error,
    ).toBe(true);
    expect(new Uint8Array(readFileSync(join(ws.root, "late.txt")))).toEqual(latin1);
  });

  test("atomic: keeps the file's mode and leaves no temp file", async () => {
    writeFileSync(join(ws.root, "run.sh"), "echo old\n");
    chmodSync(join(ws.root, "run.sh"), 0o700);
    await edit({ path: "run.sh", old_string: "old", new_string: "new" });
    expect(statSync(join(ws.root, "run.sh")).mode & 0o7777).toBe(0o700);
    expect(readdirSync(ws.root)).toEqual(["run.sh"]);
  });

  test("a very large diff is capped with a marker", async () => {
    writeFileSync(join(ws.root, "big.txt"), "x\n".repeat(20_000));
    const result = await edit({ path: "big.txt", old_string: "x", new_string: "y", replace_all: true });
    expect(result.is_error).toBe(false);
    expect(result.content).toMatch(/\n\[… truncated: \d+ more characters not shown\]$/);
    expect(file("big.txt")).toBe("y\n".repeat(20_000));
  });

  test("invalid arguments name the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ old_string: "a", new_string: "b" }, "path"],
      [{ path: "f.txt", new_string: "b" }, "old_string"],
      [{ path: "f.txt", old_string: "a" }, "new_string"],
      [{ path: "f.txt", old_string: "a", new_string: 2 }, "new_string"],
      [{ path: "f.txt", old_string: "a", new_string: "b", replace_all: "yes" }, "replace_all"],
    ];
    for (const [input, field] of cases) {
      const result = await edit(input);
      expect(result.is_error).toBe(true);
      expect(result.content).toStartWith(`invalid arguments for edit_file: ${field}:`);
    }
  });

  test("is not read-only; replace_all is optional in the schema", () => {
    expect(editFileTool.readOnly).toBe(false);
    expect(editFileTool.spec.input_schema.required).toEqual(["path", "old_string", "new_string"]);
  });
});

describe("edit_file and the workspace guard", () => {
  test("../, absolute outside paths and escaping symlinks are refused; nothing outside changes", async () => {
    symlinkSync(join(ws.outside, "secret.txt"), join(ws.root, "link.txt"));
    symlinkSync(ws.outside, join(ws.root, "link-dir"));
    for (const path of [
      "../outside/secret.txt",
      join(ws.outside, "secret.txt"),
      "link.txt",
      "link-dir/secret.txt",
    ]) {
      const result = await edit({ path, old_string: "TOP", new_string: "PWNED" });
      expect(result.is_error).toBe(true);
      expect(result.content).toContain("outside the workspace");
      expect(result.content).not.toContain("TOP-SECRET");
    }
    expect(readFileSync(join(ws.outside, "secret.txt"), "utf8")).toBe("TOP-SECRET\n");
  });

  test("absolute paths inside and workspace.allow dirs can be edited", async () => {
    writeFileSync(join(ws.root, "in.txt"), "a\n");
    expect((await edit({ path: join(ws.root, "in.txt"), old_string: "a", new_string: "b" })).is_error).toBe(
      false,
    );
    ws.ctx = { ...ws.ctx, allow: [ws.outside] };
    const result = await edit({ path: "../outside/secret.txt", old_string: "TOP", new_string: "OPEN" });
    expect(result.content).toContain(
      `--- ${join(ws.outside, "secret.txt")}\n+++ ${join(ws.outside, "secret.txt")}\n`,
    );
    expect(readFileSync(join(ws.outside, "secret.txt"), "utf8")).toBe("OPEN-SECRET\n");
  });
});
