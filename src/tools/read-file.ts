import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defineTool, ToolInputError } from "./define.ts";
import { isBinary, truncateHead } from "./limits.ts";
import { displayPath, resolveInWorkspace } from "./workspace.ts";
import { statOrUndefined } from "./write-file.ts";

/** Lines shown per call, at most and by default. */
export const MAX_LINES = 2000;
/** A longer line is cut, with a marker line after it. */
export const MAX_LINE_CHARS = 2000;
/** The numbered lines of one call stay under this; the paging note says where to continue. */
export const MAX_OUTPUT_CHARS = 100_000;
/** Files bigger than this are not loaded at all. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;

function numbered(lineNumber: number, line: string): string {
  return `${String(lineNumber).padStart(6)}\t${truncateHead(line, MAX_LINE_CHARS)}`;
}

/** The lines of a text: `\n` or `\r\n` separated; a final line end does not start another line. */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

export const readFileTool = defineTool({
  name: "read_file",
  description: [
    "Read a text file. Returns its lines numbered like `cat -n`: the line number right-aligned in 6 columns, a tab, then the line.",
    "- path: relative to the workspace root (absolute paths inside the workspace also work).",
    `- offset: the 1-based line to start at (default 1). limit: how many lines (default and maximum ${MAX_LINES}).`,
    `Output is also capped at ${MAX_OUTPUT_CHARS} characters; a line longer than ${MAX_LINE_CHARS} characters is cut and followed by a line \`[… truncated: N more characters not shown]\`.`,
    "When more lines follow, the output ends with `[showing lines A-B of N; call read_file with offset B+1 to continue]`: call again with that offset to page.",
    "The line-number prefix is not part of the file: never copy it into edit_file's old_string. Windows line ends (CRLF) are shown as plain lines.",
    "Errors: binary files (NUL bytes or invalid UTF-8) are refused with their size; a directory is refused (use list_files); a missing file says so; paths outside the workspace are refused.",
  ].join("\n"),
  schema: z.object({
    path: z.string().describe("File to read, relative to the workspace root"),
    offset: z.number().int().min(1).optional().describe("1-based line number to start at (default 1)"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LINES)
      .optional()
      .describe(`Number of lines to read (default and maximum ${MAX_LINES})`),
  }),
  readOnly: true,
  async execute({ path, offset = 1, limit = MAX_LINES }, ctx) {
    const target = resolveInWorkspace(path, { root: ctx.cwd, allow: ctx.allow });
    const shown = displayPath(target, ctx.cwd);
    const info = await statOrUndefined(target);
    if (!info) throw new ToolInputError(`no such file: ${shown}`);
    if (info.isDirectory())
      throw new ToolInputError(`${shown} is a directory; use list_files to see its entries`);
    if (!info.isFile()) throw new ToolInputError(`${shown} is not a regular file`);
    if (info.size > MAX_FILE_BYTES) {
      throw new ToolInputError(
        `${shown} is too large to read (${info.size} bytes); use grep to find the relevant part, or bash (head, tail, sed -n)`,
      );
    }
    const bytes = await readFile(target, { signal: ctx.signal });
    if (bytes.length === 0) return `${shown} is empty (0 bytes)`;
    if (isBinary(bytes)) {
      throw new ToolInputError(
        `${shown} is a binary file (${bytes.length} bytes); read_file only shows text`,
      );
    }

    const lines = splitLines(new TextDecoder("utf-8").decode(bytes));
    if (offset > lines.length) {
      throw new ToolInputError(
        `offset ${offset} is past the end of ${shown}, which has ${lines.length} lines`,
      );
    }
    const out: string[] = [];
    let chars = 0;
    let last = offset - 1; // the last line shown, 1-based
    for (let i = offset - 1; i < Math.min(lines.length, offset - 1 + limit); i++) {
      const text = numbered(i + 1, lines[i]!);
      if (out.length > 0 && chars + text.length + 1 > MAX_OUTPUT_CHARS) break;
      out.push(text);
      chars += text.length + 1;
      last = i + 1;
    }
    if (last < lines.length) {
      out.push(
        `[showing lines ${offset}-${last} of ${lines.length}; call read_file with offset ${last + 1} to continue]`,
      );
    }
    return out.join("\n");
  },
});
