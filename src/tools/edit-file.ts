import { readFile } from "node:fs/promises";
import { z } from "zod";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { defineTool, ToolInputError } from "./define.ts";
import { unifiedDiff } from "./diff.ts";
import { isBinary, truncateHead } from "./limits.ts";
import { displayPath, resolveInWorkspace } from "./workspace.ts";
import { statOrUndefined } from "./write-file.ts";

/** The diff returned to the model is cut beyond this. */
export const MAX_DIFF_CHARS = 30_000;

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) count++;
  return count;
}

/** Strict UTF-8 with the BOM kept, so writing the text back changes no byte outside the edit; undefined if invalid. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (err) {
    if (err instanceof TypeError) return undefined;
    throw err;
  }
}

/** `\n` → `\r\n`, leaving line ends that already are `\r\n` alone. */
function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

/**
 * Where the model's text matches the file. read_file shows CRLF line ends as plain lines, so in a file
 * that uses CRLF the model's `\n` may stand for `\r\n`: in old_string when only that form matches, and
 * in new_string whenever the file uses CRLF throughout (a mixed file keeps what was written).
 */
function matchLineEnds(
  content: string,
  oldString: string,
  newString: string,
): { search: string; replacement: string; count: number } {
  const hasCrlf = content.includes("\r\n");
  const allCrlf = hasCrlf && !/(?<!\r)\n/.test(content);
  const count = countOccurrences(content, oldString);
  if (count > 0 || !hasCrlf || !oldString.includes("\n")) {
    return { search: oldString, replacement: allCrlf ? toCrlf(newString) : newString, count };
  }
  const search = toCrlf(oldString);
  return { search, replacement: toCrlf(newString), count: countOccurrences(content, search) };
}

export const editFileTool = defineTool({
  name: "edit_file",
  description: [
    "Edit an existing text file by replacing an exact piece of text. Returns a unified diff of the change.",
    "- path: relative to the workspace root (absolute paths inside the workspace also work).",
    "- old_string: the exact text to replace, copied from the file: every space, tab and line break must match. Do not include read_file's line-number prefixes.",
    "- new_string: the text to put in its place (must differ from old_string; empty deletes old_string).",
    "- replace_all: replace every occurrence (default false).",
    "Without replace_all, old_string must occur exactly once: include enough surrounding lines to make it unique.",
    "Files with CRLF line ends keep them: write old_string and new_string with plain newlines.",
    "Errors: old_string not found (read the file again and copy the text exactly); found N times (add context or set replace_all);",
    "missing file (use write_file to create files); binary file; path outside the workspace.",
  ].join("\n"),
  schema: z.object({
    path: z.string().describe("File to edit, relative to the workspace root"),
    old_string: z
      .string()
      .min(1, "must not be empty; to create a file or replace all of it use write_file")
      .describe("Exact text to replace"),
    new_string: z.string().describe("Text to replace it with"),
    replace_all: z.boolean().optional().describe("Replace every occurrence of old_string (default false)"),
  }),
  readOnly: false,
  async execute(
    { path, old_string: oldString, new_string: newString, replace_all: replaceAll = false },
    ctx,
  ) {
    const target = resolveInWorkspace(path, { root: ctx.cwd, allow: ctx.allow });
    const shown = displayPath(target, ctx.cwd);
    if (oldString === newString) {
      throw new ToolInputError("old_string and new_string are identical; there is nothing to change");
    }
    const info = await statOrUndefined(target);
    if (!info)
      throw new ToolInputError(
        `no such file: ${shown} (edit_file changes existing files; use write_file to create one)`,
      );
    if (info.isDirectory()) throw new ToolInputError(`${shown} is a directory, not a file`);
    if (!info.isFile()) throw new ToolInputError(`${shown} is not a regular file`);

    const bytes = await readFile(target, { signal: ctx.signal });
    const content = isBinary(bytes) ? undefined : decodeUtf8(bytes);
    if (content === undefined) {
      throw new ToolInputError(
        `${shown} is a binary or non-UTF-8 file (${bytes.length} bytes); edit_file only edits text`,
      );
    }

    const { search, replacement, count } = matchLineEnds(content, oldString, newString);
    if (count === 0) {
      throw new ToolInputError(
        `old_string was not found in ${shown}. Read the file with read_file first and copy the text exactly: whitespace, indentation and line breaks must match, without the line-number prefixes.`,
      );
    }
    if (count > 1 && !replaceAll) {
      throw new ToolInputError(
        `old_string was found ${count} times in ${shown}; include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence`,
      );
    }
    // split/join and slicing, not String.replace: `$&` and `$1` in new_string must stay literal.
    const at = content.indexOf(search);
    const updated = replaceAll
      ? content.split(search).join(replacement)
      : content.slice(0, at) + replacement + content.slice(at + search.length);
    if (updated === content) throw new ToolInputError(`the edit would not change ${shown}`);
    ctx.signal.throwIfAborted();
    await writeFileAtomic(target, updated);

    const diff = unifiedDiff(content.replaceAll("\r\n", "\n"), updated.replaceAll("\r\n", "\n"), {
      path: shown,
    });
    const replaced = replaceAll ? `${count} occurrence${count === 1 ? "" : "s"}` : "1 occurrence";
    return {
      content: `Edited ${shown} (replaced ${replaced})\n${truncateHead(diff, MAX_DIFF_CHARS)}`,
      is_error: false,
      metadata: { diff: truncateHead(diff, MAX_DIFF_CHARS) },
    };
  },
});
