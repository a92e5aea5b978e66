import { expect, test } from "bun:test";
import { copyFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inboxDir, pendingMemories, postMemories } from "../../src/memory/inbox.ts";
import { MemoryStore } from "../../src/memory/store.ts";
import type { NewMemory } from "../../src/memory/types.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-memory-inbox-");

const turn = (words: string): NewMemory[] => [
  { content: `user: ${words}`, source: "session-a", type: "episodic" },
  { content: `assistant: noted, ${words}`, source: "session-a", type: "episodic" },
];

const dbPath = () => join(tempDir(), "data", "memory.db");

test("a posted turn waits in one file, creates no database, and the next store to open takes it in", () => {
  const path = dbPath();
  postMemories(path, turn("the staging database is postgres 16"));
  expect(existsSync(path)).toBe(false);
  expect(readdirSync(inboxDir(path))).toHaveLength(1);

  const store = MemoryStore.open(path);
  const stored = store.list();
  expect(stored.map((m) => m.content).sort()).toEqual([
    "assistant: noted, the staging database is postgres 16",
    "user: the staging database is postgres 16",
  ]);
  expect(readdirSync(inboxDir(path))).toEqual([]);
  expect(store.searchText('"postgres"', { limit: 5 }).length).toBe(2);
  store.close();
});

test("a store already open takes in what was posted since; a file taken in twice adds its memories once", () => {
  const path = dbPath();
  const store = MemoryStore.open(path);
  postMemories(path, turn("deploys go out on tuesdays"));
  const [file] = readdirSync(inboxDir(path));
  const copy = join(tempDir(), "copy.json");
  copyFileSync(join(inboxDir(path), file!), copy);
  expect(store.takeInbox()).toBe(2);
  // As if another process read the same file before this one removed it.
  copyFileSync(copy, join(inboxDir(path), file!));
  expect(store.takeInbox()).toBe(2);
  expect(store.list()).toHaveLength(2);
  expect(readdirSync(inboxDir(path))).toEqual([]);
  store.close();
});

test("a file in the inbox that ion did not write is set aside with one warning; the others go in", () => {
  const path = dbPath();
  postMemories(path, turn("the api rate limit is 600 a minute"));
  writeFileSync(join(inboxDir(path), "0000-not-ours.json"), '{"content": 1}');
  writeFileSync(join(inboxDir(path), "0001-broken.json"), "[{");
  const warnings: string[] = [];
  const store = MemoryStore.open(path, { warn: (text) => warnings.push(text) });
  expect(store.list()).toHaveLength(2);
  expect(warnings).toHaveLength(2);
  expect(warnings[0]).toContain("set aside");
  expect(readdirSync(inboxDir(path)).sort()).toEqual(["0000-not-ours.json.bad", "0001-broken.json.bad"]);
  expect(pendingMemories(path).memories).toEqual([]);
  store.close();
});

test("wipe empties the inbox too: a posted turn does not come back", () => {
  const path = dbPath();
  const store = MemoryStore.open(path);
  store.add(turn("first"));
  postMemories(path, turn("second"));
  store.wipe();
  expect(store.takeInbox()).toBe(0);
  expect(store.list()).toEqual([]);
  store.close();
  expect(MemoryStore.open(path).list()).toEqual([]);
});

test("a half-written file (the writer's temporary name) is never read", () => {
  const path = dbPath();
  postMemories(path, turn("one"));
  writeFileSync(join(inboxDir(path), ".0190-partial.json.123.tmp"), "[{");
  expect(pendingMemories(path)).toMatchObject({ unreadable: [] });
  expect(pendingMemories(path).memories).toHaveLength(2);
});
