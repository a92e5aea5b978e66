import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { gitBranch as contextGitBranch } from "../../src/agent/context.ts";
import { findGitRoot, gitBranch } from "../../src/util/git.ts";
import { tree } from "../support/tool-workspace.ts";
import { useTempHome } from "./temp-home.ts";

const t = useTempHome("ion-git-");

describe("findGitRoot", () => {
  test("the nearest directory holding .git, from any depth", () => {
    const root = join(t.base, "repo");
    tree(root, { ".git/HEAD": "ref: refs/heads/main\n", "a/b/file.txt": "" });
    expect(findGitRoot(join(root, "a/b"))).toEqual({ root, gitDir: join(root, ".git") });
    expect(findGitRoot(root)).toEqual({ root, gitDir: join(root, ".git") });
  });

  test("a .git file points at the git dir (worktrees, submodules), relative or absolute", () => {
    const root = join(t.base, "wt");
    tree(root, { ".git": "gitdir: ../main/.git/worktrees/wt\n" });
    expect(findGitRoot(root)).toEqual({ root, gitDir: join(t.base, "main/.git/worktrees/wt") });
    tree(root, { ".git": "gitdir: /abs/.git/modules/x\n" });
    expect(findGitRoot(root)?.gitDir).toBe("/abs/.git/modules/x");
  });

  test("a .git file without a gitdir line is not a repository: the search goes on upward", () => {
    const outer = join(t.base, "outer");
    tree(outer, { ".git/HEAD": "ref: refs/heads/x\n", "inner/.git": "not a pointer\n" });
    expect(findGitRoot(join(outer, "inner"))?.root).toBe(outer);
  });

  test("undefined outside any repository", () => {
    mkdirSync(join(t.base, "plain"));
    expect(findGitRoot(join(t.base, "plain"))).toBeUndefined();
  });
});

describe("gitBranch", () => {
  test("the branch HEAD names; undefined when detached or outside a repository", () => {
    const root = join(t.base, "repo");
    tree(root, { ".git/HEAD": "ref: refs/heads/feature/x\n", "src/a.ts": "" });
    expect(gitBranch(join(root, "src"))).toBe("feature/x");
    tree(root, { ".git/HEAD": "3f1f7a0c2b113f1f7a0c2b113f1f7a0c2b113f1f\n" });
    expect(gitBranch(root)).toBeUndefined();
    expect(gitBranch(t.home)).toBeUndefined();
  });

  test("worktrees read HEAD from the git dir the .git file names", () => {
    tree(t.base, {
      "main/.git/worktrees/wt/HEAD": "ref: refs/heads/wt-branch\n",
      "wt/.git": "gitdir: ../main/.git/worktrees/wt\n",
    });
    expect(gitBranch(join(t.base, "wt"))).toBe("wt-branch");
  });

  test("an unreadable HEAD is no branch, not a failure", () => {
    tree(t.base, { "repo/.git/config": "" });
    expect(gitBranch(join(t.base, "repo"))).toBeUndefined();
  });

  test("src/agent/context.ts re-exports the same function", () => {
    expect(contextGitBranch).toBe(gitBranch);
  });
});
