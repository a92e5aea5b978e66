import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { MemoryStore } from "../../src/memory/store.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-memory-concurrent-");
const STORE = join(import.meta.dir, "../../src/memory/store.ts");

/** A child process that adds `count` memories one turn (3 memories) at a time, as learning does. */
function writer(path: string, name: string, count: number) {
  const script = `
    const { MemoryStore } = await import(${JSON.stringify(STORE)});
    const store = MemoryStore.open(${JSON.stringify(path)});
    for (let i = 0; i < ${count}; i += 3) {
      const n = Math.min(3, ${count} - i);
      store.add(Array.from({ length: n }, (_, j) => ({ content: "${name} row " + (i + j), source: "${name}", type: "episodic" })));
    }
    store.close();
  `;
  return Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
}

test("two processes adding at once into a new file: every row is there and the database is sound", async () => {
  const path = join(tempDir(), "data", "memory.db");
  const children = [writer(path, "alpha", 500), writer(path, "beta", 500)];
  const results = await Promise.all(
    children.map(async (child) => ({
      code: await child.exited,
      stderr: await new Response(child.stderr).text(),
    })),
  );
  expect(results).toEqual([
    { code: 0, stderr: "" },
    { code: 0, stderr: "" },
  ]);

  const store = MemoryStore.open(path);
  expect(store.stats().count).toBe(1000);
  for (const name of ["alpha", "beta"]) {
    const contents = new Set(
      store
        .list({ limit: 2000 })
        .filter((m) => m.source === name)
        .map((m) => m.content),
    );
    expect(contents.size).toBe(500);
    expect(contents.has(`${name} row 0`) && contents.has(`${name} row 499`)).toBe(true);
  }
  expect(store.searchText('"alpha"', { limit: 1000 })).toHaveLength(500);
  store.close();

  const db = new Database(path, { readonly: true });
  expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  db.close();
});
