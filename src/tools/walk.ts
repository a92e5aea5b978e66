import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { errnoOf } from "../util/error-text.ts";
import { findGitRoot } from "../util/git.ts";
import { isInside, NOT_REGULAR, readProjectFile } from "../util/project-file.ts";
import { ToolInputError } from "./define.ts";
import { displayPath, resolveInWorkspace, type WorkspaceScope } from "./workspace.ts";

/** How many directory entries one walk may visit before it stops (and says so). */
export const MAX_WALK_ENTRIES = 200_000;

export interface WalkOptions {
  /** The workspace: symlinked files are yielded only when their real target is inside it. */
  scope: WorkspaceScope;
  /** Stops the walk: the iterator throws the signal's reason at the next entry. */
  signal?: AbortSignal;
  /** Entries (files, directories, links — ignored ones too) to visit before stopping; default MAX_WALK_ENTRIES. */
  maxEntries?: number;
}

export interface WalkedFile {
  /** Absolute path below the walked directory; a symlinked file keeps its link's path. */
  path: string;
  /** Path relative to the walked directory, `/`-separated. */
  rel: string;
}

/** One .gitignore (or .git/info/exclude): its rules and where it sits, relative to the rules' top directory. */
interface RuleLevel {
  /** `""` for the top directory, else its path relative to the top followed by `/`. */
  prefix: string;
  rules: Ignore;
}

/** A directory being listed: its sorted entries and how far the walk has got through them. */
interface Frame {
  abs: string;
  /** Relative to the walked directory (`""` for the directory itself). */
  rel: string;
  /** Relative to the rules' top directory. */
  topRel: string;
  levels: readonly RuleLevel[];
  entries: Dirent[];
  next: number;
}

/** git matches ignore patterns case-insensitively where the file system is (core.ignorecase). */
const IGNORE_CASE = process.platform === "darwin" || process.platform === "win32";

const toPosix = (path: string): string => (sep === "/" ? path : path.split(sep).join("/"));
const joinRel = (parent: string, name: string): string => (parent === "" ? name : `${parent}/${name}`);

/**
 * git's precedence: the deepest .gitignore that has a say decides, .git/info/exclude (the first level)
 * has the least. Within one file the last matching rule wins, which `ignore` handles.
 *
 * Known gap: `ignore` also reports a path as ignored when a parent directory is excluded at that same
 * level, so a directory excluded by an outer .gitignore and re-included (`!dir/`) by an inner one still
 * has its files judged excluded by the outer file. git itself rarely sees that setup; we accept it.
 */
function isIgnored(levels: readonly RuleLevel[], topRel: string, isDir: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i]!;
    const result = level.rules.test(topRel.slice(level.prefix.length) + (isDir ? "/" : ""));
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

/**
 * The files below one directory, depth first in name order, honouring .gitignore files at every level
 * (and those of the enclosing git work tree above it), `.git/info/exclude`, and always skipping `.git`.
 * Symlinked directories are never followed; symlinked files are yielded only when their target is a file
 * inside the workspace. Sockets, FIFOs and devices are skipped.
 *
 * The directory itself is always walked, even if an outer .gitignore excludes it: in that case the outer
 * rules are dropped and only .gitignore files inside it apply (asking for `dist/` searches `dist/`).
 *
 * Iterate it with `for await`; afterwards `limitReached` and `unreadable` say whether the walk was complete.
 */
export class FileWalk implements AsyncIterable<WalkedFile> {
  /** True when the walk stopped early because it visited `maxEntries` entries. */
  limitReached = false;
  /** Entries visited so far. */
  visited = 0;
  /** Directories and ignore files that could not be read (permission denied, removed meanwhile). */
  readonly unreadable: string[] = [];
  private readonly maxEntries: number;
  /** The directory the ignore files belong to (the git root, else the workspace): none is read from outside it. */
  private top: string;

  /** `dir` must be an absolute real path inside the workspace, as `resolveInWorkspace` returns it. */
  constructor(
    readonly dir: string,
    private readonly options: WalkOptions,
  ) {
    this.maxEntries = options.maxEntries ?? MAX_WALK_ENTRIES;
    this.top = dir;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WalkedFile, void, undefined> {
    const { signal } = this.options;
    signal?.throwIfAborted();
    const gitRoot = findGitRoot(this.dir)?.root;
    const root = resolveInWorkspace(".", this.options.scope);
    const top = gitRoot ?? (isInside(this.dir, root) ? root : this.dir);
    this.top = top;
    const topRel = toPosix(relative(top, this.dir));
    const levels = await this.outerLevels(top, topRel, gitRoot);

    const stack: Frame[] = [];
    const first = await this.open(this.dir, "", topRel, levels);
    if (first) stack.push(first);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const entry = frame.entries[frame.next++];
      if (!entry) {
        stack.pop();
        continue;
      }
      signal?.throwIfAborted();
      if (this.visited >= this.maxEntries) {
        this.limitReached = true;
        return;
      }
      this.visited++;
      if (entry.name === ".git") continue;
      const abs = join(frame.abs, entry.name);
      const rel = joinRel(frame.rel, entry.name);
      const entryTopRel = joinRel(frame.topRel, entry.name);
      if (entry.isDirectory()) {
        if (isIgnored(frame.levels, entryTopRel, true)) continue;
        const child = await this.open(abs, rel, entryTopRel, frame.levels);
        if (child) stack.push(child);
      } else if (entry.isFile()) {
        if (!isIgnored(frame.levels, entryTopRel, false)) yield { path: abs, rel };
      } else if (entry.isSymbolicLink()) {
        if (!isIgnored(frame.levels, entryTopRel, false) && (await this.isLinkedFileInside(abs)))
          yield { path: abs, rel };
      }
    }
  }

