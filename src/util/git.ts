import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

/**
 * The one place that finds a git repository (no git process: ion reads `.git` itself).
 *
 *   findGitRoot(cwd) → { root, gitDir } | undefined   the nearest repository at or above cwd
 *   gitBranch(cwd)   → string | undefined             the branch HEAD names; undefined when detached
 */

export interface GitRepository {
  /** The work tree's top directory: the one holding `.git`. */
  root: string;
  /** The repository's git directory: `.git` itself, or where a `.git` file points (worktrees, submodules). */
  gitDir: string;
}

/**
 * The nearest `.git` upward from `start` (a path as given; symlinks in it are not resolved, so the root
 * is an ancestor of `start` as the caller wrote it). `.git` is a directory or, in worktrees and
 * submodules, a file `gitdir: <path>`; a `.git` file without that line is not a repository.
 */
export function findGitRoot(start: string): GitRepository | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const gitDir = gitDirAt(dir);
    if (gitDir !== undefined) return { root: dir, gitDir };
    if (dirname(dir) === dir) return undefined;
  }
}

function gitDirAt(dir: string): string | undefined {
  const dotGit = join(dir, ".git");
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const pointer = readFileSync(dotGit, "utf8")
      .match(/^gitdir: (.+)$/m)?.[1]
      ?.trim();
    if (!pointer) return undefined;
    return isAbsolute(pointer) ? pointer : join(dir, pointer);
  } catch {
    // No (readable) .git here: not a repository root, keep walking up.
    return undefined;
  }
}

/** The current branch, read from HEAD. Undefined when detached, unreadable or outside a repository. */
export function gitBranch(cwd: string): string | undefined {
  const repo = findGitRoot(cwd);
  if (!repo) return undefined;
  try {
    return readFileSync(join(repo.gitDir, "HEAD"), "utf8").match(/^ref: refs\/heads\/(.+)$/m)?.[1];
  } catch {
    return undefined; // an unreadable HEAD is not worth failing a run over
  }
}
