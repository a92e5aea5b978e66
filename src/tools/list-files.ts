import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineTool, ToolInputError } from "./define.ts";
import { displayPath, resolveInWorkspace } from "./workspace.ts";
import { statOrUndefined } from "./write-file.ts";

/** Entries shown per directory; the rest are counted in a marker line. */
export const MAX_ENTRIES = 2000;

/** The entry's name, with `/` after a directory or a symlink to one. */
async function entryName(dir: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) {
    // A dangling link has no target to describe: it is listed by name only.
    const target = await statOrUndefined(join(dir, entry.name));
    if (target?.isDirectory()) return `${entry.name}/`;
  }
  return entry.name;
}

export const listFilesTool = defineTool({
  name: "list_files",
  description: [
    "List the entries of one directory (not recursive), one per line, sorted by name. Directories (and symlinks to directories) end with `/`. Hidden entries are included.",
    "- path: the directory, relative to the workspace root (default `.`, the root itself).",
    `At most ${MAX_ENTRIES} entries are shown; a last line \`[… N more entries not shown]\` says how many were left out — use glob or grep to narrow down.`,
    "To explore deeper, call list_files on a subdirectory, or use glob with a pattern such as `src/**/*.ts`.",
    "Errors: a path that is a file (use read_file), a missing directory, and paths outside the workspace are refused.",
  ].join("\n"),
  schema: z.object({
    path: z.string().optional().describe("Directory to list, relative to the workspace root (default `.`)"),
  }),
  readOnly: true,
  async execute({ path = "." }, ctx) {
    const target = resolveInWorkspace(path, { root: ctx.cwd, allow: ctx.allow });
    const shown = displayPath(target, ctx.cwd);
    const info = await statOrUndefined(target);
    if (!info) throw new ToolInputError(`no such directory: ${shown}`);
    if (!info.isDirectory())
      throw new ToolInputError(`${shown} is a file, not a directory; use read_file to read it`);

    const entries = await readdir(target, { withFileTypes: true });
    if (entries.length === 0) return `${shown} is an empty directory`;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const shownEntries = entries.slice(0, MAX_ENTRIES);
    const lines = await Promise.all(shownEntries.map((entry) => entryName(target, entry)));
    if (entries.length > MAX_ENTRIES)
      lines.push(`[… ${entries.length - MAX_ENTRIES} more entries not shown]`);
    return lines.join("\n");
  },
});
