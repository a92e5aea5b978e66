import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defineTool, ToolInputError } from "./define.ts";
import { isBinary, truncateHead } from "./limits.ts";
import { readLineWindow } from "./read-file-stream.ts";
import { displayPath, resolveInWorkspace } from "./workspace.ts";
import { statOrUndefined } from "./write-file.ts";

/** Lines shown per call, at most and by default. */
export const MAX_LINES = 2000;
/** A longer line is cut, with a marker line after it. */
export const MAX_LINE_CHARS = 2000;
/** The numbered lines of one call stay under this; the paging note says where to continue. */
export const MAX_OUTPUT_CHARS = 100_000;
/** Files bigger than this are not loaded whole: only read page by page (offset/limit), line by line. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

/** `cut`: characters of the line not read at all (a huge line of a paged file); counted in the marker. */
function numbered(lineNumber: number, line: string, cut = 0): string {
  const prefix = `${String(lineNumber).padStart(6)}\t`;
  if (cut === 0) return `${prefix}${truncateHead(line, MAX_LINE_CHARS)}`;
  const shown = truncateHead(line, MAX_LINE_CHARS).split("\n")[0] ?? "";
  return `${prefix}${shown}\n[… truncated: ${line.length - shown.length + cut} more characters not shown]`;
}

/** A file over MAX_FILE_BYTES, read only as far as the requested lines: it is never loaded whole. */
async function pagedRead(
  target: string,
  shown: string,
  size: number,
  offset: number,
  limit: number,
  signal: AbortSignal | undefined,
): Promise<string> {
  let chars = 0;
  const window = await readLineWindow(target, offset, limit, MAX_LINE_CHARS * 4, size, signal, (kept) => {
    chars += numbered(offset + kept.length - 1, kept.at(-1) ?? "").length + 1;
    return chars <= MAX_OUTPUT_CHARS; // one line past the cap at most; trimmed below
  });
  if (window.binary)
    throw new ToolInputError(`${shown} is a binary file (${size} bytes); read_file only shows text`);
  if (window.lines.length === 0)
    throw new ToolInputError(
      `offset ${offset} is past the end of ${shown}, which has ${window.total ?? 0} lines`,
    );
  const out: string[] = [];
  let used = 0;
  for (const [i, line] of window.lines.entries()) {
    const text = numbered(offset + i, line, window.cut[i]);
    if (out.length > 0 && used + text.length + 1 > MAX_OUTPUT_CHARS) break;
    out.push(text);
    used += text.length + 1;
  }
  const last = offset + out.length - 1;
  if (window.total === undefined || last < window.total) {
    const of = window.total === undefined ? `a ${(size / 1024 / 1024).toFixed(1)} MB file` : window.total;
    out.push(
      `[showing lines ${offset}-${last} of ${of}; call read_file with offset ${last + 1} to continue]`,
    );
  }
  return out.join("\n");
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
    `A file over ${MAX_FILE_BYTES / 1024 / 1024} MB is read only a page at a time: pass offset or limit.`,
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
  async execute(input, ctx) {
    const { path, offset = 1, limit = MAX_LINES } = input;
    const target = resolveInWorkspace(path, { root: ctx.cwd, allow: ctx.allow });
    const shown = displayPath(target, ctx.cwd);
    const info = await statOrUndefined(target);
    if (!info) throw new ToolInputError(`no such file: ${shown}`);
    if (info.isDirectory())
      throw new ToolInputError(`${shown} is a directory; use list_files to see its entries`);
    if (!info.isFile()) throw new ToolInputError(`${shown} is not a regular file`);
    if (info.size > MAX_FILE_BYTES) {
      if (input.offset === undefined && input.limit === undefined)
        throw new ToolInputError(
          `${shown} is too large to read whole (${info.size} bytes); page through it with offset and limit, or use grep to find the relevant part`,
        );
      return pagedRead(target, shown, info.size, offset, limit, ctx.signal);
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
