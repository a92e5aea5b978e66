import { stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool, ToolInputError } from "./define.ts";
import { isBinary } from "./limits.ts";
import { walkFiles, walkNotes } from "./walk.ts";
import { displayPath, resolveInWorkspace } from "./workspace.ts";

/** Matching lines shown at most. */
export const GREP_MAX_MATCHES = 500;
/** Characters of one matching line shown at most. */
export const GREP_MAX_LINE_CHARS = 500;
/** Larger files are skipped (and listed in a note). */
export const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Characters of output at most: whole lines are dropped past it, counted like the match cap. */
export const GREP_MAX_OUTPUT_CHARS = 60_000;
/** Files read at once; results are still reported in walk order. */
const CONCURRENCY = 8;

const description = `Search file contents with a regular expression. Returns one line per matching line: \`path:line:text\` (path relative to the workspace root, line numbers from 1).

- \`pattern\`: JavaScript RegExp syntax, matched against each line on its own (a match never spans lines). Case-sensitive unless the pattern starts with \`(?i)\`. Escape metacharacters to find literal text (\`\\.\`, \`\\(\`, \`\\[\`, \`\\{\`). An invalid pattern returns an error with the parser's message.
- \`path\`: a file or a directory (default: the workspace root); directories are searched recursively.
- \`include\`: a glob choosing which files to search. Without \`/\` it matches the file name (\`*.ts\`, \`*.{ts,tsx}\`, \`Makefile\`); with \`/\` it matches the path relative to \`path\` (\`src/**/*.ts\`).
- Skipped: files excluded by .gitignore (at every level, negation rules included) or .git/info/exclude, the .git directory, binary files (a NUL byte or invalid UTF-8), and files over 5 MB (named in a note at the end). A directory you name as \`path\` is searched even if .gitignore excludes it. Symlinked directories are not followed.
- Order: files in path order, lines in file order.
- Caps: at most ${GREP_MAX_MATCHES} matching lines — a final line says when the cap was hit, so narrow the pattern, path or include. Each line's text is cut to ${GREP_MAX_LINE_CHARS} characters around the match, and output stops at ${GREP_MAX_OUTPUT_CHARS} characters (also with a final line).
- No match is not an error: you get a line saying nothing matched.
Use glob to find files by name, read_file to see the lines around a match.`;

const schema = z.object({
  pattern: z
    .string()
    .min(1)
    .describe("JavaScript regular expression, matched per line; `(?i)` prefix for case-insensitive"),
  path: z
    .string()
    .optional()
    .describe("File or directory to search, relative to the workspace root (default `.`)"),
  include: z
    .string()
    .optional()
    .describe("Glob filter: `*.ts` matches file names, `src/**/*.ts` paths below `path`"),
});

interface Matcher {
  /** Tested against each line (no `g` flag, so it keeps no state). */
  line: RegExp;
  /** Tested once against a whole file to skip files that cannot match; absent when that could miss a match. */
  whole?: RegExp;
}

function compile(pattern: string): Matcher | { error: string } {
  const caseless = pattern.startsWith("(?i)");
  const source = caseless ? pattern.slice(4) : pattern;
  const flags = caseless ? "i" : "";
  let line: RegExp;
  try {
    line = new RegExp(source, flags);
  } catch (err) {
    if (err instanceof SyntaxError) return { error: err.message };
    throw err;
  }
  // With `m`, `^`/`$` see line ends, so a line's match is a match in the whole text — unless a lookaround
  // peeks across the line end (`a(?!\s)` matches at the end of a line but not before its newline).
  const whole = /\(\?<?[=!]/.test(source) ? undefined : new RegExp(source, `${flags}m`);
  return { line, whole };
}

/** The line cut to GREP_MAX_LINE_CHARS, keeping the match in view, with a marker when cut. */
function excerpt(line: string, index: number, length: number): string {
  if (line.length <= GREP_MAX_LINE_CHARS) return line;
  let start = index + length <= GREP_MAX_LINE_CHARS ? 0 : Math.max(0, index - 100);
  if (start > 0 && /[\udc00-\udfff]/.test(line.charAt(start))) start++;
  let end = Math.min(line.length, start + GREP_MAX_LINE_CHARS);
  if (end < line.length && /[\ud800-\udbff]/.test(line.charAt(end - 1))) end--;
  const head = start > 0 ? "…" : "";
  const tail = end < line.length || start > 0 ? ` [… line cut: ${line.length} characters in all]` : "";
  return `${head}${line.slice(start, end)}${tail}`;
}

interface LineMatch {
  line: number;
  text: string;
}

type FileResult =
  | { kind: "matches"; path: string; matches: LineMatch[] }
  | { kind: "binary"; path: string }
  | { kind: "large"; path: string; size: number }
  | { kind: "unreadable"; path: string; message: string };

const READ_ERRORS = new Set(["EACCES", "EPERM", "ENOENT", "EISDIR", "ENOTDIR", "ELOOP"]);

/** Searches one file, returning at most `limit` matches; read failures come back as a result. */
async function searchFile(path: string, matcher: Matcher, limit: number): Promise<FileResult> {
  let bytes: Uint8Array;
  try {
    const { size } = await stat(path);
    if (size > GREP_MAX_FILE_BYTES) return { kind: "large", path, size };
    bytes = await Bun.file(path).bytes();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined || !READ_ERRORS.has(code)) throw err;
    return { kind: "unreadable", path, message: code };
  }
  if (isBinary(bytes)) return { kind: "binary", path };
  const text = new TextDecoder().decode(bytes);
  const matches: LineMatch[] = [];
  if (matcher.whole && !matcher.whole.test(text)) return { kind: "matches", path, matches };
  const lines = text.split("\n");
  const count = text.endsWith("\n") ? lines.length - 1 : lines.length;
  for (let i = 0; i < count && matches.length < limit; i++) {
    let line = lines[i]!;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const match = matcher.line.exec(line);
    if (match) matches.push({ line: i + 1, text: excerpt(line, match.index, match[0].length) });
  }
  return { kind: "matches", path, matches };
}

