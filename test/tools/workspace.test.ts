import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolInputError } from "../../src/tools/define.ts";
import { displayPath, resolveInWorkspace } from "../../src/tools/workspace.ts";
import { useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-workspace-", { "secret.txt": "secret\n" });

const resolveIn = (path: string, allow: string[] = []) => resolveInWorkspace(path, { root: ws.root, allow });

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
    writeFileSync(join(ws.root, "a.txt"), "");
    expect(resolveIn("a.txt")).toBe(join(ws.root, "a.txt"));
    expect(resolveIn(".")).toBe(ws.root);
    expect(resolveIn("./sub/../a.txt")).toBe(join(ws.root, "a.txt"));
  });

  test("accepts absolute paths inside the workspace", () => {
    expect(resolveIn(join(ws.root, "x.txt"))).toBe(join(ws.root, "x.txt"));
  });

  test("refuses .. and absolute paths outside, naming the path and workspace.allow", () => {
    expect(refused("../outside/secret.txt").message).toContain("outside the workspace");
    expect(refused("..").message).toContain("workspace.allow");
    expect(refused("/etc/passwd").message).toContain("/etc/passwd");
  });

  test("a sibling directory sharing the root's name as prefix is outside", () => {
    mkdirSync(`${ws.root}2`);
    refused(`${ws.root}2/x.txt`);
    refused("../work2/x.txt");
  });

  test("a name starting with .. is an ordinary name inside the workspace", () => {
    expect(resolveIn("..foo")).toBe(join(ws.root, "..foo"));
    expect(displayPath(join(ws.root, "..foo"), ws.root)).toBe("..foo");
  });

  test("a new file in directories that do not exist yet resolves inside", () => {
    expect(resolveIn("new/deeper/file.txt")).toBe(join(ws.root, "new/deeper/file.txt"));
  });

  test("symlinks inside the workspace are followed to their real target", () => {
    mkdirSync(join(ws.root, "real"));
    writeFileSync(join(ws.root, "real/f.txt"), "");
    symlinkSync(join(ws.root, "real"), join(ws.root, "alias"));
    expect(resolveIn("alias/f.txt")).toBe(join(ws.root, "real/f.txt"));
  });

  test("symlinks that escape are refused, to a file or a directory", () => {
    symlinkSync(join(ws.outside, "secret.txt"), join(ws.root, "file-link"));
    symlinkSync(ws.outside, join(ws.root, "dir-link"));
    refused("file-link");
    refused("dir-link/secret.txt");
    refused("dir-link/not-yet.txt");
  });

  test("a dangling symlink is judged by where it points", () => {
    symlinkSync(join(ws.outside, "new.txt"), join(ws.root, "dangling-out"));
    symlinkSync("missing-target.txt", join(ws.root, "dangling-in"));
    symlinkSync(join(ws.outside, "no-dir"), join(ws.root, "dangling-dir"));
    refused("dangling-out");
    refused("dangling-dir/sub/file.txt");
    expect(resolveIn("dangling-in")).toBe(join(ws.root, "missing-target.txt"));
  });

  test("a relative link target is resolved from the link's real directory", () => {
    // root/deep -> outside/a/b, and inside it `up -> ../x`: the kernel reaches outside/a/x.
    mkdirSync(join(ws.outside, "a/b"), { recursive: true });
    symlinkSync(join(ws.outside, "a/b"), join(ws.root, "deep"));
    symlinkSync("../x", join(ws.outside, "a/b/up"));
    refused("deep/up");
  });

  test("a symlink loop is a ToolInputError, not a crash", () => {
    symlinkSync("loop-b", join(ws.root, "loop-a"));
    symlinkSync("loop-a", join(ws.root, "loop-b"));
    expect(refused("loop-a/x").message).toContain("symbolic links");
  });

  test("workspace.allow directories are reachable, absolute or relative to the root", () => {
    expect(resolveIn(join(ws.outside, "secret.txt"), [ws.outside])).toBe(join(ws.outside, "secret.txt"));
    expect(resolveIn("../outside/secret.txt", ["../outside"])).toBe(join(ws.outside, "secret.txt"));
    refused("../elsewhere/x", [ws.outside]);
  });

  test("a workspace root that is itself a symlink works", () => {
    symlinkSync(ws.root, join(ws.base, "root-link"));
    expect(resolveInWorkspace("a.txt", { root: join(ws.base, "root-link"), allow: [] })).toBe(
      join(ws.root, "a.txt"),
    );
  });

  test("empty paths and NUL bytes are refused", () => {
    expect(refused("  ").message).toContain("empty");
    expect(refused("a\0b").message).toContain("NUL");
  });
});

describe("displayPath", () => {
  test("relative inside the root, . for the root, absolute outside", () => {
    expect(displayPath(join(ws.root, "src/a.ts"), ws.root)).toBe(join("src", "a.ts"));
    expect(displayPath(ws.root, ws.root)).toBe(".");
    expect(displayPath(join(ws.outside, "secret.txt"), ws.root)).toBe(join(ws.outside, "secret.txt"));
  });
});
