/**
 * A small aligned table for listings (`ion models`, `ion providers`). Widths are display widths
 * (`Bun.stringWidth`: wide characters count 2, ANSI codes 0). Given a `width` (a terminal's columns),
 * the widest column is shrunk, one character at a time, until the table fits; a cut cell ends in `…`.
 * Without a `width` (a pipe) nothing is cut. Cells are plain text: styling is applied after cutting
 * and padding, so a cut never splits an escape sequence and a plain table has none.
 */

import { safeForTerminal } from "../util/terminal-text.ts";

export interface Column {
  header: string;
  /** Numbers read best right-aligned. Default: left. */
  align?: "left" | "right";
  /** Narrowest this column is ever cut to (default: 1, or its header's width if smaller). */
  minWidth?: number;
}

/** A cell: plain text, or text with a style (e.g. dim) applied once it has been cut and padded. */
export type Cell = string | { text: string; style?: (text: string) => string };

export interface TableOptions {
  /** Fit within this many columns; undefined: never cut (pipes, files). */
  width?: number;
  /** Spaces between columns (default 2). */
  gap?: number;
  /** Style for the header row (e.g. dim); identity by default. */
  headerStyle?: (text: string) => string;
}

/** A cell's text on one line; cells come from outside (catalogues, skill files), so made safe first. */
function textOf(cell: Cell | undefined): string {
  if (cell === undefined) return "";
  return safeForTerminal(typeof cell === "string" ? cell : cell.text).replace(/[\n\t]+/g, " ");
}

/** Cuts `text` to at most `width` display columns, ending in `…` when anything was cut. */
export function truncate(text: string, width: number): string {
  if (Bun.stringWidth(text) <= width) return text;
  if (width <= 0) return "";
  let out = "";
  let used = 0;
  for (const char of text) {
    const w = Bun.stringWidth(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}

function pad(text: string, width: number, align: "left" | "right"): string {
  const fill = " ".repeat(Math.max(0, width - Bun.stringWidth(text)));
  return align === "right" ? fill + text : text + fill;
}

/** Column widths: each column's widest cell, then the widest cut down until the total fits `width`. */
export function fitWidths(columns: Column[], texts: string[][], width?: number, gap = 2): number[] {
  const widths = columns.map((column, i) =>
    Math.max(Bun.stringWidth(column.header), ...texts.map((row) => Bun.stringWidth(row[i] ?? ""))),
  );
  if (width === undefined) return widths;
  const floors = columns.map((column, i) =>
    Math.min(widths[i]!, Math.max(1, column.minWidth ?? Bun.stringWidth(column.header))),
  );
  const budget = width - gap * Math.max(0, columns.length - 1);
  let total = widths.reduce((sum, w) => sum + w, 0);
  while (total > budget) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! > floors[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) break; // every column is at its floor: let the terminal wrap
    widths[widest]!--;
    total--;
  }
  return widths;
}

/** The table as lines joined by "\n", with a trailing newline; trailing spaces are trimmed. */
export function renderTable(columns: Column[], rows: Cell[][], options: TableOptions = {}): string {
  const gap = options.gap ?? 2;
  const texts = rows.map((row) => columns.map((_, i) => textOf(row[i])));
  const widths = fitWidths(columns, texts, options.width, gap);
  const separator = " ".repeat(gap);
  const line = (cells: string[], styles: (((text: string) => string) | undefined)[]) => {
    const last = cells.length - 1;
    const parts = cells.map((text, i) => {
      const align = columns[i]!.align ?? "left";
      const cut = truncate(text, widths[i]!);
      // The last left-aligned cell needs no padding: trailing spaces would only be trimmed.
      const padded = i === last && align === "left" ? cut : pad(cut, widths[i]!, align);
      const style = styles[i];
      return style && cut !== "" ? styleKeepingPadding(padded, style) : padded;
    });
    return parts.join(separator).trimEnd();
  };
  const headerStyle = options.headerStyle;
  const header = line(
    columns.map((c) => c.header),
    headerStyle ? columns.map(() => headerStyle) : [],
  );
  const body = rows.map((row, r) =>
    line(
      texts[r]!,
      columns.map((_, i) => {
        const cell = row[i];
        return typeof cell === "object" ? cell.style : undefined;
      }),
    ),
  );
  return `${[header, ...body].join("\n")}\n`;
}

/** Styles the text but not the padding around it, so trimming and underlines stay clean. */
function styleKeepingPadding(padded: string, style: (text: string) => string): string {
  let start = 0;
  while (start < padded.length && padded[start] === " ") start++;
  let end = padded.length;
  while (end > start && padded[end - 1] === " ") end--;
  return `${padded.slice(0, start)}${style(padded.slice(start, end))}${padded.slice(end)}`;
}
