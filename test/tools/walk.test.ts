import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type FileWalk, type WalkOptions, walkFiles, walkNotes } from "../../src/tools/walk.ts";

let root: string;
let outside: string;

/** Writes files (creating parents) below `base`. */
function tree(base: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(base, rel)), { recursive: true });
    writeFileSync(join(base, rel), content);
  }
}

async function collect(walk: FileWalk): Promise<string[]> {
  const rels: string[] = [];
  for await (const file of walk) rels.push(file.rel);
  return rels;
}

const options = (extra: Partial<WalkOptions> = {}): WalkOptions => ({ scope: { root, allow: [] }, ...extra });

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ion-walk-")));
  outside = realpathSync(mkdtempSync(join(tmpdir(), "ion-walk-outside-")));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe("walkFiles", () => {
  beforeEach(() => {
    tree(root, {
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
    expect(await collect(walkFiles(root, options()))).toEqual([
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
    const walk = walkFiles(join(root, "sub"), options());
    expect(await collect(walk)).toEqual([".gitignore", "b.ts", "deeper/d.ts", "keep.log"]);
    expect((await collect(walkFiles(join(root, "sub", "deeper"), options()))).sort()).toEqual(["d.ts"]);
  });

  test("rules of the enclosing git work tree apply when the workspace is below it", async () => {
    const workspace = join(root, "sub", "deeper");
    const walk = walkFiles(workspace, { scope: { root: workspace, allow: [] } });
    expect(await collect(walk)).toEqual(["d.ts"]);
  });

  test("a directory named explicitly is walked even if ignored; its own rules still apply", async () => {
    tree(root, { "build/.gitignore": "*.map\n", "build/out.js.map": "map" });
    expect(await collect(walkFiles(join(root, "build"), options()))).toEqual([".gitignore", "out.js"]);
  });

  test("without a git repository, .gitignore files still apply", async () => {
    rmSync(join(root, ".git"), { recursive: true });
    const rels = await collect(walkFiles(root, options()));
    expect(rels).toContain("secret.txt"); // info/exclude belonged to the repository
    expect(rels).not.toContain("app.log");
  });

  test("a .gitignore that un-ignores everything below a directory works within one file", async () => {
    tree(root, {
      "only/.gitignore": "*\n!*/\n!*.md\n",
      "only/a.md": "",
      "only/b.txt": "",
      "only/in/c.md": "",
    });
    expect(await collect(walkFiles(join(root, "only"), options()))).toEqual(["a.md", "in/c.md"]);
  });
});

describe("walkFiles and symlinks", () => {
  test("does not follow symlinked directories; yields symlinked files only when inside the workspace", async () => {
    tree(root, { "real/a.txt": "a", "target.txt": "t" });
    tree(outside, { "secret.txt": "s", "dir/inner.txt": "i" });
    symlinkSync(join(root, "real"), join(root, "link-to-dir"));
    symlinkSync(root, join(root, "real", "loop"));
    symlinkSync(join(root, "target.txt"), join(root, "link-inside.txt"));
    symlinkSync(join(outside, "secret.txt"), join(root, "link-outside.txt"));
    symlinkSync(join(outside, "dir"), join(root, "link-outside-dir"));
    symlinkSync(join(root, "missing.txt"), join(root, "broken.txt"));
    const walk = walkFiles(root, options());
    const files: { path: string; rel: string }[] = [];
    for await (const file of walk) files.push(file);
    expect(files.map((f) => f.rel)).toEqual(["link-inside.txt", "real/a.txt", "target.txt"]);
    expect(files[0]!.path).toBe(join(root, "link-inside.txt")); // the link's own path
  });

  test("a symlinked file reaching an allowed directory is yielded", async () => {
    tree(outside, { "shared.txt": "s" });
    symlinkSync(join(outside, "shared.txt"), join(root, "shared.txt"));
    const walk = walkFiles(root, { scope: { root, allow: [outside] } });
    expect(await collect(walk)).toEqual(["shared.txt"]);
  });
});

describe("walkFiles limits", () => {
  beforeEach(() => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 10; d++) for (let f = 0; f < 5; f++) files[`d${d}/f${f}.txt`] = "x";
    tree(root, files);
  });

  test("stops after maxEntries and says so", async () => {
    const walk = walkFiles(root, options({ maxEntries: 25 }));
    const rels = await collect(walk);
    expect(walk.limitReached).toBe(true);
    expect(walk.visited).toBe(25);
    expect(rels.length).toBeLessThan(25);
    expect(walkNotes(walk, root).join("\n")).toContain("search stopped after visiting 25 entries");
  });

  test("a complete walk reports no limit", async () => {
    const walk = walkFiles(root, options());
    expect((await collect(walk)).length).toBe(50);
    expect(walk.limitReached).toBe(false);
    expect(walk.visited).toBe(60);
    expect(walkNotes(walk, root)).toEqual([]);
  });

  test("abort stops the walk promptly", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const run = async () => {
      for await (const file of walkFiles(root, options({ signal: controller.signal }))) {
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
    await expect(collect(walkFiles(root, options({ signal: controller.signal })))).rejects.toThrow();
  });

  test("an unreadable start directory is reported, not thrown", async () => {
    const walk = walkFiles(join(root, "gone"), options());
    expect(await collect(walk)).toEqual([]);
    expect(walk.unreadable).toEqual([join(root, "gone")]);
    expect(walkNotes(walk, root)).toEqual(["[could not read 1: gone]"]);
  });
});
