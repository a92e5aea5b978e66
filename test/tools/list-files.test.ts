import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listFilesTool, MAX_ENTRIES } from "../../src/tools/list-files.ts";
import type { ToolContext } from "../../src/tools/types.ts";

let base: string;
let root: string;
let outside: string;
let ctx: ToolContext;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "ion-list-files-")));
  root = join(base, "work");
  outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret-name.txt"), "");
  ctx = { cwd: root, allow: [], signal: new AbortController().signal };
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const list = (input: Record<string, unknown>) => listFilesTool.execute(input, ctx);

describe("list_files", () => {
  test("one sorted entry per line; directories and links to them end with /", async () => {
    mkdirSync(join(root, "src"));
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, "b.txt"), "");
    writeFileSync(join(root, "a.txt"), "");
    writeFileSync(join(root, "Z.md"), "");
    symlinkSync(join(root, "src"), join(root, "src-link"));
    symlinkSync(join(root, "a.txt"), join(root, "file-link"));
    symlinkSync(join(root, "gone"), join(root, "dangling"));
    symlinkSync("loop", join(root, "loop"));
    expect(await list({ path: "." })).toEqual({
      is_error: false,
      content: [".git/", "Z.md", "a.txt", "b.txt", "dangling", "file-link", "loop", "src/", "src-link/"].join(
        "\n",
      ),
    });
  });

  test("path defaults to the workspace root; subdirectories list their own entries", async () => {
    mkdirSync(join(root, "src/tools"), { recursive: true });
    writeFileSync(join(root, "src/main.ts"), "");
    expect((await list({})).content).toBe("src/");
    expect((await list({ path: "src" })).content).toBe("main.ts\ntools/");
    expect((await list({ path: "src/tools" })).content).toBe(`${join("src", "tools")} is an empty directory`);
  });

  test(`more than ${MAX_ENTRIES} entries: the first ${MAX_ENTRIES} and a marker with the rest`, async () => {
    // Hard links to one file: creating thousands of inodes is slow on some file systems.
    writeFileSync(join(root, "f00000"), "");
    for (let i = 1; i < MAX_ENTRIES + 5; i++)
      linkSync(join(root, "f00000"), join(root, `f${String(i).padStart(5, "0")}`));
    const shown = (await list({})).content.split("\n");
    expect(shown).toHaveLength(MAX_ENTRIES + 1);
    expect(shown[0]).toBe("f00000");
    expect(shown[MAX_ENTRIES - 1]).toBe(`f0${MAX_ENTRIES - 1}`);
    expect(shown[MAX_ENTRIES]).toBe("[… 5 more entries not shown]");
  });

  test("a file and a missing path are errors", async () => {
    writeFileSync(join(root, "a.txt"), "");
    expect(await list({ path: "a.txt" })).toEqual({
      is_error: true,
      content: "a.txt is a file, not a directory; use read_file to read it",
    });
    expect(await list({ path: "nope" })).toEqual({ is_error: true, content: "no such directory: nope" });
  });

  test("invalid arguments name the field", async () => {
    for (const input of [{ path: 5 }, { path: ["."] }, { path: null }]) {
      const result = await list(input);
      expect(result.is_error).toBe(true);
      expect(result.content).toStartWith("invalid arguments for list_files: path:");
    }
  });

  test("is read-only, with no required argument", () => {
    expect(listFilesTool.readOnly).toBe(true);
    expect(listFilesTool.spec.input_schema.required ?? []).toEqual([]);
  });
});

describe("list_files and the workspace guard", () => {
  test("../, absolute outside paths and escaping symlinks are refused without listing", async () => {
    symlinkSync(outside, join(root, "link-dir"));
    for (const path of ["..", "../outside", outside, "/etc", "link-dir"]) {
      const result = await list({ path });
      expect(result.is_error).toBe(true);
      expect(result.content).toContain("outside the workspace");
      expect(result.content).not.toContain("secret-name");
    }
  });

  test("absolute paths inside and workspace.allow dirs can be listed", async () => {
    writeFileSync(join(root, "in.txt"), "");
    expect((await list({ path: root })).content).toBe("in.txt");
    ctx = { ...ctx, allow: [outside] };
    expect((await list({ path: "../outside" })).content).toBe("secret-name.txt");
  });
});
