import type { Stats } from "node:fs";
import { chmod, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
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

/**
 * Replaces `path` atomically: the data goes to a temp file in the same directory, is flushed, then
 * renamed over the target, so a reader or a crash sees the old file or the new one, never half of it.
 * An existing file keeps its permission bits. The temp file is removed if anything fails.
 */
export async function atomicWriteFile(path: string, data: string | Uint8Array): Promise<void> {
  const existing = await statOrUndefined(path);
  const temp = join(dirname(path), `.${basename(path)}.ion-${crypto.randomUUID().slice(0, 12)}.tmp`);
  try {
    const handle = await open(temp, "wx", 0o666);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // After open: the mode given to open is masked by the umask, chmod is not.
    if (existing) await chmod(temp, existing.mode & 0o7777);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
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
    await atomicWriteFile(target, content);
    const bytes = Buffer.byteLength(content, "utf8");
    return `${JSON.stringify({ success: true, bytes })}\n${existing ? "Overwrote" : "Created"} ${shown}`;
  },
});
