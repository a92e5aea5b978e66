import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolInputError } from "../../src/tools/define.ts";
import { displayPath, resolveInWorkspace } from "../../src/tools/workspace.ts";

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "ion-workspace-")));
  root = join(base, "work");
  outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "secret\n");
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const resolveIn = (path: string, allow: string[] = []) => resolveInWorkspace(path, { root, allow });

function refused(path: string, allow: string[] = []): ToolInputError {
  try {
    resolveIn(path, allow);
  } catch (err) {
    if (err instanceof ToolInputError) return err;
    throw err;
  }
  throw new Error(`${path} was not refused`);
}

describe("resolveInWorkspace", () => {
  test("resolves relative paths and the root itself", () => {
    writeFileSync(join(root, "a.txt"), "");
    expect(resolveIn("a.txt")).toBe(join(root, "a.txt"));
    expect(resolveIn(".")).toBe(root);
    expect(resolveIn("./sub/../a.txt")).toBe(join(root, "a.txt"));
  });

  test("accepts absolute paths inside the workspace", () => {
    expect(resolveIn(join(root, "x.txt"))).toBe(join(root, "x.txt"));
  });

  test("refuses .. and absolute paths outside, naming the path and workspace.allow", () => {
    expect(refused("../outside/secret.txt").message).toContain("outside the workspace");
    expect(refused("..").message).toContain("workspace.allow");
    expect(refused("/etc/passwd").message).toContain("/etc/passwd");
  });

  test("a sibling directory sharing the root's name as prefix is outside", () => {
    mkdirSync(`${root}2`);
    refused(`${root}2/x.txt`);
    refused("../work2/x.txt");
  });

  test("a name starting with .. is an ordinary name inside the workspace", () => {
    expect(resolveIn("..foo")).toBe(join(root, "..foo"));
    expect(displayPath(join(root, "..foo"), root)).toBe("..foo");
  });

  test("a new file in directories that do not exist yet resolves inside", () => {
    expect(resolveIn("new/deeper/file.txt")).toBe(join(root, "new/deeper/file.txt"));
  });

  test("symlinks inside the workspace are followed to their real target", () => {
    mkdirSync(join(root, "real"));
    writeFileSync(join(root, "real/f.txt"), "");
    symlinkSync(join(root, "real"), join(root, "alias"));
    expect(resolveIn("alias/f.txt")).toBe(join(root, "real/f.txt"));
  });

  test("symlinks that escape are refused, to a file or a directory", () => {
    symlinkSync(join(outside, "secret.txt"), join(root, "file-link"));
    symlinkSync(outside, join(root, "dir-link"));
    refused("file-link");
    refused("dir-link/secret.txt");
    refused("dir-link/not-yet.txt");
  });

  test("a dangling symlink is judged by where it points", () => {
    symlinkSync(join(outside, "new.txt"), join(root, "dangling-out"));
    symlinkSync("missing-target.txt", join(root, "dangling-in"));
    symlinkSync(join(outside, "no-dir"), join(root, "dangling-dir"));
    refused("dangling-out");
    refused("dangling-dir/sub/file.txt");
    expect(resolveIn("dangling-in")).toBe(join(root, "missing-target.txt"));
  });

  test("a relative link target is resolved from the link's real directory", () => {
    // root/deep -> outside/a/b, and inside it `up -> ../x`: the kernel reaches outside/a/x.
    mkdirSync(join(outside, "a/b"), { recursive: true });
    symlinkSync(join(outside, "a/b"), join(root, "deep"));
    symlinkSync("../x", join(outside, "a/b/up"));
    refused("deep/up");
  });

  test("a symlink loop is a ToolInputError, not a crash", () => {
    symlinkSync("loop-b", join(root, "loop-a"));
    symlinkSync("loop-a", join(root, "loop-b"));
    expect(refused("loop-a/x").message).toContain("symbolic links");
  });

  test("workspace.allow directories are reachable, absolute or relative to the root", () => {
    expect(resolveIn(join(outside, "secret.txt"), [outside])).toBe(join(outside, "secret.txt"));
    expect(resolveIn("../outside/secret.txt", ["../outside"])).toBe(join(outside, "secret.txt"));
    refused("../elsewhere/x", [outside]);
  });

  test("a workspace root that is itself a symlink works", () => {
    symlinkSync(root, join(base, "root-link"));
    expect(resolveInWorkspace("a.txt", { root: join(base, "root-link"), allow: [] })).toBe(
      join(root, "a.txt"),
    );
  });

  test("empty paths and NUL bytes are refused", () => {
    expect(refused("  ").message).toContain("empty");
    expect(refused("a\0b").message).toContain("NUL");
  });
});

describe("displayPath", () => {
  test("relative inside the root, . for the root, absolute outside", () => {
    expect(displayPath(join(root, "src/a.ts"), root)).toBe(join("src", "a.ts"));
    expect(displayPath(root, root)).toBe(".");
    expect(displayPath(join(outside, "secret.txt"), root)).toBe(join(outside, "secret.txt"));
  });
});