/** `*.ts` matches the file name; a pattern with `/` matches the path relative to the searched directory. */
function includeFilter(include: string | undefined): ((rel: string) => boolean) | undefined {
  if (include === undefined || include.trim() === "") return undefined;
  let pattern = include.trim();
  while (pattern.startsWith("./")) pattern = pattern.slice(2);
  const glob = new Bun.Glob(pattern);
  if (pattern.includes("/")) return (rel) => glob.match(rel);
  return (rel) => glob.match(rel.slice(rel.lastIndexOf("/") + 1));
}

/** Collects results in order and keeps count against the match cap. */
class Report {
  readonly lines: string[] = [];
  readonly large: string[] = [];
  readonly unreadable: string[] = [];
  /** Why the search stopped early, if it did. */
  capped: "matches" | "chars" | undefined;
  private chars = 0;

  constructor(private readonly root: string) {}

  /** Adds one file's result; returns false once the cap is hit and the search should stop. */
  add(result: FileResult): boolean {
    const shown = displayPath(result.path, this.root);
    if (result.kind === "large") this.large.push(shown);
    else if (result.kind === "unreadable") this.unreadable.push(`${shown} (${result.message})`);
    else if (result.kind === "matches") {
      for (const match of result.matches) {
        const line = `${shown}:${match.line}:${match.text}`;
        if (this.lines.length === GREP_MAX_MATCHES) this.capped = "matches";
        else if (this.chars + line.length + 1 > GREP_MAX_OUTPUT_CHARS) this.capped = "chars";
        if (this.capped) return false;
        this.lines.push(line);
        this.chars += line.length + 1;
      }
    }
    return true;
  }

  notes(): string[] {
    const notes: string[] = [];
    if (this.capped === "matches")
      notes.push(
        `[match cap reached: only the first ${GREP_MAX_MATCHES} matching lines are shown; narrow the pattern, path or include to see the rest]`,
      );
    if (this.capped === "chars")
      notes.push(
        `[output limit reached: only the first ${this.lines.length} matching lines (${GREP_MAX_OUTPUT_CHARS} characters) are shown; narrow the pattern, path or include to see the rest]`,
      );
    if (this.large.length > 0) notes.push(`[skipped files over 5 MB: ${listSome(this.large)}]`);
    if (this.unreadable.length > 0) notes.push(`[could not read: ${listSome(this.unreadable)}]`);
    return notes;
  }
}

function listSome(items: string[]): string {
  const shown = items.slice(0, 5).join(", ");
  return items.length > 5 ? `${shown}, … ${items.length - 5} more` : shown;
}

export const grepTool = defineTool({
  name: "grep",
  description,
  schema,
  readOnly: true,
  async execute({ pattern, path = ".", include }, ctx) {
    const matcher = compile(pattern);
    if ("error" in matcher)
      return { content: `invalid regular expression: ${matcher.error}`, is_error: true };
    const scope = { root: ctx.cwd, allow: ctx.allow };
    const target = resolveInWorkspace(path, scope);
    const info = await stat(target).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT" || err.code === "ENOTDIR") throw new ToolInputError(`${path} does not exist`);
      throw err;
    });
    const where = displayPath(target, ctx.cwd);
    const report = new Report(ctx.cwd);
    let walkLines: string[] = [];

    if (info.isFile()) {
      const result = await searchFile(target, matcher, GREP_MAX_MATCHES + 1);
      if (result.kind === "binary") return `${where} is a binary file; grep skips binary files`;
      if (result.kind === "unreadable") throw new ToolInputError(`cannot read ${path}: ${result.message}`);
      if (result.kind === "large")
        return `${where} has ${result.size} bytes; grep skips files over 5 MB (read_file can page through it)`;
      report.add(result);
    } else if (info.isDirectory()) {
      const included = includeFilter(include);
      const walk = walkFiles(target, { scope, signal: ctx.signal });
      // Reads run ahead of the report; a failure is held as a value until its turn, so none goes unhandled.
      const pending: Promise<FileResult | { kind: "failed"; error: unknown }>[] = [];
      const next = async (): Promise<FileResult> => {
        const result = await pending.shift()!;
        if (result.kind === "failed") throw result.error;
        return result;
      };
      try {
        for await (const file of walk) {
          if (included && !included(file.rel)) continue;
          pending.push(
            searchFile(file.path, matcher, GREP_MAX_MATCHES + 1).catch((error: unknown) => ({
              kind: "failed" as const,
              error,
            })),
          );
          if (pending.length >= CONCURRENCY && !report.add(await next())) break;
        }
        while (pending.length > 0 && !report.capped) report.add(await next());
        while (pending.length > 0) await next(); // reads started before the cap: let them end, surface failures
      } catch (err) {
        if (ctx.signal.aborted) return { content: "grep was cancelled", is_error: true };
        throw err;
      }
      walkLines = walkNotes(walk, ctx.cwd);
    } else {
      throw new ToolInputError(`${path} is neither a file nor a directory`);
    }

    const notes = [...report.notes(), ...walkLines];
    if (report.lines.length === 0) {
      const filter = include ? ` (files matching ${include})` : "";
      return [`No matches for ${pattern} in ${where}${filter}`, ...notes].join("\n");
    }
    return [...report.lines, ...notes].join("\n");
  },
});
