import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CodeIndex, indexDbPath } from "../../src/code-index/store.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-index-update-");
const opened: CodeIndex[] = [];
afterEach(() => {
  for (const index of opened.splice(0)) index.close();
});

/** Files of the test project; a `Uint8Array` is written as is. */
const PROJECT: Record<string, string | Uint8Array> = {
  ".gitignore": "ignored/\n",
  "src/a.ts": "export function alpha(): number {\n  return beta();\n}\n",
  "src/b.ts": "export class Beta {\n  run(): void {}\n}\nexport function beta(): number {\n  return 1;\n}\n",
  "lib/c.py": "def gamma():\n    return 3\n",
  "ignored/x.ts": "export function ignoredThing() {}\n",
  "README.md": "# not code\n",
  "src/bin.ts": new Uint8Array([0x65, 0x78, 0, 0x01, 0x02]),
  "lib/latin1.py": new Uint8Array([0x23, 0x20, 0xe9, 0x0a]),
  "src/big.ts": `export const big = ${JSON.stringify("x".repeat(3000))};\n`,
};

/** Bytes above which a file is skipped as too large in these tests (src/big.ts is over it). */
const MAX_BYTES = 2000;

function write(root: string, path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

function project(): { root: string; index: CodeIndex } {
  const base = tempDir();
  const root = join(base, "project");
  for (const [path, content] of Object.entries(PROJECT)) write(root, path, content);
  const real = realpathSync(root);
  const index = CodeIndex.open(indexDbPath({ ION_DATA_DIR: join(base, "data") }, real), real);
  opened.push(index);
  return { root: real, index };
}

const update = (index: CodeIndex, options: { paths?: string[] } = {}) =>
  index.update({ ...options, maxBytes: MAX_BYTES });

/** Moves a file's mtime so a change is seen even within the file system's timestamp granularity. */
function bumpMtime(root: string, path: string, seconds: number): void {
  const when = new Date(Date.now() + seconds * 1000);
  utimesSync(join(root, path), when, when);
}

describe("an update", () => {
  test("the first parses every source file the walk finds, skipping what the parser cannot take", async () => {
    const { index } = project();
    const summary = await update(index);
    expect(summary.parsedPaths.sort()).toEqual(["lib/c.py", "src/a.ts", "src/b.ts"]);
    expect(summary).toMatchObject({
      parsed: 3,
      removed: 0,
      files: 3,
      symbols: 5,
      languages: { typescript: 2, python: 1, tsx: 0, javascript: 0, rust: 0, go: 0 },
      skipped: { binary: 1, "not-utf8": 1, "too-large": 1, unsupported: 0 },
      unreadable: [],
      limitReached: false,
    });
    expect(summary.references).toBeGreaterThan(0);
    expect(index.definitions("ignoredThing", { limit: 5 })).toEqual([]); // .gitignore'd
    expect(index.definitions("beta", { limit: 5 })).toMatchObject([
      { path: "src/b.ts", line: 4, kind: "function" },
    ]);
    expect(index.status()).toMatchObject({ files: 3, symbols: 5, updatedAt: expect.any(Number) });
  });

  test("parses again exactly the files edited, added or renamed; drops deleted ones; a touch alone parses nothing", async () => {
    const { root, index } = project();
    await update(index);
    expect(await update(index)).toMatchObject({ parsed: 0, removed: 0, parsedPaths: [] });

    write(root, "src/a.ts", "export function alpha2(): number {\n  return 2;\n}\n");
    bumpMtime(root, "src/a.ts", 5);
    expect(await update(index)).toMatchObject({ parsed: 1, parsedPaths: ["src/a.ts"], removed: 0 });
    expect(index.definitions("alpha", { limit: 5 })).toEqual([]);
    expect(index.definitions("alpha2", { limit: 5 })).toHaveLength(1);

    bumpMtime(root, "src/b.ts", 10); // same bytes, new mtime: hashed, not parsed
    expect(await update(index)).toMatchObject({ parsed: 0, removed: 0 });
    expect(await update(index)).toMatchObject({ parsed: 0, removed: 0 });

    write(root, "src/d.ts", "export interface Delta { x: number }\n");
    expect(await update(index)).toMatchObject({ parsed: 1, parsedPaths: ["src/d.ts"], removed: 0 });

    rmSync(join(root, "lib/c.py"));
    expect(await update(index)).toMatchObject({ parsed: 0, removed: 1, files: 3 });
    expect(index.definitions("gamma", { limit: 5 })).toEqual([]);

    renameSync(join(root, "src/d.ts"), join(root, "src/e.ts"));
    expect(await update(index)).toMatchObject({ parsed: 1, parsedPaths: ["src/e.ts"], removed: 1 });
    expect(index.outline("src/d.ts")).toEqual([]);
    expect(index.outline("src/e.ts").map((hit) => hit.name)).toEqual(["Delta"]);

    write(root, "src/big.ts", "export const big = 1;\n"); // no longer too large
    expect(await update(index)).toMatchObject({ parsedPaths: ["src/big.ts"], skipped: { "too-large": 0 } });
  });

  test("the cached file graph stays while only mtimes move and is read again after an edit, by any process", async () => {
    const { root, index } = project();
    await update(index);
    const graph = index.fileGraph();
    expect(graph.edges).toEqual([["src/a.ts", "src/b.ts", 1]]); // alpha calls beta
    bumpMtime(root, "src/a.ts", 5);
    await update(index);
    expect(index.fileGraph()).toBe(graph);

    // Another process (another CodeIndex on the same file) removes the call.
    const other = CodeIndex.open(index.path, root);
    opened.push(other);
    write(root, "src/a.ts", "export function alpha(): number {\n  return 1;\n}\n");
    bumpMtime(root, "src/a.ts", 10);
    expect(await other.update({ maxBytes: MAX_BYTES })).toMatchObject({ parsedPaths: ["src/a.ts"] });
    expect(index.fileGraph().edges).toEqual([]);
  });

  test("a file newly ignored by .gitignore is dropped", async () => {
    const { root, index } = project();
    await update(index);
    write(root, ".gitignore", "ignored/\nlib/\n");
    expect(await update(index)).toMatchObject({ parsed: 0, removed: 2 }); // c.py and the skipped latin1.py
    expect(index.definitions("gamma", { limit: 5 })).toEqual([]);
  });

  test("with paths, only those files are looked at: edited, deleted or new", async () => {
    const { root, index } = project();
    await update(index);
    write(root, "src/a.ts", "export function alphaEdited() {}\n");
    write(root, "src/b.ts", "export function betaEdited() {}\n");
    expect(
      await update(index, { paths: ["src/a.ts", join(root, "README.md"), "/elsewhere/x.ts"] }),
    ).toMatchObject({
      parsed: 1,
      parsedPaths: ["src/a.ts"],
    });
    expect(index.definitions("betaEdited", { limit: 5 })).toEqual([]);
    expect(await update(index)).toMatchObject({ parsed: 1, parsedPaths: ["src/b.ts"] });

    rmSync(join(root, "src/a.ts"));
    write(root, "src/new.ts", "export function fresh() {}\n");
    expect(await update(index, { paths: [join(root, "src/a.ts"), "src/new.ts"] })).toMatchObject({
      parsed: 1,
      parsedPaths: ["src/new.ts"],
      removed: 1,
    });
    expect(index.definitions("fresh", { limit: 5 })).toHaveLength(1);
    expect(index.definitions("alphaEdited", { limit: 5 })).toEqual([]);
  });

  test("a named file that resolves outside the project is not read: counted as unreadable, not indexed", async () => {
    const { root, index } = project();
    const outside = join(dirname(root), "outside.ts");
    writeFileSync(outside, "export function secretThing() {}\n");
    symlinkSync(outside, join(root, "src/link.ts"));
    expect(await update(index, { paths: ["src/link.ts"] })).toMatchObject({
      parsed: 0,
      unreadable: ["src/link.ts"],
    });
    // The walk never follows it either.
    expect((await update(index)).parsedPaths).not.toContain("src/link.ts");
    expect(index.definitions("secretThing", { limit: 5 })).toEqual([]);
  });

  test("reports progress over the files to look at, from 0 to all of them", async () => {
    const { index } = project();
    const calls: [number, number][] = [];
    await index.update({ maxBytes: MAX_BYTES, onProgress: (done, total) => calls.push([done, total]) });
    // a, b, c, bin, latin1, big: every file with a grammar whose stat is new.
    expect(calls[0]).toEqual([0, 6]);
    expect(calls.at(-1)).toEqual([6, 6]);
    expect(calls.map(([done]) => done)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  test("an aborted update stops with the signal's reason and leaves a consistent index", async () => {
    const { index } = project();
    const controller = new AbortController();
    const run = index.update({
      onProgress: (done) => {
        if (done === 1) controller.abort(new Error("stop"));
      },
      signal: controller.signal,
    });
    expect(run).rejects.toThrow("stop");
    await run.catch(() => undefined);
    expect((await update(index)).files).toBe(3);
  });
});
