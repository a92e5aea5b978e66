import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { writeFileTool } from "../../src/tools/write-file.ts";
import { writeFileAtomic } from "../../src/util/atomic-write.ts";
import { useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-write-file-");

const write = (input: Record<string, unknown>) => writeFileTool.execute(input, ws.ctx);

describe("write_file", () => {
  test("creates a file and reports its size in UTF-8 bytes", async () => {
    const content = "héllo 😀\n";
    expect(await write({ path: "new.txt", content })).toEqual({
      is_error: false,
      content: `{"success":true,"bytes":12}\nCreated new.txt`,
    });
    expect(readFileSync(join(ws.root, "new.txt"), "utf8")).toBe(content);
  });

  test("overwrites an existing file and says so", async () => {
    writeFileSync(join(ws.root, "a.txt"), "old content that is longer\n");
    expect((await write({ path: "a.txt", content: "new\n" })).content).toBe(
      `{"success":true,"bytes":4}\nOverwrote a.txt`,
    );
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("new\n");
  });

  test("writes an empty file", async () => {
    expect((await write({ path: "empty.txt", content: "" })).content).toStartWith(
      `{"success":true,"bytes":0}`,
    );
    expect(readFileSync(join(ws.root, "empty.txt"), "utf8")).toBe("");
  });

  test("creates missing parent directories", async () => {
    const result = await write({ path: "a/b/c/deep.txt", content: "x" });
    expect(result.content).toBe(`{"success":true,"bytes":1}\nCreated ${join("a", "b", "c", "deep.txt")}`);
    expect(readFileSync(join(ws.root, "a/b/c/deep.txt"), "utf8")).toBe("x");
  });

  test("refuses a directory, and a parent path that is a file", async () => {
    mkdirSync(join(ws.root, "dir"));
    writeFileSync(join(ws.root, "file.txt"), "keep\n");
    expect(await write({ path: "dir", content: "x" })).toEqual({
      is_error: true,
      content: "dir is a directory; give the path of a file",
    });
    const under = await write({ path: "file.txt/child.txt", content: "x" });
    expect(under.is_error).toBe(true);
    expect(under.content).toContain("is a file, not a directory");
    expect(readFileSync(join(ws.root, "file.txt"), "utf8")).toBe("keep\n");
  });

  test("atomic: keeps the existing file's mode and leaves no temp file behind", async () => {
    const script = join(ws.root, "run.sh");
    writeFileSync(script, "#!/bin/sh\n");
    chmodSync(script, 0o750);
    await write({ path: "run.sh", content: "#!/bin/sh\necho hi\n" });
    expect(statSync(script).mode & 0o7777).toBe(0o750);
    expect(readdirSync(ws.root)).toEqual(["run.sh"]);
  });

  test("a new file gets the usual mode for new files", async () => {
    await write({ path: "plain.txt", content: "x" });
    writeFileSync(join(ws.root, "reference.txt"), "x");
    expect(statSync(join(ws.root, "plain.txt")).mode & 0o777).toBe(
      statSync(join(ws.root, "reference.txt")).mode & 0o777,
    );
  });

  test("a failed atomic write leaves the target and no temp file", async () => {
    // Renaming a file over a non-empty directory fails after the temp file was written.
    mkdirSync(join(ws.root, "busy"));
    writeFileSync(join(ws.root, "busy/inside.txt"), "keep");
    await expect(writeFileAtomic(join(ws.root, "busy"), "data")).rejects.toThrow();
    expect(readdirSync(ws.root)).toEqual(["busy"]);
    expect(readFileSync(join(ws.root, "busy/inside.txt"), "utf8")).toBe("keep");
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
    expect(readdirSync(ws.root)).toEqual([]);
  });

  test("is not read-only", () => {
    expect(writeFileTool.readOnly).toBe(false);
    expect(writeFileTool.spec.input_schema.required).toEqual(["path", "content"]);
  });
});

describe("write_file and the workspace guard", () => {
  test("../, absolute paths outside and escaping symlinks are refused and write nothing", async () => {
    symlinkSync(join(ws.outside, "secret.txt"), join(ws.root, "link.txt"));
    symlinkSync(ws.outside, join(ws.root, "link-dir"));
    symlinkSync(join(ws.outside, "created.txt"), join(ws.root, "dangling.txt"));
    for (const path of [
      "../outside/new.txt",
      join(ws.outside, "new.txt"),
      "link.txt",
      "link-dir/new.txt",
      "link-dir/sub/new.txt",
      "dangling.txt",
    ]) {
      const result = await write({ path, content: "PWNED" });
      expect(result.is_error).toBe(true);
      expect(result.content).toContain("outside the workspace");
    }
    expect(readdirSync(ws.outside)).toEqual(["secret.txt"]);
    expect(readFileSync(join(ws.outside, "secret.txt"), "utf8")).toBe("TOP-SECRET\n");
  });

  test("absolute paths inside, new subdirectories and workspace.allow dirs are writable", async () => {
    expect((await write({ path: join(ws.root, "abs.txt"), content: "a" })).is_error).toBe(false);
    expect((await write({ path: "fresh/dir/new.txt", content: "b" })).is_error).toBe(false);
    expect(existsSync(join(ws.root, "fresh/dir/new.txt"))).toBe(true);
    ws.ctx = { ...ws.ctx, allow: [ws.outside] };
    expect((await write({ path: "../outside/allowed.txt", content: "c" })).is_error).toBe(false);
    expect(readFileSync(join(ws.outside, "allowed.txt"), "utf8")).toBe("c");
  });

  test("writing through a symlink inside the workspace updates its target and keeps the link", async () => {
    writeFileSync(join(ws.root, "target.txt"), "old");
    symlinkSync("target.txt", join(ws.root, "alias.txt"));
    expect((await write({ path: "alias.txt", content: "new" })).content).toBe(
      `{"success":true,"bytes":3}\nOverwrote target.txt`,
    );
    expect(readFileSync(join(ws.root, "target.txt"), "utf8")).toBe("new");
    expect(readFileSync(join(ws.root, "alias.txt"), "utf8")).toBe("new");
  });
});
