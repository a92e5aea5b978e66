import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkLastMessageFile, runToolFlags } from "../../src/commands/run-flags-ci.ts";

/** A path ion cannot even look at (a symlink loop: ELOOP) is the usage error of the flag that named it. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function symlinkLoop(): string {
  const dir = mkdtempSync(join(tmpdir(), "ion-run-flags-"));
  dirs.push(dir);
  const loop = join(dir, "loop");
  symlinkSync(loop, loop);
  return loop;
}

test("--output-last-message under a path that cannot be looked at names that flag", () => {
  const file = join(symlinkLoop(), "answer.txt");
  expect(() => checkLastMessageFile(file)).toThrow(`--output-last-message ${file}: `);
});

test("--add-dir of a path that cannot be looked at names that flag and the path as given", () => {
  const dir = symlinkLoop();
  expect(() => runToolFlags({ "add-dir": [dir] }, () => undefined)).toThrow(`--add-dir ${dir}: `);
});
