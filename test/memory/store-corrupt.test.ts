import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { MemoryStore } from "../../src/memory/store.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-memory-corrupt-");

function dbPath(): string {
  const dir = join(tempDir(), "data");
  mkdirSync(dir, { recursive: true });
  return join(dir, "memory.db");
}

const asideFiles = (path: string): string[] =>
  readdirSync(join(path, "..")).filter(
    (name) => name.startsWith("memory.db.corrupt-") && !name.endsWith("-wal"),
  );

describe("a damaged memory.db", () => {
  test("garbage bytes: moved aside with one warning, a new database is created and works", () => {
    const path = dbPath();
    const garbage = "this is not a database at all. ".repeat(200);
    writeFileSync(path, garbage);
    const warnings: string[] = [];
    const store = MemoryStore.open(path, { warn: (text) => warnings.push(text) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^memory\.db was not a usable database \(.+\); moved it to memory\.db\.corrupt-\S+ and started a new one$/,
    );
    const aside = asideFiles(path);
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(path, "..", aside[0]!), "utf8")).toBe(garbage);
    const [memory] = store.add([{ content: "fresh start", source: "s", type: "episodic" }]);
    expect(store.get(memory!.id)?.content).toBe("fresh start");
    store.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("a truncated database: found on open or at the first read, moved aside once, the call still answers", () => {
    const path = dbPath();
    const store = MemoryStore.open(path);
    for (let i = 0; i < 20; i++)
      store.add(
        Array.from({ length: 100 }, (_, j) => ({
          content: `memory ${i}-${j} about the quarterly deployment of service number ${i * 100 + j}`,
          source: "s",
          type: "episodic" as const,
        })),
      );
    store.close();
    // Fold the WAL into the file so cutting the file loses committed pages.
    const raw = new Database(path);
    raw.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
    raw.close();
    const size = statSync(path).size;
    expect(size).toBeGreaterThan(100_000);
    truncateSync(path, Math.floor(size / 2));

    const warnings: string[] = [];
    const reopened = MemoryStore.open(path, { warn: (text) => warnings.push(text) });
    const hits = reopened.searchText('"deployment"', { limit: 5 });
    const listed = reopened.list();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("moved it to memory.db.corrupt-");
    expect(hits).toEqual([]);
    expect(listed).toEqual([]);
    expect(asideFiles(path)).toHaveLength(1);
    reopened.add([{ content: "after the damage", source: "s", type: "episodic" }]);
    expect(reopened.stats().count).toBe(1);
    reopened.close();
  });

  test("an empty file is a new database, not a damaged one", () => {
    const path = dbPath();
    writeFileSync(path, "");
    const warnings: string[] = [];
    const store = MemoryStore.open(path, { warn: (text) => warnings.push(text) });
    expect(store.stats().count).toBe(0);
    expect(warnings).toEqual([]);
    expect(existsSync(path)).toBe(true);
    store.close();
  });

  test("a database from a newer ion is refused and left untouched", () => {
    const path = dbPath();
    const db = new Database(path, { create: true });
    db.run("PRAGMA user_version = 999");
    db.close();
    const before = readFileSync(path);
    expect(() => MemoryStore.open(path)).toThrow(/schema version 999/);
    expect(readFileSync(path)).toEqual(before);
    expect(asideFiles(path)).toEqual([]);
  });
});
