import { beforeEach, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { type FileWalk, type WalkOptions, walkFiles, walkNotes } from "../../src/tools/walk.ts";
import { tree, useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-walk-", {});

async function collect(walk: FileWalk): Promise<string[]> {
  const rels: string[] = [];
  for await (const file of walk) rels.push(file.rel);
  return rels;
}

const options = (extra: Partial<WalkOptions> = {}): WalkOptions => ({
  scope: { root: ws.root, allow: [] },
  ...extra,
});

describe("walkFiles", () => {
  beforeEach(() => {
    tree(ws.root, {
      ".gitignore": "*.log\nbuild/\n",
      ".git/HEAD": "ref: refs/heads/main\n",
      ".git/objects/ab/cdef": "blob",
      ".git/info/exclude": "secret.txt\n",
      "a.ts": "a",
      "app.log": "log",
      "build/out.js": "js",
      "secret.txt": "s",
      "c.tmp": "tmp",
      "node_modules/pkg/index.js": "module",
      "sub/.gitignore": "!keep.log\ngen/\n*.tmp\n",
      "sub/b.ts": "b",
      "sub/c.tmp": "tmp",
      "sub/drop.log": "log",
      "sub/keep.log": "log",
      "sub/gen/x.ts": "x",
      "sub/deeper/d.ts": "d",
      "sub/deeper/e.log": "log",
    });
  });

  test("honours root and nested .gitignore (negations too), info/exclude, and skips .git", async () => {
    expect(await collect(walkFiles(ws.root, options()))).toEqual([
      ".gitignore",
      "a.ts",
      "c.tmp",
      "node_modules/pkg/index.js",
      "sub/.gitignore",
      "sub/b.ts",
      "sub/deeper/d.ts",
      "sub/keep.log",
    ]);
  });

  test("a walked subdirectory is judged by the .gitignore files above it", async () => {
    const walk = walkFiles(join(ws.root, "sub"), options());
    expect(await collect(walk)).toEqual([".gitignore", "b.ts", "deeper/d.ts", "keep.log"]);
    expect((await collect(walkFiles(join(ws.root, "sub", "deeper"), options()))).sort()).toEqual(["d.ts"]);
  });

  test("rules of the enclosing git work tree apply when the workspace is below it", async () => {
    const workspace = join(ws.root, "sub", "deeper");
    const walk = walkFiles(workspace, { scope: { root: workspace, allow: [] } });
    expect(await collect(walk)).toEqual(["d.ts"]);
  });

  test("a directory named explicitly is walked even if ignored; its own rules still apply", async () => {
    tree(ws.root, { "build/.gitignore": "*.map\n", "build/out.js.map": "map" });
    expect(await collect(walkFiles(join(ws.root, "build"), options()))).toEqual([".gitignore", "out.js"]);
  });

  test("without a git repository, .gitignore files still apply", async () => {
    rmSync(join(ws.root, ".git"), { recursive: true });
    const rels = await collect(walkFiles(ws.root, options()));
    expect(rels).toContain("secret.txt"); // info/exclude belonged to the repository
    expect(rels).not.toContain("app.log");
  });

  test("a .gitignore that un-ignores everything below a directory works within one file", async () => {
    tree(ws.root, {
      "only/.gitignore": "*\n!*/\n!*.md\n",
      "only/a.md": "",
      "only/b.txt": "",
      "only/in/c.md": "",
    });
    expect(await collect(walkFiles(join(ws.root, "only"), options()))).toEqual(["a.md", "in/c.md"]);
  });
});

describe("walkFiles and symlinks", () => {
  test("does not follow symlinked directories; yields symlinked files only when inside the workspace", async () => {
    tree(ws.root, { "real/a.txt": "a", "target.txt": "t" });
    tree(ws.outside, { "secret.txt": "s", "dir/inner.txt": "i" });
    symlinkSync(join(ws.root, "real"), join(ws.root, "link-to-dir"));
    symlinkSync(ws.root, join(ws.root, "real", "loop"));
    symlinkSync(join(ws.root, "target.txt"), join(ws.root, "link-inside.txt"));
    symlinkSync(join(ws.outside, "secret.txt"), join(ws.root, "link-outside.txt"));
    symlinkSync(join(ws.outside, "dir"), join(ws.root, "link-outside-dir"));
    symlinkSync(join(ws.root, "missing.txt"), join(ws.root, "broken.txt"));
    const walk = walkFiles(ws.root, options());
    const files: { path: string; rel: string }[] = [];
    for await (const file of walk) files.push(file);
    expect(files.map((f) => f.rel)).toEqual(["link-inside.txt", "real/a.txt", "target.txt"]);
    expect(files[0]!.path).toBe(join(ws.root, "link-inside.txt")); // the link's own path
  });

  test("a symlinked file reaching an allowed directory is yielded", async () => {
    tree(ws.outside, { "shared.txt": "s" });
    symlinkSync(join(ws.outside, "shared.txt"), join(ws.root, "shared.txt"));
    const walk = walkFiles(ws.root, { scope: { root: ws.root, allow: [ws.outside] } });
    expect(await collect(walk)).toEqual(["shared.txt"]);
  });
});

describe("walkFiles limits", () => {
  beforeEach(() => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 10; d++) for (let f = 0; f < 5; f++) files[`d${d}/f${f}.txt`] = "x";
    tree(ws.root, files);
  });

  test("stops after maxEntries and says so", async () => {
    const walk = walkFiles(ws.root, options({ maxEntries: 25 }));
    const rels = await collect(walk);
    expect(walk.limitReached).toBe(true);
    expect(walk.visited).toBe(25);
    expect(rels.length).toBeLessThan(25);
    expect(walkNotes(walk, ws.root).join("\n")).toContain("search stopped after visiting 25 entries");
  });

  test("a complete walk reports no limit", async () => {
    const walk = walkFiles(ws.root, options());
    expect((await collect(walk)).length).toBe(50);
    expect(walk.limitReached).toBe(false);
    expect(walk.visited).toBe(60);
    expect(walkNotes(walk, ws.root)).toEqual([]);
  });

  test("abort stops the walk promptly", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const run = async () => {
      for await (const file of walkFiles(ws.root, options({ signal: controller.signal }))) {
        seen.push(file.rel);
        if (seen.length === 3) controller.abort();
      }
    };
    await expect(run()).rejects.toThrow();
    expect(seen.length).toBe(3);
  });

  test("an already aborted signal yields nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(collect(walkFiles(ws.root, options({ signal: controller.signal })))).rejects.toThrow();
  });

  test("an unreadable start directory is reported, not thrown", async () => {
    const walk = walkFiles(join(ws.root, "gone"), options());
    expect(await collect(walk)).toEqual([]);
    expect(walk.unreadable).toEqual([join(ws.root, "gone")]);
    expect(walkNotes(walk, ws.root)).toEqual(["[could not read 1: gone]"]);
  });
});
