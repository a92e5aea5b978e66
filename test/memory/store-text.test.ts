import { expect, test } from "bun:test";
import { join } from "node:path";
import { toFtsQuery } from "../../src/memory/fts-query.ts";
import { MemoryStore } from "../../src/memory/store.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-memory-text-");

/** 20 memories that all say "deploy"; one says "kubernetes", three say "staging". */
function store20(): MemoryStore {
  const store = MemoryStore.open(join(tempDir(), "memory.db"));
  store.add(
    Array.from({ length: 20 }, (_, i) => ({
      content: `deploy note ${i}${i === 7 ? " kubernetes" : ""}${i % 7 === 1 ? " staging" : ""}`,
      source: "s",
      type: "episodic" as const,
    })),
  );
  return store;
}

const contents = (hits: { memory: { content: string } }[]) => hits.map((h) => h.memory.content).sort();

test("within the posting budget every term is searched", () => {
  const store = store20();
  expect(store.searchText(toFtsQuery("deploy kubernetes"), { limit: 50, postingBudget: 100 })).toHaveLength(
    20,
  );
  store.close();
});

test("over the budget the most common terms are left out, the rarest kept", () => {
  const store = store20();
  const hits = store.searchText(toFtsQuery("deploy kubernetes"), { limit: 50, postingBudget: 5 });
  expect(contents(hits)).toEqual(["deploy note 7 kubernetes"]);
  // "staging" (3 rows) and "kubernetes" (1) fit 5 together; "deploy" (20) does not.
  const both = store.searchText(toFtsQuery("deploy staging kubernetes"), { limit: 50, postingBudget: 5 });
  expect(contents(both)).toEqual([
    "deploy note 1 staging",
    "deploy note 15 staging",
    "deploy note 7 kubernetes",
    "deploy note 8 staging",
  ]);
  store.close();
});

test("a query of only very common words searches the newest memories, as many as the budget", () => {
  const store = store20();
  const hits = store.searchText(toFtsQuery("deploy"), { limit: 50, postingBudget: 5 });
  expect(contents(hits)).toEqual([
    "deploy note 15 staging",
    "deploy note 16",
    "deploy note 17",
    "deploy note 18",
    "deploy note 19",
  ]);
  store.close();
});

test("an expression that is not a plain OR of words is used as it is", () => {
  const store = store20();
  const hits = store.searchText('"deploy" AND "staging"', { limit: 50, postingBudget: 5 });
  expect(hits).toHaveLength(3);
  store.close();
});
