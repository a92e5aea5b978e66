import type { Stats } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { defineTool, ToolInputError } from "./define.ts";
import { displayPath, resolveInWorkspace } from "./workspace.ts";

/** stat, or undefined when nothing is reachable there (missing, or a dangling or looping symlink). */
export async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return undefined;
    throw err;
  }
}

/** mkdir -p, with a message the model can act on when part of the path is a file. */
async function makeParents(dir: string, shownPath: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR" || code === "EEXIST") {
      throw new ToolInputError(
        `cannot create ${shownPath}: part of its parent path is a file, not a directory`,
      );
    }
    throw err;
  }
}

export const writeFileTool = defineTool({
  name: "write_file",
  description: [
    "Write a text file: creates it, or replaces its whole content if it exists.",
    "- path: relative to the workspace root (absolute paths inside the workspace also work). Missing parent directories are created.",
    "- content: the complete new file content, written exactly as given (UTF-8; include the final newline if the file should end with one).",
    "The write is atomic, and an existing file keeps its permissions.",
    'Returns {"success":true,"bytes":N} and whether the file was created or overwritten.',
    "To change part of an existing file prefer edit_file: it is safer and shows a diff. Read a file before overwriting it.",
    "Errors: a path outside the workspace (and its workspace.allow directories) is refused; so is a path that is a directory.",
  ].join("\n"),
  schema: z.object({
    path: z.string().describe("File to write, relative to the workspace root"),
    content: z.string().describe("The full content of the file"),
  }),
  readOnly: false,
  async execute({ path, content }, ctx) {
    const target = resolveInWorkspace(path, { root: ctx.cwd, allow: ctx.allow });
    const shown = displayPath(target, ctx.cwd);
    const existing = await statOrUndefined(target);
    if (existing?.isDirectory()) throw new ToolInputError(`${shown} is a directory; give the path of a file`);
    if (existing && !existing.isFile()) throw new ToolInputError(`${shown} is not a regular file`);
    ctx.signal.throwIfAborted();
    await makeParents(dirname(target), shown);
    // An existing file keeps its permission bits.
    await writeFileAtomic(target, content);
    const bytes = Buffer.byteLength(content, "utf8");
    return `${JSON.stringify({ success: true, bytes })}\n${existing ? "Overwrote" : "Created"} ${shown}`;
  },
});
