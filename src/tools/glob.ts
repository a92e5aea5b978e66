import { stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineTool, ToolInputError } from "./define.ts";
import { type WalkedFile, walkFiles, walkNotes } from "./walk.ts";
import { displayPath, resolveInWorkspace, type WorkspaceScope } from "./workspace.ts";

/** Paths shown at most (the newest). */
export const GLOB_MAX_RESULTS = 1000;
/** Characters of paths listed at most: past it, paths are counted in the "more matched" line instead. */
export const GLOB_MAX_OUTPUT_CHARS = 60_000;
/** How many files are stat'ed at once when ordering matches by modification time. */
const STAT_BATCH = 256;

const description = `Find files by name with a glob pattern. Returns the matching file paths, one per line, relative to the workspace root, newest first (by modification time).

- \`pattern\` is matched against each file's path relative to \`path\` (default: the workspace root). Syntax: \`*\` matches within one path segment, \`**\` any number of directories, \`?\` one character, \`[abc]\` one of a set, \`{ts,tsx}\` alternatives. \`*.ts\` finds .ts files directly in \`path\` only; use \`**/*.ts\` for every subdirectory and \`src/**/*.test.ts\` for a subtree. Keep the pattern relative: to search elsewhere, set \`path\` (no absolute paths or \`..\` in the pattern).
- Returns files only, never directories. Dotfiles match like any other file.
- Not searched: anything excluded by .gitignore files (at every level, negation rules included) or .git/info/exclude, and the .git directory. A directory you name explicitly (as \`path\`, or as the leading literal directories of the pattern, e.g. \`dist/**/*.js\`) is searched even if .gitignore excludes it. Symlinked directories are not followed.
- At most ${GLOB_MAX_RESULTS} paths (and ${GLOB_MAX_OUTPUT_CHARS} characters) are listed, the newest; a final line says how many more matched. The search stops after visiting 200 000 entries and says so; narrow \`path\` then.
- No match is not an error: you get a line saying no files match.
Use grep to search file contents.`;

const schema = z.object({
  pattern: z.string().min(1).describe("Glob matched against paths relative to `path`, e.g. `**/*.ts`"),
  path: z.string().optional().describe("Directory to search, relative to the workspace root (default `.`)"),
});

/** Characters that make a path segment a pattern rather than a literal name. */
const GLOB_SPECIAL = /[*?[\]{}!\\]/;

/** Strips `./`, refuses absolute patterns and `..` (they could never match a path relative to `path`). */
function normalizePattern(pattern: string): string {
  let normalized = pattern.trim();
  while (normalized.startsWith("./")) normalized = normalized.slice(2);
  if (
    normalized.startsWith("/") ||
    /^[A-Za-z]:[\\/]/.test(normalized) ||
    normalized.split("/").includes("..")
  ) {
    throw new ToolInputError(
      `glob pattern ${JSON.stringify(pattern)} must be relative to \`path\`: to search another directory, pass it as \`path\` and keep the pattern relative (e.g. path "src", pattern "**/*.ts")`,
    );
  }
  if (normalized === "") throw new ToolInputError("glob pattern is empty");
  return normalized;
}

/** The leading directories of a pattern that hold no wildcard (`src/tools` in `src/tools/**\/*.ts`). */
function literalBase(pattern: string): string {
  const segments = pattern.split("/");
  const base: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (segment === "" || segment === "." || GLOB_SPECIAL.test(segment)) break;
    base.push(segment);
  }
  return base.join("/");
}

/** Where to start walking: below the pattern's literal base when that is a plain directory (no symlink). */
async function walkStart(dir: string, base: string, scope: WorkspaceScope): Promise<string | undefined> {
  if (base === "") return dir;
  const start = join(dir, base);
  let real: string;
  try {
    real = resolveInWorkspace(start, scope);
  } catch (err) {
    if (err instanceof ToolInputError) return undefined; // through a symlink out of the workspace: never walked
    throw err;
  }
  if (real !== start) return dir; // a symlink on the way: walk from `dir`, which does not follow it
  const info = await stat(start).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT" || err.code === "ENOTDIR") return undefined;
    throw err;
  });
  return info?.isDirectory() ? start : undefined;
}

interface Match {
  path: string;
  mtime: number;
}

/** Modification times for the matches, a batch at a time; files removed meanwhile are dropped. */
async function withMtimes(files: WalkedFile[], signal: AbortSignal): Promise<Match[]> {
  const matches: Match[] = [];
  for (let i = 0; i < files.length; i += STAT_BATCH) {
    signal.throwIfAborted();
    const batch = await Promise.all(
      files.slice(i, i + STAT_BATCH).map(async (file) => {
        try {
          return { path: file.path, mtime: (await stat(file.path)).mtimeMs };
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
          throw err;
        }
      }),
    );
    for (const match of batch) if (match) matches.push(match);
  }
  return matches;
}

export const globTool = defineTool({
  name: "glob",
  description,
  schema,
  readOnly: true,
  async execute({ pattern, path = "." }, ctx) {
    const scope = { root: ctx.cwd, allow: ctx.allow };
    const dir = resolveInWorkspace(path, scope);
    const info = await stat(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT" || err.code === "ENOTDIR") throw new ToolInputError(`${path} does not exist`);
      throw err;
    });
    if (!info.isDirectory())
      throw new ToolInputError(
        `${path} is a file, not a directory: glob searches a directory (give its directory as path and the file name as pattern), or use read_file`,
      );
    const normalized = normalizePattern(pattern);
    const glob = new Bun.Glob(normalized);
    const base = literalBase(normalized);
    const start = await walkStart(dir, base, scope);
    const where = displayPath(dir, ctx.cwd);
    if (!start) return `No files match ${normalized} in ${where}`;
    const prefix = start === dir ? "" : `${base}/`;

    const walk = walkFiles(start, { scope, signal: ctx.signal });
    const found: WalkedFile[] = [];
    let matches: Match[];
    try {
      for await (const file of walk) if (glob.match(prefix + file.rel)) found.push(file);
      matches = await withMtimes(found, ctx.signal);
    } catch (err) {
      if (ctx.signal.aborted) return { content: "glob was cancelled", is_error: true };
      throw err;
    }
    const notes = walkNotes(walk, ctx.cwd);
    if (matches.length === 0) return [`No files match ${normalized} in ${where}`, ...notes].join("\n");

    matches.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const shown: string[] = [];
    let chars = 0;
    for (const match of matches.slice(0, GLOB_MAX_RESULTS)) {
      const line = displayPath(match.path, ctx.cwd);
      chars += line.length + 1;
      if (chars > GLOB_MAX_OUTPUT_CHARS) break;
      shown.push(line);
    }
    const more = matches.length - shown.length;
    if (more > 0)
      notes.unshift(
        `[… ${more} more files matched (${matches.length} in all); only the ${shown.length} newest are listed — narrow the pattern or path]`,
      );
    return [...shown, ...notes].join("\n");
  },
});
