import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolContext } from "../../src/tools/types.ts";
import { atomicWriteFile, writeFileTool } from "../../src/tools/write-file.ts";

let base: string;
let root: string;
let outside: string;
let ctx: ToolContext;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "ion-write-file-")));
  root = join(base, "work");
  outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "TOP-SECRET\n");
  ctx = { cwd: root, allow: [], signal: new AbortController().signal };
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const write = (input: Record<string, unknown>) => writeFileTool.execute(input, ctx);

describe("write_file", () => {
  test("creates a file and reports its size in UTF-8 bytes", async () => {
    const content = "héllo 😀\n";
    expect(await write({ path: "new.txt", content })).toEqual({
      is_error: false,
      content: `{"success":true,"bytes":12}\nCreated new.txt`,
    });
    expect(readFileSync(join(root, "new.txt"), "utf8")).toBe(content);
  });

  test("overwrites an existing file and says so", async () => {
    writeFileSync(join(root, "a.txt"), "old content that is longer\n");
    expect((await write({ path: "a.txt", content: "new\n" })).content).toBe(
      `{"success":true,"bytes":4}\nOverwrote a.txt`,
    );
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("new\n");
  });

  test("writes an empty file", async () => {
    expect((await write({ path: "empty.txt", content: "" })).content).toStartWith(
      `{"success":true,"bytes":0}`,
    );
    expect(readFileSync(join(root, "empty.txt"), "utf8")).toBe("");
  });

  test("creates missing parent directories", async () => {
    const result = await write({ path: "a/b/c/deep.txt", content: "x" });
    expect(result.content).toBe(`{"success":true,"bytes":1}\nCreated ${join("a", "b", "c", "deep.txt")}`);
    expect(readFileSync(join(root, "a/b/c/deep.txt"), "utf8")).toBe("x");
  });

  test("refuses a directory, and a parent path that is a file", async () => {
    mkdirSync(join(root, "dir"));
    writeFileSync(join(root, "file.txt"), "keep\n");
    expect(await write({ path: "dir", content: "x" })).toEqual({
      is_error: true,
      content: "dir is a directory; give the path of a file",
    });
    const under = await write({ path: "file.txt/child.txt", content: "x" });
    expect(under.is_error).toBe(true);
    expect(under.content).toContain("is a file, not a directory");
    expect(readFileSync(join(root, "file.txt"), "utf8")).toBe("keep\n");
  });

  test("atomic: keeps the existing file's mode and leaves no temp file behind", async () => {
    const script = join(root, "run.sh");
    writeFileSync(script, "#!/bin/sh\n");
    chmodSync(script, 0o750);
    await write({ path: "run.sh", content: "#!/bin/sh\necho hi\n" });
    expect(statSync(script).mode & 0o7777).toBe(0o750);
    expect(readdirSync(root)).toEqual(["run.sh"]);
  });

  test("a new file gets the usual mode for new files", async () => {
    await write({ path: "plain.txt", content: "x" });
    writeFileSync(join(root, "reference.txt"), "x");
    expect(statSync(join(root, "plain.txt")).mode & 0o777).toBe(
      statSync(join(root, "reference.txt")).mode & 0o777,
    );
  });

  test("a failed atomic write leaves the target and no temp file", async () => {
    // Renaming a file over a non-empty directory fails after the temp file was written.
    mkdirSync(join(root, "busy"));
    writeFileSync(join(root, "busy/inside.txt"), "keep");
    await expect(atomicWriteFile(join(root, "busy"), "data")).rejects.toThrow();
    expect(readdirSync(root)).toEqual(["busy"]);
    expect(readFileSync(join(root, "busy/inside.txt"), "utf8")).toBe("keep");
  });

  test("invalid arguments name the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ content: "x" }, "path"],
      [{ path: 1, content: "x" }, "path"],
      [{ path: "a.txt" }, "content"],
      [{ path: "a.txt", content: ["x"] }, "content"],
    ];
    for (const [input, field] of cases) {
      const result = await write(input);
      expect(result.is_error).toBe(true);
      expect(result.content).toStartWith(`invalid arguments for write_file: ${field}:`);
    }
    expect(readdirSync(root)).toEqual([]);
  });

  test("is not read-only", () => {
    expect(writeFileTool.readOnly).toBe(false);
    expect(writeFileTool.spec.input_schema.required).toEqual(["path", "content"]);
  });
});

describe("write_file and the workspace guard", () => {
  test("../, absolute paths outside and escaping symlinks are refused and write nothing", async () => {
    symlinkSync(join(outside, "secret.txt"), join(root, "link.txt"));
    symlinkSync(outside, join(root, "link-dir"));
    symlinkSync(join(outside, "created.txt"), join(root, "dangling.txt"));
    for (const path of [
      "../outside/new.txt",
      join(outside, "new.txt"),
      "link.txt",
      "link-dir/new.txt",
      "link-dir/sub/new.txt",
      "dangling.txt",
    ]) {
      const result = await write({ path, content: "PWNED" });
      expect(result.is_error).toBe(true);
      expect(result.content).toContain("outside the workspace");
    }
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("TOP-SECRET\n");
  });

  test("absolute paths inside, new subdirectories and workspace.allow dirs are writable", async () => {
    expect((await write({ path: join(root, "abs.txt"), content: "a" })).is_error).toBe(false);
    expect((await write({ path: "fresh/dir/new.txt", content: "b" })).is_error).toBe(false);
    expect(existsSync(join(root, "fresh/dir/new.txt"))).toBe(true);
    ctx = { ...ctx, allow: [outside] };
    expect((await write({ path: "../outside/allowed.txt", content: "c" })).is_error).toBe(false);
    expect(readFileSync(join(outside, "allowed.txt"), "utf8")).toBe("c");
  });

  test("writing through a symlink inside the workspace updates its target and keeps the link", async () => {
    writeFileSync(join(root, "target.txt"), "old");
    symlinkSync("target.txt", join(root, "alias.txt"));
    expect((await write({ path: "alias.txt", content: "new" })).content).toBe(
      `{"success":true,"bytes":3}\nOverwrote target.txt`,
    );
    expect(readFileSync(join(root, "target.txt"), "utf8")).toBe("new");
    expect(readFileSync(join(root, "alias.txt"), "utf8")).toBe("new");
  });
});
