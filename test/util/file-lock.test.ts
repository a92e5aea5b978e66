import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

test("a lock whose holder is gone is taken over; the edit runs and the lock is removed after it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ion-lock-"));
  try {
    const file = join(dir, "config.json");
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    writeFileSync(`${file}.lock`, `${gone.pid}\n`);
    let held = "";
    await withFileLock(file, async () => {
      held = readFileSync(`${file}.lock`, "utf8");
    });
    expect(held.split(" ")[0]?.trim()).toBe(String(process.pid));
    expect(existsSync(`${file}.lock`)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a lock that cannot be created refuses the edit with an io error naming the file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ion-lock-"));
  try {
    // Its lock's name (the file's and ".lock") is longer than a directory entry may be.
    const file = join(dir, "c".repeat(252));
    let ran = false;
    const err = await withFileLock(file, async () => {
      ran = true;
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(IonError);
    expect((err as IonError).code).toBe("io");
    expect((err as IonError).message).toBe(`cannot write ${file} (ENAMETOOLONG)`);
    expect(ran).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
