import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IonError } from "../../src/errors.ts";
import { withFileLock } from "../../src/util/file-lock.ts";

test("a lock held by a live process past the timeout refuses the edit, which never runs", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ion-lock-"));
  try {
    const file = join(dir, "config.json");
    writeFileSync(`${file}.lock`, `${process.pid}\n`);
    let ran = false;
    const attempt = withFileLock(
      file,
      async () => {
        ran = true;
      },
      200,
    );
    const err = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(IonError);
    expect((err as IonError).message).toBe(
      `${file} is being changed by ion process ${process.pid}; gave up after 0.2 s`,
    );
    expect(ran).toBe(false);
    expect(readFileSync(`${file}.lock`, "utf8")).toBe(`${process.pid}\n`); // the holder's lock is left alone
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("edits in one process run one at a time", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ion-lock-"));
  try {
    const file = join(dir, "config.json");
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        withFileLock(file, async () => {
          inside++;
          most = Math.max(most, inside);
          await Bun.sleep(10);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
