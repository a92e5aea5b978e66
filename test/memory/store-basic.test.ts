import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { contentHash, MemoryStore, memoryDbPath } from "../../src/memory/store.ts";
import { SCHEMA_VERSION } from "../../src/memory/store-schema.ts";
import type { NewMemory } from "../../src/memory/types.ts";
import { uuid7, uuid7Time } from "../../src/memory/uuid7.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-memory-store-");

function openStore(warnings: string[] = []): MemoryStore {
  return MemoryStore.open(join(tempDir(), "data", "memory.db"), { warn: (text) => warnings.push(text) });
}

const episodic = (content: string, extra: Partial<NewMemory> = {}): NewMemory => ({
  content,
  source: "session-a",
  type: "episodic",
  ...extra,
});

describe("uuid7", () => {
  test("ids are version 7, variant 10, and carry their time", () => {
    const at = Date.now() + 60_000; // later than any id made before in this process
    const id = uuid7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuid7Time(id)).toBe(at);
  });

  test("ids made in one millisecond, or with the clock stepping back, still increase", () => {
    const ids = Array.from({ length: 5000 }, (_, i) => uuid7(Date.now() - (i % 3)));
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("MemoryStore", () => {
  test("creates the file 0600 in a 0700 directory, in WAL mode at the current schema version", () => {
    const store = openStore();
    store.add([episodic("the build uses bun")]);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(store.path, "..")).mode & 0o777).toBe(0o700);
    expect(statSync(`${store.path}-wal`).mode & 0o777).toBe(0o600);
    store.close();
    const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
    const db = new Database(store.path, { readonly: true });
    expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: SCHEMA_VERSION });
    db.close();
  });

  test("add returns the records as stored; get finds them by id and by a unique prefix", () => {
    const store = openStore();
    const [a, b] = store.add([
      episodic("the staging server listens on port 8443", { createdAt: 1000 }),
      { content: "always run the linter before committing", source: "/repo/AGENTS.md", type: "procedural" },
    ]);
    expect(a!).toMatchObject({
      source: "session-a",
      type: "episodic",
      createdAt: 1000,
      validFrom: 1000,
      validTo: null,
    });
    expect(a!.tokens).toBe(Math.ceil(a!.content.length / 4));
    expect(store.get(a!.id)).toEqual(a!);
    expect(store.get(b!.id.slice(0, 23).toUpperCase())).toEqual(b!);
    expect(store.get(b!.id.slice(0, 1))).toBeUndefined(); // names both (ids made together share their start)
    expect(store.get("")).toBeUndefined();
    expect(store.get("no-such-id")).toBeUndefined();
    store.close();
  });

  test("data survives reopening; the path is <data>/memory.db", () => {
    const store = openStore();
    const [a] = store.add([episodic("remember the milk")]);
    store.close();
    const again = MemoryStore.open(store.path);
    expect(again.get(a!.id)?.content).toBe("remember the milk");
    again.close();
    expect(memoryDbPath({ ION_DATA_DIR: "/x/data" })).toBe("/x/data/memory.db");
  });

  test("list: newest first, by type and since; forgotten ones only with includeEnded", () => {
    const store = openStore();
    const [one, two, three] = store.add([
      episodic("first", { createdAt: 1000 }),
      { content: "second", source: "s", type: "semantic", createdAt: 2000 },
      episodic("third", { createdAt: 3000 }),
    ]);
    expect(store.list().map((m) => m.content)).toEqual(["third", "second", "first"]);
    expect(store.list({ type: "episodic" }).map((m) => m.id)).toEqual([three!.id, one!.id]);
    expect(store.list({ since: 2000 }).map((m) => m.id)).toEqual([three!.id, two!.id]);
    expect(store.list({ limit: 1 }).map((m) => m.id)).toEqual([three!.id]);
    expect(store.forget(two!.id)).toBe(true);
    expect(store.list().map((m) => m.id)).toEqual([three!.id, one!.id]);
    expect(store.list({ includeEnded: true }).map((m) => m.id)).toEqual([three!.id, two!.id, one!.id]);
    store.close();
  });

  test("forget ends validity and keeps history: asOf answers what was known and valid then", () => {
    const store = openStore();
    const [old] = store.add([episodic("the api lives at api.example.test", { createdAt: 1000 })]);
    expect(store.forget(old!.id, 5000)).toBe(true);
    expect(store.forget(old!.id, 6000)).toBe(false); // already ended
    const [fresh] = store.add([episodic("the api moved to api2.example.test", { createdAt: 5000 })]);
    expect(store.get(old!.id)?.validTo).toBe(5000);
    expect(store.list().map((m) => m.id)).toEqual([fresh!.id]);
    expect(store.list({ asOf: 4000 }).map((m) => m.id)).toEqual([old!.id]);
    expect(store.list({ asOf: 5000 }).map((m) => m.id)).toEqual([fresh!.id]);
    expect(store.list({ asOf: 500 })).toEqual([]); // nothing was known yet
    expect(store.searchText('"api"', { limit: 10 }).map((h) => h.memory.id)).toEqual([fresh!.id]);
    expect(store.searchText('"api"', { asOf: 2000, limit: 10 }).map((h) => h.memory.id)).toEqual([old!.id]);
    expect(store.forget("not-an-id")).toBe(false);
    store.close();
  });

  test("remove deletes the row, its full-text entry and its unshared vector", () => {
    const store = openStore();
    const [a, b] = store.add([episodic("pelican migration notes"), episodic("pelican migration notes")]);
    const [c] = store.add([episodic("a note about herons")]);
    const model = "test/embed";
    store.saveVectors(model, [
      { contentHash: contentHash(a!.content), vector: new Float32Array([1, 0]) },
      { contentHash: contentHash(c!.content), vector: new Float32Array([0, 1]) },
    ]);
    expect(store.remove(a!.id)).toBe(true);
    expect(store.remove(a!.id)).toBe(false);
    expect(store.get(a!.id)).toBeUndefined();
    expect(store.searchText('"pelican"', { limit: 10 }).map((h) => h.memory.id)).toEqual([b!.id]);
    expect(store.vectorFor(model, contentHash(a!.content))).toBeDefined(); // b still has that content
    expect(store.remove(c!.id)).toBe(true);
    expect(store.vectorFor(model, contentHash(c!.content))).toBeUndefined();
    expect(store.searchText('"herons"', { limit: 10 })).toEqual([]);
    store.close();
  });

  test("full-text search: best first with bm25, stemmed, filtered by source", () => {
    const store = openStore();
    const [tests, other, mine] = store.add([
      episodic("the tests run with bun test and the tests are fast", { source: "s1" }),
      episodic("deploy with the deploy script", { source: "s1" }),
      episodic("a test of this session", { source: "current" }),
    ]);
    const hits = store.searchText('"test"', { limit: 10 });
    expect(hits.map((h) => h.memory.id)).toEqual([tests!.id, mine!.id]);
    expect(hits[0]!.bm25).toBeLessThan(hits[1]!.bm25); // lower is better
    expect(
      store.searchText('"test"', { excludeSource: "current", limit: 10 }).map((h) => h.memory.id),
    ).toEqual([tests!.id]);
    expect(store.searchText('"deploying"', { limit: 10 }).map((h) => h.memory.id)).toEqual([other!.id]);
    expect(store.searchText("", { limit: 10 })).toEqual([]);
    store.close();
  });

  test("stats count by type and validity, vectors by model, the last learn and the size", () => {
    const store = openStore();
    expect(store.stats()).toMatchObject({ count: 0, valid: 0, lastLearnedAt: null, vectors: [] });
    const [a] = store.add([
      episodic("one", { createdAt: 1000 }),
      { content: "two", source: "s", type: "semantic", createdAt: 3000 },
      { content: "three", source: "s", type: "procedural", createdAt: 2000 },
    ]);
    store.forget(a!.id);
    store.saveVectors("m/one", [{ contentHash: contentHash("two"), vector: new Float32Array([1, 2, 3]) }]);
    const stats = store.stats();
    expect(stats).toMatchObject({
      count: 3,
      valid: 2,
      byType: { episodic: 1, semantic: 1, procedural: 1 },
      vectors: [{ model: "m/one", count: 1 }],
      lastLearnedAt: 3000,
    });
    expect(stats.bytes).toBeGreaterThan(0);
    store.close();
  });

  test("wipe removes everything, and the store keeps working", () => {
    const store = openStore();
    store.add([episodic("a secret plan about zebras")]);
    store.saveVectors("m/x", [
      { contentHash: contentHash("a secret plan about zebras"), vector: new Float32Array(4) },
    ]);
    store.wipe();
    expect(store.stats()).toMatchObject({ count: 0, vectors: [] });
    expect(store.searchText('"zebras"', { limit: 5 })).toEqual([]);
    const bytes = Buffer.from(require("node:fs").readFileSync(store.path)).toString("latin1");
    expect(bytes.includes("zebras")).toBe(false);
    store.add([episodic("after the wipe")]);
    expect(store.list().map((m) => m.content)).toEqual(["after the wipe"]);
    store.close();
  });
});
