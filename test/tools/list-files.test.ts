import { describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listFilesTool, MAX_ENTRIES } from "../../src/tools/list-files.ts";
import { useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-list-files-", { "secret-name.txt": "" });

const list = (input: Record<string, unknown>) => listFilesTool.execute(input, ws.ctx);

describe("list_files", () => {
  test("one sorted entry per line; directories and links to them end with /", async () => {
    mkdirSync(join(ws.root, "src"));
    mkdirSync(join(ws.root, ".git"));
    writeFileSync(join(ws.root, "b.txt"), "");
    writeFileSync(join(ws.root, "a.txt"), "");
    writeFileSync(join(ws.root, "Z.md"), "");
    symlinkSync(join(ws.root, "src"), join(ws.root, "src-link"));
    symlinkSync(join(ws.root, "a.txt"), join(ws.root, "file-link"));
    symlinkSync(join(ws.root, "gone"), join(ws.root, "dangling"));
    symlinkSync("loop", join(ws.root, "loop"));
    expect(await list({ path: "." })).toEqual({
      is_error: false,
      content: [".git/", "Z.md", "a.txt", "b.txt", "dangling", "file-link", "loop", "src/", "src-link/"].join(
        "\n",
      ),
    });
  });

  test("path defaults to the workspace root; subdirectories list their own entries", async () => {
    mkdirSync(join(ws.root, "src/tools"), { recursive: true });
    writeFileSync(join(ws.root, "src/main.ts"), "");
    expect((await list({})).content).toBe("src/");
    expect((await list({ path: "src" })).content).toBe("main.ts\ntools/");
    expect((await list({ path: "src/tools" })).content).toBe(`${join("src", "tools")} is an empty directory`);
  });

  test(`more than ${MAX_ENTRIES} entries: the first ${MAX_ENTRIES} and a marker with the rest`, async () => {
    // Hard links to one file: creating thousands of inodes is slow on some file systems.
    writeFileSync(join(ws.root, "f00000"), "");
    for (let i = 1; i < MAX_ENTRIES + 5; i++)
      linkSync(join(ws.root, "f00000"), join(ws.root, `f${String(i).padStart(5, "0")}`));
    const shown = (await list({})).content.split("\n");
    expect(shown).toHaveLength(MAX_ENTRIES + 1);
    expect(shown[0]).toBe("f00000");
    expect(shown[MAX_ENTRIES - 1]).toBe(`f0${MAX_ENTRIES - 1}`);
    expect(shown[MAX_ENTRIES]).toBe("[… 5 more entries not shown]");
  });

  test("a file and a missing path are errors", async () => {
    writeFileSync(join(ws.root, "a.txt"), "");
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
    symlinkSync(ws.outside, join(ws.root, "link-dir"));
    for (const path of ["..", "../outside", ws.outside, "/etc", "link-dir"]) {
      const result = await list({ path });
      expect(result.is_error).toBe(true);
      expect(result.content).toContain("outside the workspace");
      expect(result.content).not.toContain("secret-name");
    }
  });

  test("absolute paths inside and workspace.allow dirs can be listed", async () => {
    writeFileSync(join(ws.root, "in.txt"), "");
    expect((await list({ path: ws.root })).content).toBe("in.txt");
    ws.ctx = { ...ws.ctx, allow: [ws.outside] };
    expect((await list({ path: "../outside" })).content).toBe("secret-name.txt");
  });
});
