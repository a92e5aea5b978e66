import { describe, expect, test } from "bun:test";
import { focusFrom } from "../../src/code-index/map-focus.ts";
import { pageRank } from "../../src/code-index/pagerank.ts";
import { fileRanks, type MapSymbol, type RepoGraph, renderRepoMap } from "../../src/code-index/repo-map.ts";

/** A graph from `file → files it references` and each file's definitions' names (functions, in line order). */
function graphOf(files: Record<string, { uses?: string[]; defines?: string[] }>): RepoGraph {
  const definitionsByFile = new Map<string, MapSymbol[]>();
  const edges: [string, string, number][] = [];
  for (const [path, { uses = [], defines = [] }] of Object.entries(files)) {
    definitionsByFile.set(
      path,
      defines.map((name, i) => ({
        name,
        kind: "function",
        line: i * 10 + 1,
        signature: `export function ${name}(input: string): string {`,
      })),
    );
    for (const target of uses) edges.push([path, target, 1]);
  }
  return { files: Object.keys(files), edges, definitionsByFile };
}

/** A project of `count` files: every file uses a few of a small core, the core uses nothing. */
function bigProject(count: number, perFile = 12): RepoGraph {
  const files: Record<string, { uses?: string[]; defines?: string[] }> = {};
  for (let i = 0; i < count; i++) {
    const path = i < 5 ? `src/core/core${i}.ts` : `src/feature${i % 17}/module${i}.ts`;
    const defines = Array.from({ length: perFile }, (_, k) => `${i < 5 ? "core" : "feature"}${i}Name${k}`);
    files[path] = {
      defines,
      uses: i < 5 ? [] : [`src/core/core${i % 5}.ts`, `src/core/core${(i + 1) % 5}.ts`],
    };
  }
  return graphOf(files);
}

