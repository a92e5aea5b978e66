import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { CodeIndex, indexDbPath } from "../../src/code-index/store.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-index-corrupt-");

/** A project of `count` TypeScript files, each defining `fn<i>` and calling the one before. */
function project(count: number): { root: string; path: string } {
  const base = tempDir();
  const root = join(base, "project");
  mkdirSync(join(root, "src"), { recursive: true });
  for (let i = 0; i < count; i++)
    writeFileSync(
      join(root, "src", `f${i}.ts`),
      `/** Function number ${i}, padded so the index has some pages. */\nexport function fn${i}(): number {\n  return ${i === 0 ? "0" : `fn${i - 1}()`};\n}\n`,
    );
  const real = realpathSync(root);
  return { root: real, path: indexDbPath({ ION_DATA_DIR: join(base, "data") }, real) };
}

const asideFiles = (path: string): string[] =>
  readdirSync(dirname(path)).filter(
    (name) => name.startsWith(`${basename(path)}.corrupt-`) && !name.endsWith("-wal"),
  );

describe("a damaged index", () => {
  test("garbage bytes: moved aside with one warning, then rebuilt by the update", async () => {
    const { root, path } = project(3);
    mkdirSync(dirname(path), { recursive: true });
    const garbage = "not an index at all. ".repeat(300);
    writeFileSync(path, garbage);
    const warnings: string[] = [];
    const index = CodeIndex.open(path, root, { warn: (text) => warnings.push(text) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^\w+\.db was not a usable database \(.+\); moved it to \w+\.db\.corrupt-\S+/,
    );
    const aside = asideFiles(path);
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dirname(path), aside[0]!), "utf8")).toBe(garbage);
    expect(await index.update()).toMatchObject({ parsed: 3, files: 3 });
    expect(index.definitions("fn2", { limit: 5 })).toMatchObject([{ path: "src/f2.ts", line: 2 }]);
    index.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  /** Builds the index of a 300-file project, folds the WAL into the file and hands the file to `damage`. */
  async function damaged(
    damage: (path: string, size: number) => void,
  ): Promise<{ root: string; path: string }> {
    const built = project(300);
    const first = CodeIndex.open(built.path, built.root);
    await first.update();
    first.close();
    const raw = new Database(built.path);
    raw.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
    raw.close();
    const size = statSync(built.path).size;
    expect(size).toBeGreaterThan(100_000);
    damage(built.path, size);
    return built;
  }

  async function expectRebuilt(index: CodeIndex, path: string, warnings: string[]): Promise<void> {
    const summary = await index.update();
    expect(warnings).toHaveLength(1);
    expect(asideFiles(path)).toHaveLength(1);
    expect(summary).toMatchObject({ files: 300, symbols: 300, parsed: 300 });
    expect(index.findReferences("fn10", { limit: 5 }).hits).toMatchObject([{ path: "src/f11.ts", line: 3 }]);
    index.close();
    const check = new Database(path, { readonly: true });
    expect(check.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    check.close();
  }

  test("a truncated index, found on open: moved aside once, rebuilt by the update", async () => {
    const { root, path } = await damaged((file, size) => truncateSync(file, Math.floor(size / 2)));
    const warnings: string[] = [];
    const index = CodeIndex.open(path, root, { warn: (text) => warnings.push(text) });
    expect(warnings).toHaveLength(1);
    await expectRebuilt(index, path, warnings);
  });

  test("damaged pages found midway through an update: moved aside once, the update starts again and completes", async () => {
    const { root, path } = await damaged((file, size) => {
      const half = Math.floor(size / 2);
      const fd = openSync(file, "r+");
      writeSync(fd, Buffer.alloc(half, 0x5a), 0, half, size - half);
      closeSync(fd);
    });
    const warnings: string[] = [];
    const index = CodeIndex.open(path, root, { warn: (text) => warnings.push(text) });
    expect(warnings).toEqual([]); // opening reads only the first pages
    await expectRebuilt(index, path, warnings);
  });

  test("an index from a newer ion is refused and left untouched", () => {
    const { root, path } = project(1);
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { create: true });
    db.run("PRAGMA user_version = 999");
    db.close();
    const before = readFileSync(path);
    expect(() => CodeIndex.open(path, root)).toThrow(/schema version 999/);
    expect(readFileSync(path)).toEqual(before);
    expect(asideFiles(path)).toEqual([]);
  });
});
