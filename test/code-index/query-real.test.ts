import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CodeIndex, indexDbPath, type UpdateSummary } from "../../src/code-index/store.ts";

/** Real grammars on real code: this project's own src/, and the parser's Python, Rust and Go fixture trees. */

const SRC = realpathSync(join(import.meta.dir, "../../src"));
const FIXTURES = realpathSync(join(import.meta.dir, "fixtures"));

const dataDir = mkdtempSync(join(tmpdir(), "ion-index-real-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function openIndex(root: string): CodeIndex {
  return CodeIndex.open(indexDbPath({ ION_DATA_DIR: dataDir }, root), root);
}

/** The 1-based line of the first line of `path` (below `root`) that contains `text`. */
function lineOf(root: string, path: string, text: string): number {
  const index = readFileSync(join(root, path), "utf8")
    .split("\n")
    .findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`${path} has no line with ${text}`);
  return index + 1;
}

describe("this project's src/", () => {
  let index: CodeIndex;
  let built: UpdateSummary;
  beforeAll(async () => {
    index = openIndex(SRC);
    built = await index.update();
  }, 60_000);
  afterAll(() => index.close());

  test("every TypeScript file is parsed; nothing is skipped", () => {
    expect(built.files).toBeGreaterThan(300);
    expect(built.parsed).toBe(built.files);
    expect(built.languages.typescript).toBe(built.files);
    expect(Object.values(built.skipped).every((n) => n === 0)).toBe(true);
  });

  test("definitions by exact name, with kind, line range and signature", () => {
    const line = lineOf(SRC, "tools/walk.ts", "export function walkFiles(");
    expect(index.definitions("walkFiles", { limit: 5 })).toEqual([
      {
        path: "tools/walk.ts",
        line,
        endLine: line + 2,
        kind: "function",
        name: "walkFiles",
        signature: "export function walkFiles(dir: string, options: WalkOptions): FileWalk {",
      },
    ]);
    expect(index.definitions("FileWalk", { limit: 5 })).toMatchObject([
      { path: "tools/walk.ts", line: lineOf(SRC, "tools/walk.ts", "export class FileWalk"), kind: "class" },
    ]);
  });

  test("an outline lists a class, then its methods with the class as parent, in line order", () => {
    const outline = index.outline("tools/walk.ts");
    const fileWalk = outline.findIndex((hit) => hit.name === "FileWalk");
    expect(fileWalk).toBeGreaterThanOrEqual(0);
    // The tags query names methods by identifier: `constructor` and `[Symbol.asyncIterator]` are not among them.
    const methods = ["outerLevels", "open", "readRules", "isLinkedFileInside"];
    expect(outline.slice(fileWalk + 1, fileWalk + 1 + methods.length)).toMatchObject(
      methods.map((name) => ({
        name,
        kind: "method",
        parent: "FileWalk",
        line: lineOf(SRC, "tools/walk.ts", `private async ${name}(`),
      })),
    );
    const lines = outline.map((hit) => hit.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  test("references: who calls walkFiles, from inside which definition", () => {
    const found = index.findReferences("walkFiles", { limit: 50 });
    const inGlob = found.hits.find((hit) => hit.path === "tools/glob.ts");
    expect(inGlob).toMatchObject({ kind: "call", line: lineOf(SRC, "tools/glob.ts", "walkFiles(start") });
    expect(inGlob?.enclosing?.name).toBeString();
    expect(found.hits.map((hit) => hit.path)).toContain("code-index/update.ts");
  });

  test("a fuzzy lookup finds names by their words", () => {
    const found = index.findDefinitions("walkfil", { limit: 10 });
    expect(found.match).toBe("fuzzy");
    expect(found.hits.map((hit) => hit.name)).toContain("walkFiles");
    expect(index.findDefinitions("linked inside", { limit: 10 }).hits.map((hit) => hit.name)).toEqual([
      "isLinkedFileInside",
    ]);
  });

  test("the file graph links a caller's file to the file defining what it calls", () => {
    const graph = index.fileGraph();
    expect(graph.files).toContain("tools/walk.ts");
    const edge = graph.edges.find(([from, to]) => from === "tools/glob.ts" && to === "tools/walk.ts");
    expect(edge?.[2]).toBeGreaterThanOrEqual(1);
    expect(index.fileGraph()).toBe(graph); // cached while the index does not change
  });

  test("a second update finds nothing to do", async () => {
    expect(await index.update()).toMatchObject({ parsed: 0, removed: 0, files: built.files });
  });
});

describe("the Python, Rust and Go fixtures", () => {
  let index: CodeIndex;
  let built: UpdateSummary;
  beforeAll(async () => {
    index = openIndex(FIXTURES);
    built = await index.update({ maxBytes: 8 * 1024 });
  });
  afterAll(() => index.close());

  test("each language's files are stored; not UTF-8 and too large are skipped and counted", () => {
    expect(built.languages).toMatchObject({ python: 2, rust: 2, go: 2 }); // shapes.py and broken.py
    expect(built.skipped).toMatchObject({ "not-utf8": 1, "too-large": 1 });
  });

  test("definitions across languages, methods with their parents", () => {
    const at = (path: string, text: string) => ({ path, line: lineOf(FIXTURES, path, text) });
    expect(index.definitions("Circle", { limit: 5 })).toMatchObject([
      { ...at("python/shapes.py", "class Circle"), kind: "class" },
    ]);
    expect(index.definitions("area", { limit: 5 })).toMatchObject([
      { ...at("python/shapes.py", "def area"), parent: "Shape" },
      { path: "python/shapes.py", parent: "Circle" },
    ]);
    expect(index.definitions("Machine", { limit: 5 })).toMatchObject([
      { ...at("rust/src/lib.rs", "pub struct Machine"), kind: "class" },
    ]);
    expect(index.definitions("pop_int", { limit: 5 })).toMatchObject([
      { ...at("rust/src/ops.rs", "fn pop_int"), kind: "function" },
    ]);
    expect(index.definitions("NewStore", { limit: 5 })).toMatchObject([
      { ...at("go/store.go", "func NewStore"), kind: "function" },
    ]);
  });

  test("files with syntax errors keep the definitions before and after the error", () => {
    expect(index.outline("python/broken.py").map((hit) => hit.name)).toEqual(
      expect.arrayContaining(["before", "After", "after"]),
    );
    expect(index.outline("go/broken.go").map((hit) => hit.name)).toEqual(
      expect.arrayContaining(["Reset", "Count"]),
    );
  });

  test("references across files make graph edges (ops.rs uses lib.rs's Value)", () => {
    expect(index.findReferences("pop_int", { limit: 5 }).hits[0]).toMatchObject({
      path: "rust/src/ops.rs",
      enclosing: { name: "eval" },
    });
    const edge = index
      .fileGraph()
      .edges.find(([from, to]) => from === "rust/src/ops.rs" && to === "rust/src/lib.rs");
    expect(edge).toBeDefined();
  });
});
