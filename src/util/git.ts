import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { ownedByOther } from "./project-file.ts";

/**
 * The one place that finds a git repository (no git process: ion reads `.git` itself).
 *
 *   findGitRoot(cwd) → { root, gitDir } | undefined   the nearest repository at or above cwd
 *   locateRepository(cwd) → { repo, ignored }          the same, and a repository it refused to use
 *   gitBranch(cwd)   → string | undefined             the branch HEAD names; undefined when detached
 *
 * Like git's `safe.directory`, the walk up stops at a directory owned by another account (root
 * excepted): a world-writable parent with a `.git` of someone else's must not become the user's
 * project, whose AGENTS.md and .gitignore ion would then read.
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
  return locateRepository(start).repo;
}

/** A repository the walk did not use: it sits at or above a directory another account owns. */
export interface IgnoredRepository {
  root: string;
  /** The directory whose owner stopped the walk. */
  foreignDir: string;
  uid: number;
}

export function locateRepository(start: string): {
  repo: GitRepository | undefined;
  ignored: IgnoredRepository | undefined;
} {
  for (let dir = start; ; dir = dirname(dir)) {
    const uid = foreignOwner(dir);
    if (uid !== undefined) return { repo: undefined, ignored: repositoryAbove(dir, uid) };
    const gitDir = gitDirAt(dir);
    if (gitDir !== undefined) return { repo: { root: dir, gitDir }, ignored: undefined };
    if (dirname(dir) === dir) return { repo: undefined, ignored: undefined };
  }
}

/** The repository the walk would have found from `foreignDir` up, had it not stopped there. */
function repositoryAbove(foreignDir: string, uid: number): IgnoredRepository | undefined {
  for (let dir = foreignDir; ; dir = dirname(dir)) {
    if (gitDirAt(dir) !== undefined) return { root: dir, foreignDir, uid };
    if (dirname(dir) === dir) return undefined;
  }
}

function foreignOwner(dir: string): number | undefined {
  try {
    return ownedByOther(statSync(dir));
  } catch {
    // A directory that cannot be stat'ed (removed, no permission) has no owner to object to.
    return undefined;
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
