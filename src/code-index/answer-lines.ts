/**
 * How the `symbols` tool and `ion index symbols` write what the index found: one hit a line,
 * `path:line  kind  signature`, at most a cap of lines and a last one saying how many more.
 *
 *   definitionLine({ path: "src/a.ts", line: 3, endLine: 9, kind: "function", signature: "function a() {" })
 *     → "src/a.ts:3  function  function a() {  (lines 3-9)"
 */
import type { SymbolHit } from "./query.ts";

/** A reference, with the definition it sits in and its line's text when they are known. */
export interface ReferenceLine {
  path: string;
  line: number;
  kind: string;
  /** The innermost definition around it (`AgentSession.turn`). */
  within?: string | undefined;
  text?: string | undefined;
}

/** Lines of an answer at most; the rest are counted in a last line. */
export const ANSWER_MAX_LINES = 50;
/** Characters of a signature or a line's text shown at most. */
const TEXT_CHARS = 200;

function clipped(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= TEXT_CHARS ? line : `${line.slice(0, TEXT_CHARS - 1)}…`;
}

/** A kind with the definition it belongs to: `method in AgentSession`. */
function kindOf(hit: Pick<SymbolHit, "kind" | "parent">): string {
  return hit.parent ? `${hit.kind} in ${hit.parent}` : hit.kind;
}

/** A definition, with its line range when it spans several (for read_file's offset and limit). */
export function definitionLine(hit: SymbolHit): string {
  const range = hit.endLine > hit.line ? `  (lines ${hit.line}-${hit.endLine})` : "";
  return `${hit.path}:${hit.line}  ${kindOf(hit)}  ${clipped(hit.signature) || hit.name}${range}`;
}

/** An outline's entry: nested definitions indented under their parent. */
export function outlineLine(hit: SymbolHit): string {
  return `${hit.path}:${hit.line}  ${hit.parent ? "  " : ""}${kindOf(hit)}  ${clipped(hit.signature) || hit.name}`;
}

export function referenceLine(hit: ReferenceLine): string {
  const within = hit.within ? `in ${hit.within}: ` : "";
  return `${hit.path}:${hit.line}  ${hit.kind}  ${within}${hit.text === undefined ? "" : clipped(hit.text)}`.trimEnd();
}

/** The lines up to the cap, then `… N more` with advice when there were more (`total` counts all). */
export function cappedLines(lines: readonly string[], total: number, advice: string): string {
  const shown = lines.slice(0, ANSWER_MAX_LINES);
  const more = Math.max(0, total - shown.length);
  return more > 0 ? [...shown, `… ${more} more (${advice})`].join("\n") : shown.join("\n");
}

/** What an update could not do, one warning line each (without `ion: warning: `); none when it did all. */
export function updateWarnings(summary: { unreadable: readonly string[]; limitReached: boolean }): string[] {
  const lines: string[] = [];
  const [first, ...rest] = summary.unreadable;
  if (first !== undefined)
    lines.push(`could not read ${first}${rest.length > 0 ? ` and ${rest.length} more` : ""}: not indexed`);
  if (summary.limitReached)
    lines.push("the project has more entries than a walk visits: files past them are not indexed");
  return lines;
}
