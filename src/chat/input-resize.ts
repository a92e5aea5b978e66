import { cursorTo, type Interface, moveCursor } from "node:readline";
import type { Key } from "./input-keys.ts";

/**
 * A line being edited when the terminal narrows. A terminal that re-wraps its text on a resize (tmux,
 * most of today's emulators) keeps its last rows in place and pushes what no longer fits above them
 * into the scrollback — the first rows of a long line near the screen's top among them. No redraw can
 * reach or erase those rows (moving up stops at the screen's top), so redrawing the whole line drew it
 * a second time. So on a resize the chat asks the terminal where its cursor is (a cursor position
 * report): with the line's start still on the screen it redraws the line as before; otherwise the
 * terminal's re-wrapped rows stand, and each later redraw of that line keeps to the rows on the screen.
 * Only an edit that needs a row in the scrollback (the cursor moved there) draws the line whole again.
 */

/** What readline offers for the layout of a line (Bun's and Node's readline both have it). */
interface Layout {
  _getDisplayPos(text: string): { cols: number; rows: number };
  getCursorPos(): { cols: number; rows: number };
  line: string;
  prevRows?: number;
}

/** How long a terminal may take to answer where its cursor is before the line is redrawn whole. */
const REPORT_WAIT_MS = 200;

/** `ESC [ row ; col R`; Bun's key decoder hands it over as `ESC [ row ; col`, then an `R` key. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the report starts with ESC
const REPORT = /^\x1b\[(\d+);\d+(R?)$/;

export class ResizedLine {
  /** Rows at the start of the line being edited that are in the scrollback, out of any redraw's reach. */
  private hidden = 0;
  private waiting: ReturnType<typeof setTimeout> | undefined;
  private onReport: ((row: number) => void) | undefined;
  /** Reports asked for and not yet come: a late one is still taken, never typed into the line. */
  private asked = 0;
  /** The report's `R` is still to come as a key of its own. */
  private reportTail = false;
  /** A redraw asked for while the report was awaited: done once it comes (readline's own, `whole`). */
  private deferred: (() => void) | undefined;

  constructor(
    private readonly rl: Interface,
    private readonly output: NodeJS.WriteStream,
  ) {}

  /**
   * The terminal was resized while a line is edited: `redraw` (the whole line) once the line's start
   * is known to be on the screen, or when the terminal does not say where its cursor is.
   */
  resized(redraw: () => void): void {
    const layout = this.layout();
    const row = layout.getCursorPos().rows;
    layout.prevRows = row;
    this.hidden = 0;
    if (row === 0) {
      redraw();
      return;
    }
    this.settle();
    this.onReport = (screenRow) => {
      // When asked, `row` rows of the line were above the cursor and `screenRow` rows of the screen:
      // edits since then moved the cursor, not the line's start.
      this.hidden = Math.max(0, row - screenRow);
      const whole = this.deferred;
      this.deferred = undefined;
      if (this.hidden === 0) redraw();
      else if (whole) this.refresh(whole);
    };
    this.waiting = setTimeout(() => {
      this.settle();
      this.deferred = undefined;
      redraw();
    }, REPORT_WAIT_MS);
    this.asked++;
    this.output.write("\x1b[6n");
  }

  /** Takes a key that is part of the terminal's cursor report; true when it was. */
  takeReport(s: string | undefined, key: Key): boolean {
    if (this.reportTail && s === "R") {
      this.reportTail = false;
      return true;
    }
    const match = REPORT.exec(key.sequence ?? "");
    if (!match || this.asked === 0) return false;
    this.asked--;
    this.reportTail = match[2] === "";
    // Only the answer to the last question (of a resize in several steps) says where the cursor is now.
    const answer = this.asked === 0 ? this.onReport : undefined;
    if (answer) {
      this.settle();
      answer(Number(match[1]) - 1);
    }
    return true;
  }

  /** A new line is being edited: all of it is on the screen. */
  reset(): void {
    this.settle();
    this.hidden = 0;
    this.deferred = undefined;
  }

  /**
   * Redraws the line being edited: whole (`whole`, readline's own redraw) while all of it is on the
   * screen, else from its first row on the screen, leaving the rows in the scrollback as they are.
   * The old rows are cleared here first, so that readline's clear never starts at the screen's
   * top-left corner (see `clearFrom`).
   */
  refresh(whole: () => void): void {
    if (this.onReport) {
      this.deferred = whole; // where the line starts is known once the report comes (at most 200 ms)
      return;
    }
    const layout = this.layout();
    const rows = this.output.rows ?? 24;
    const previous = layout.prevRows ?? 0;
    // Text that wrapped past the screen's last row scrolled the screen: more of the line went up.
    this.hidden = this.hidden > 0 ? Math.max(this.hidden, previous - (rows - 1)) : 0;
    const cursor = layout.getCursorPos();
    if (this.hidden === 0 || layout.line.includes("\n") || cursor.rows < this.hidden) {
      // All of it is on the screen, or the cursor would go into the scrollback (or a multi-line
      // message is drawn, rows marked by readline): drawn whole from the screen's top at the highest.
      if (this.hidden > 0 || !layout.line.includes("\n")) {
        this.clearFrom(previous - this.hidden);
        layout.prevRows = 0;
      }
      this.hidden = 0;
      whole();
      return;
    }
    const text = this.rl.getPrompt() + layout.line;
    this.clearFrom(previous - this.hidden);
    this.output.write(text.slice(rowStart(layout, text, this.hidden, this.output.columns)));
    const end = layout._getDisplayPos(text);
    if (end.cols === 0) this.output.write(" "); // make the terminal take the new row now
    cursorTo(this.output, cursor.cols);
    if (end.rows > cursor.rows) moveCursor(this.output, 0, -(end.rows - cursor.rows));
    layout.prevRows = cursor.rows;
  }

  /**
   * Up `rows` rows (the line's first row on the screen), cleared from there down: that row apart, then
   * the rest from the next row (the cursor saved and restored, as it may be on the screen's last row).
   * tmux moves a screen cleared from its top-left corner into the scrollback, where a copy of the
   * line would stay.
   */
  private clearFrom(rows: number): void {
    moveCursor(this.output, 0, -Math.max(0, rows));
    cursorTo(this.output, 0);
    this.output.write("\x1b[2K\x1b7\x1b[1B\x1b[J\x1b8");
  }

  private layout(): Layout {
    return this.rl as unknown as Layout;
  }

  private settle(): void {
    if (this.waiting) clearTimeout(this.waiting);
    this.waiting = undefined;
    this.onReport = undefined;
  }
}

/** Where in `text` its `row`th row starts at `columns` wide, as readline lays it out. */
function rowStart(layout: Layout, text: string, row: number, columns: number): number {
  let at = 0;
  for (const char of text) {
    const end = layout._getDisplayPos(text.slice(0, at + char.length));
    // The character ends past the row's first column (or at the row's end): it is on that row.
    if (end.rows * columns + end.cols > row * columns) return at;
    at += char.length;
  }
  return at;
}