describe("pageRank", () => {
  test("a node many point to outranks one nothing points to, and ranks sum to 1", () => {
    const ranks = pageRank(4, [
      { from: 0, to: 3, weight: 1 },
      { from: 1, to: 3, weight: 1 },
      { from: 2, to: 3, weight: 2 },
    ]);
    expect(ranks[3]!).toBeGreaterThan(ranks[0]!);
    expect(ranks[3]!).toBeGreaterThan(ranks[2]!);
    expect([...ranks].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
  });

  test("personalisation moves rank toward the chosen node; self-edges are ignored", () => {
    const edges = [
      { from: 0, to: 1, weight: 1 },
      { from: 2, to: 2, weight: 5 },
    ];
    const plain = pageRank(3, edges);
    const leaning = pageRank(3, edges, { personalization: [0, 0, 1] });
    expect(plain[2]!).toBeCloseTo(plain[0]!, 9);
    expect(leaning[2]!).toBeGreaterThan(plain[2]!);
    expect(leaning[2]!).toBeGreaterThan(leaning[1]!);
  });

  test("an edge to a node that does not exist is a bug, not a silent drop", () => {
    expect(() => pageRank(2, [{ from: 0, to: 5, weight: 1 }])).toThrow(RangeError);
    expect(pageRank(0, [])).toHaveLength(0);
  });
});

describe("the repo map", () => {
  const graph = graphOf({
    "src/util/retry.ts": { defines: ["withRetry", "backoff"] },
    "src/unused.ts": { defines: ["lonely"] },
    "src/a.ts": { uses: ["src/util/retry.ts"], defines: ["alpha"] },
    "src/b.ts": { uses: ["src/util/retry.ts"], defines: ["bravo"] },
    "src/c.ts": { uses: ["src/util/retry.ts", "src/a.ts"], defines: ["charlie"] },
  });

  test("a file many others import ranks above one nothing imports, first in the map", () => {
    const ranks = fileRanks(graph, undefined);
    const rankOf = (path: string) => ranks[graph.files.indexOf(path)]!;
    expect(rankOf("src/util/retry.ts")).toBeGreaterThan(rankOf("src/unused.ts"));
    expect(rankOf("src/util/retry.ts")).toBeGreaterThan(rankOf("src/a.ts"));
    const map = renderRepoMap(graph, { tokens: 1000 });
    expect(map.text.split("\n")[0]).toBe("src/util/retry.ts");
    expect(map.text).toContain(
      "src/util/retry.ts\n  1: export function withRetry(input: string): string {\n",
    );
    expect(map.text.indexOf("src/util/retry.ts")).toBeLessThan(map.text.indexOf("src/unused.ts"));
    expect(map).toMatchObject({ files: 5, symbols: 6 });
  });

  test("files and names the conversation mentions move up", () => {
    const before = renderRepoMap(graph, { tokens: 1000 }).text.split("\n")[0];
    expect(before).toBe("src/util/retry.ts");
    const byFile = renderRepoMap(graph, { tokens: 1000, focus: { files: ["src/unused.ts"] } });
    expect(byFile.text.split("\n")[0]).toBe("src/unused.ts");
    const byName = renderRepoMap(graph, { tokens: 1000, focus: { names: ["charlie"] } });
    expect(byName.text.split("\n")[0]).toBe("src/c.ts");
  });

  test("a mentioned name is shown before its file's other definitions when the budget is tight", () => {
    const tight = renderRepoMap(graph, { tokens: 20, focus: { names: ["backoff"] } });
    expect(tight.text).toBe("src/util/retry.ts\n  11: export function backoff(input: string): string {");
  });

  test.each([100, 1000, 8000])(
    "stays within a budget of %d tokens (chars / 4) and fills most of it",
    (tokens) => {
      const project = bigProject(2000);
      const heading = "Repository map: the most referenced files first.";
      const map = renderRepoMap(project, { tokens, heading });
      expect(map.text.length / 4).toBeLessThanOrEqual(tokens);
      expect(map.text.length / 4).toBeGreaterThan(tokens * 0.8);
      expect(map.text.startsWith(`${heading}\nsrc/core/`)).toBe(true);
      // Every file shown has its header and at least one definition.
      expect(map.symbols).toBeGreaterThanOrEqual(map.files);
    },
  );

  test("a budget too small for one line gives an empty map, not a cut line", () => {
    expect(renderRepoMap(graph, { tokens: 3 })).toEqual({ text: "", files: 0, symbols: 0 });
    expect(renderRepoMap(graphOf({}), { tokens: 1000 })).toEqual({ text: "", files: 0, symbols: 0 });
  });

  test("methods are indented under their class, long signatures are cut, local helpers left out", () => {
    const long = `export function wide(${"a: string, ".repeat(30)}) {`;
    const symbols: MapSymbol[] = [
      { name: "Store", kind: "class", line: 3, signature: "export class Store {" },
      { name: "get", kind: "method", line: 7, signature: "get(key: string) {", parent: "Store" },
      { name: "wide", kind: "function", line: 20, signature: long },
      // A helper inside a function is not shown.
      { name: "inner", kind: "function", line: 21, signature: "const inner = () => {", parent: "wide" },
    ];
    const map = renderRepoMap(
      { files: ["store.ts"], edges: [], definitionsByFile: new Map([["store.ts", symbols]]) },
      { tokens: 1000 },
    );
    const lines = map.text.split("\n");
    expect(lines.slice(0, 3)).toEqual(["store.ts", "  3: export class Store {", "  7:   get(key: string) {"]);
    expect(lines[3]!.length).toBe("  20: ".length + 120);
    expect(lines[3]!.endsWith("…")).toBe(true);
    expect(lines).toHaveLength(4);
  });
});

describe("focus from a conversation", () => {
  const graph = graphOf({
    "src/net/http.ts": { defines: ["retryRequest", "run"] },
    "src/cli/run.ts": { defines: ["run"] },
    "src/index.ts": { defines: ["main"] },
    "lib/index.ts": { defines: ["main"] },
  });

  test("paths, unique file names and defined names are found; short and unknown words are not", () => {
    const focus = focusFrom("Why does retryRequest in ./src/net/http.ts loop? see run.ts and foo.ts", graph);
    expect(focus.files).toEqual(["src/net/http.ts", "src/cli/run.ts"]);
    expect(focus.names).toEqual(["retryRequest"]);
  });

  test("an absolute path finds the project's file by its tail", () => {
    expect(focusFrom("look at /home/u/proj/src/index.ts please", graph).files).toEqual(["src/index.ts"]);
  });
});
