import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { focusFrom } from "../../src/code-index/map-focus.ts";
import { fileRanks, renderRepoMap } from "../../src/code-index/repo-map.ts";
import { CodeIndex, type FileGraph, indexDbPath } from "../../src/code-index/store.ts";

/** The repo map of real code: this project's own src/, indexed with the real grammars. */

const SRC = realpathSync(join(import.meta.dir, "../../src"));
const dataDir = mkdtempSync(join(tmpdir(), "ion-map-real-"));
let index: CodeIndex;
let graph: FileGraph;

beforeAll(async () => {
  index = CodeIndex.open(indexDbPath({ ION_DATA_DIR: dataDir }, SRC), SRC);
  await index.update();
  graph = index.fileGraph();
}, 60_000);
afterAll(() => {
  index.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the repo map of this project's src/", () => {
  test("the error type most modules throw outranks the entry point nothing imports", () => {
    const ranks = fileRanks(graph, undefined);
    const rankOf = (path: string) => ranks[graph.files.indexOf(path)]!;
    expect(graph.files).toContain("errors.ts");
    expect(graph.files).toContain("main.ts");
    expect(rankOf("errors.ts")).toBeGreaterThan(rankOf("main.ts") * 5);
    // errors.ts is among the most central tenth of the files.
    const above = [...ranks].filter((rank) => rank > rankOf("errors.ts")).length;
    expect(above).toBeLessThan(graph.files.length / 10);
  });

  test.each([100, 1000, 8000])("a %d-token map stays within its budget and shows most of it", (tokens) => {
    const map = renderRepoMap(graph, { tokens, heading: "Repository map" });
    expect(map.text.length / 4).toBeLessThanOrEqual(tokens);
    expect(map.text.length / 4).toBeGreaterThan(tokens * 0.7);
    expect(map.files).toBeGreaterThan(0);
  });

  test("a question naming a file and a function brings them to the top of a small map", () => {
    const plain = renderRepoMap(graph, { tokens: 300 }).text;
    expect(plain).not.toContain("walkFiles");
    const focus = focusFrom("how does walkFiles in tools/walk.ts skip ignored directories?", graph);
    expect(focus.files).toEqual(["tools/walk.ts"]);
    expect(focus.names).toContain("walkFiles");
    const leaning = renderRepoMap(graph, { tokens: 300, focus }).text;
    expect(leaning.split("\n")[0]).toBe("tools/walk.ts");
    expect(leaning).toContain("export function walkFiles(");
  });

  test("a 1 000-token map of a warm index takes well under 100 ms", () => {
    index.fileGraph(); // warm: the graph is cached until the index changes
    const started = performance.now();
    for (let i = 0; i < 5; i++) renderRepoMap(index.fileGraph(), { tokens: 1000 });
    expect((performance.now() - started) / 5).toBeLessThan(100);
  });
});