  /** Rules that apply from above the walked directory: info/exclude and the .gitignore files up to `top`. */
  private async outerLevels(top: string, topRel: string, gitRoot: string | undefined): Promise<RuleLevel[]> {
    const levels: RuleLevel[] = [];
    const exclude = gitRoot && (await this.readRules(join(gitRoot, ".git", "info", "exclude")));
    if (exclude) levels.push({ prefix: "", rules: exclude });
    // When the walked directory is the top, its own .gitignore is read as it is listed.
    if (topRel === "") return levels;
    const parts = topRel.split("/");
    for (let depth = 0; depth < parts.length; depth++) {
      const base = parts.slice(0, depth);
      const rules = await this.readRules(join(top, ...base, ".gitignore"));
      if (rules) levels.push({ prefix: base.length === 0 ? "" : `${base.join("/")}/`, rules });
    }
    // Named explicitly, the directory is walked even when excluded: then the outer rules do not apply.
    return isIgnored(levels, topRel, true) ? [] : levels;
  }

  /** Lists a directory (sorted) and adds its own .gitignore to the rules its entries are judged by. */
  private async open(
    abs: string,
    rel: string,
    topRel: string,
    levels: readonly RuleLevel[],
  ): Promise<Frame | undefined> {
    let entries: Dirent[];
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch (err) {
      const code = errnoOf(err);
      if (code !== "EACCES" && code !== "EPERM" && code !== "ENOENT" && code !== "ENOTDIR") throw err;
      this.unreadable.push(abs);
      return undefined;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const gitignore = entries.find((e) => e.name === ".gitignore" && e.isFile());
    const rules = gitignore && (await this.readRules(join(abs, ".gitignore")));
    const own = rules ? [...levels, { prefix: topRel === "" ? "" : `${topRel}/`, rules }] : levels;
    return { abs, rel, topRel, levels: own, entries, next: 0 };
  }

  /** An ignore file comes from the repository: read through the project-file rules (a link out, a FIFO or a huge file is not read). */
  private async readRules(path: string): Promise<Ignore | undefined> {
    const file = readProjectFile(path, this.top);
    if (file.kind === "missing" || (file.kind === "refused" && file.reason === NOT_REGULAR)) return undefined;
    if (file.kind === "refused") {
      this.unreadable.push(path);
      return undefined;
    }
    return ignore({ ignorecase: IGNORE_CASE }).add(new TextDecoder().decode(file.bytes));
  }

  /** A symlink counts as a file when it points at a regular file whose real path is in the workspace. */
  private async isLinkedFileInside(path: string): Promise<boolean> {
    try {
      if (!(await stat(path)).isFile()) return false; // symlinked directories are never followed
    } catch (err) {
      const code = errnoOf(err);
      if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP" || code === "EACCES") return false;
      throw err;
    }
    try {
      resolveInWorkspace(path, this.options.scope);
      return true;
    } catch (err) {
      if (err instanceof ToolInputError) return false;
      throw err;
    }
  }
}

/** Walks the files below `dir` (an absolute real path inside the workspace); see FileWalk. */
export function walkFiles(dir: string, options: WalkOptions): FileWalk {
  return new FileWalk(dir, options);
}

/** Lines telling the model a walk was incomplete: the entry limit, unreadable directories. */
export function walkNotes(walk: FileWalk, root: string): string[] {
  const notes: string[] = [];
  if (walk.limitReached)
    notes.push(
      `[search stopped after visiting ${walk.visited} entries: results are incomplete; narrow \`path\` or the pattern]`,
    );
  if (walk.unreadable.length > 0) {
    const shown = walk.unreadable.slice(0, 5).map((p) => displayPath(p, root));
    const more =
      walk.unreadable.length > shown.length ? `, … ${walk.unreadable.length - shown.length} more` : "";
    notes.push(`[could not read ${walk.unreadable.length}: ${shown.join(", ")}${more}]`);
  }
  return notes;
}
