import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CodeIndex, indexDbPath } from "../../src/code-index/store.ts";
import { useTempDirs } from "../history/support/fixtures.ts";

const tempDir = useTempDirs("ion-index-concurrent-");
const STORE = join(import.meta.dir, "../../src/code-index/store.ts");
const FILES = 400;

/** A child process that opens the project's index and updates it, as `ion index` does. */
function indexer(path: string, root: string) {
  const script = `
    const { CodeIndex } = await import(${JSON.stringify(STORE)});
    const index = CodeIndex.open(${JSON.stringify(path)}, ${JSON.stringify(root)});
    const summary = await index.update();
    index.close();
    process.stdout.write(JSON.stringify({ parsed: summary.parsed, files: summary.files }));
  `;
  return Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
}

test("two processes indexing one project at once: both succeed, every file once, the database sound", async () => {
  const base = tempDir();
  const root = join(base, "project");
  for (let dir = 0; dir < 4; dir++) {
    mkdirSync(join(root, `pkg${dir}`), { recursive: true });
    for (let i = 0; i < FILES / 4; i++) {
      const n = dir * (FILES / 4) + i;
      writeFileSync(
        join(root, `pkg${dir}`, `m${i}.ts`),
        `export class Model${n} {\n  save(): void {\n    persist${n}(this);\n  }\n}\nexport function persist${n}(value: unknown): void {}\n`,
      );
    }
  }
  const real = realpathSync(root);
  const path = indexDbPath({ ION_DATA_DIR: join(base, "data") }, real);

  const children = [indexer(path, real), indexer(path, real)];
  const results = await Promise.all(
    children.map(async (child) => ({
      code: await child.exited,
      stderr: await new Response(child.stderr).text(),
      summary: JSON.parse((await new Response(child.stdout).text()) || "null") as {
        parsed: number;
        files: number;
      },
    })),
  );
  for (const result of results) {
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    // Each saw every file stored at its end, whichever parsed them.
    expect(result.summary.files).toBe(FILES);
  }
  expect(results[0]!.summary.parsed + results[1]!.summary.parsed).toBeGreaterThanOrEqual(FILES);

  const index = CodeIndex.open(path, real);
  expect(index.status()).toMatchObject({ files: FILES, symbols: FILES * 3 });
  for (const n of [0, 137, FILES - 1]) {
    expect(index.definitions(`Model${n}`, { limit: 5 })).toHaveLength(1);
    expect(index.references(`persist${n}`, { limit: 5 })).toHaveLength(1);
  }
  expect(await index.update()).toMatchObject({ parsed: 0, removed: 0 });
  index.close();

  const db = new Database(path, { readonly: true });
  expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  expect(db.query("SELECT count(*) AS n FROM names").get()).toEqual({ n: FILES * 2 + 1 }); // Model<n>, persist<n>, save
  db.close();
});
