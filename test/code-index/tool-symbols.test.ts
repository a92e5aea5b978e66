import { describe, expect, test } from "bun:test";
import { rmSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { symbolsToolFor } from "../../src/tools/symbols.ts";
import { writeFileTool } from "../../src/tools/write-file.ts";
import { tree, useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-symbols-", {});

/** The tool over an index in this test's own data directory (beside the workspace). */
const symbols = (input: Record<string, unknown>) =>
  symbolsToolFor({ env: { ION_DATA_DIR: join(ws.base, "data"), HOME: ws.base } }).execute(input, ws.ctx);

const RETRY = `export async function withRetry<T>(run: () => Promise<T>, times = 3): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= times) throw err;
    }
  }
}

export class Backoff {
  delay(attempt: number): number {
    return 2 ** attempt * 100;
  }
}
`;

const CLIENT = `import { withRetry } from "./retry.ts";

export async function fetchUser(id: string) {
  return withRetry(() => fetch("/users/" + id));
}
`;

const PY = `class Store:
    def get(self, key):
        return key


def with_retry(run):
    return run()
`;

function project(): void {
  tree(ws.root, {
    "src/retry.ts": RETRY,
    "src/client.ts": CLIENT,
    "tools/store.py": PY,
    "README.md": "# not code\n",
  });
}

describe("the symbols tool", () => {
  test("the first call builds the index and finds a definition's file, line range and signature", async () => {
    project();
    const first = await symbols({ action: "definition", name: "withRetry" });
    expect(first.is_error).toBe(false);
    expect(first.content.split("\n")).toEqual([
      "(built the index: 3 files, 7 definitions)",
      "src/retry.ts:1  function  export async function withRetry<T>(run: () => Promise<T>, times = 3): Promise<T> {  (lines 1-9)",
    ]);
    // Later calls only answer.
    expect((await symbols({ action: "definition", name: "Store" })).content).toBe(
      "tools/store.py:1  class  class Store:  (lines 1-3)",
    );
  });

  test("a method by Class.name; close names when none is named so; nothing close is said plainly", async () => {
    project();
    expect((await symbols({ action: "definition", name: "Backoff.delay" })).content).toContain(
      "src/retry.ts:12  method in Backoff  delay(attempt: number): number {  (lines 12-14)",
    );
    const close = await symbols({ action: "definition", name: "retry" });
    expect(close.content).toContain("No definition named retry; the closest names:");
    expect(close.content).toContain("src/retry.ts:1  function  export async function withRetry");
    expect(close.content).toContain("tools/store.py:6  function  def with_retry(run):");
    expect((await symbols({ action: "definition", name: "zzqxv" })).content).toContain(
      "No definition named zzqxv in the index, nor any close name.",
    );
  });

  test("references name the definition they sit in and quote their line", async () => {
    project();
    const refs = await symbols({ action: "references", name: "withRetry" });
    expect(refs.content).toContain(
      'src/client.ts:4  call  in fetchUser: return withRetry(() => fetch("/users/" + id));',
    );
    expect((await symbols({ action: "references", name: "nothingCallsThis" })).content).toStartWith(
      "No references to nothingCallsThis",
    );
  });

  test("an outline lists a file's definitions in line order, methods under their class", async () => {
    project();
    await symbols({ action: "definition", name: "Store" }); // builds the index
    expect((await symbols({ action: "outline", path: "./tools/store.py" })).content).toBe(
      [
        "tools/store.py:1  class  class Store:",
        "tools/store.py:2    function in Store  def get(self, key):",
        "tools/store.py:6  function  def with_retry(run):",
      ].join("\n"),
    );
    expect((await symbols({ action: "outline", path: "README.md" })).content).toStartWith(
      "README.md: no definitions in the index",
    );
    const outside = await symbols({ action: "outline", path: "../outside/x.ts" });
    expect(outside.is_error).toBe(true);
    expect(outside.content).toContain("outside the workspace");
  });

  test("the map shows the most referenced file first, within its budget", async () => {
    project();
    const map = await symbols({ action: "map", tokens: 100 });
    const lines = map.content.split("\n").filter((line) => !line.startsWith("("));
    expect(lines[0]).toBe("src/retry.ts");
    expect(lines.join("\n").length / 4).toBeLessThanOrEqual(100);
    // Naming a file leans the map toward it.
    const leaning = await symbols({ action: "map", tokens: 100, path: "tools/store.py" });
    expect(leaning.content.split("\n")[0]).toBe("tools/store.py");
  });

  test("an edit made by write_file one step earlier is in the next answer; a deleted file is gone", async () => {
    project();
    expect((await symbols({ action: "definition", name: "withRetry" })).is_error).toBe(false);
    const write = await writeFileTool.execute(
      { path: "src/retry.ts", content: `// moved down\n\n${RETRY.replace("withRetry", "retryRun")}` },
      ws.ctx,
    );
    expect(write.is_error).toBe(false);
    expect((await symbols({ action: "definition", name: "retryRun" })).content).toStartWith(
      "src/retry.ts:3  function  export async function retryRun<T>",
    );
    expect((await symbols({ action: "definition", name: "fetchUser" })).content).toStartWith(
      "src/client.ts:3",
    );
    rmSync(join(ws.root, "src/client.ts"));
    expect((await symbols({ action: "definition", name: "fetchUser" })).content).toContain(
      "No definition named fetchUser",
    );
  });

  test("the same size and mtime, a changed file is still seen once its mtime moves", async () => {
    project();
    await symbols({ action: "definition", name: "Store" });
    tree(ws.root, { "tools/store.py": PY.replace("class Store", "class Shop_") });
    utimesSync(join(ws.root, "tools/store.py"), new Date(), new Date(Date.now() + 5000));
    expect((await symbols({ action: "definition", name: "Shop_" })).content).toStartWith(
      "tools/store.py:1  class",
    );
  });

  test("at most 50 lines, then how many more", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`m/f${String(i).padStart(2, "0")}.py`] = "def handler():\n    pass\n";
    tree(ws.root, files);
    const lines = (await symbols({ action: "definition", name: "handler" })).content.split("\n").slice(1);
    expect(lines).toHaveLength(51);
    expect(lines[0]).toBe("m/f00.py:1  function  def handler():  (lines 1-2)");
    expect(lines[50]).toBe("… 10 more (give the exact name, `Class.name`, or a path)");
  });

  test("a path narrows definitions and references to a file or directory", async () => {
    const files: Record<string, string> = {};
    for (const dir of ["api", "cli"])
      for (let i = 0; i < 30; i++)
        files[`${dir}/h${String(i).padStart(2, "0")}.py`] = "def handler():\n    pass\n";
    tree(ws.root, { ...files, "cli/main.py": "from h00 import handler\n\nhandler()\n" });
    await symbols({ action: "definition", name: "handler" }); // builds the index
    const inApi = (await symbols({ action: "definition", name: "handler", path: "api/" })).content.split(
      "\n",
    );
    expect(inApi).toHaveLength(30);
    expect(inApi.every((line) => line.startsWith("api/h"))).toBe(true);
    expect((await symbols({ action: "definition", name: "handler", path: "cli/h07.py" })).content).toBe(
      "cli/h07.py:1  function  def handler():  (lines 1-2)",
    );
    expect((await symbols({ action: "definition", name: "handler", path: "cli/main.py" })).content).toBe(
      "No definition named handler or close to it in cli/main.py; 60 elsewhere (leave out path to see them).",
    );
    expect((await symbols({ action: "references", name: "handler", path: "cli" })).content).toBe(
      "cli/main.py:3  call  handler()",
    );
    expect((await symbols({ action: "references", name: "handler", path: "api" })).content).toStartWith(
      "No references to handler in api in the index",
    );
  });

  test("arguments an action needs are asked for; a bad size is refused before anything runs", async () => {
    expect(await symbols({ action: "definition" })).toEqual({
      is_error: true,
      content: "definition needs `name`, the symbol to look up",
    });
    expect(await symbols({ action: "outline" })).toEqual({
      is_error: true,
      content: "outline needs `path`, the file to outline",
    });
    const small = await symbols({ action: "map", tokens: 10 });
    expect(small.is_error).toBe(true);
    expect(small.content).toStartWith("invalid arguments for symbols: tokens:");
  });
});
