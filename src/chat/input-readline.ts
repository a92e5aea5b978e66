import type { Interface } from "node:readline";
import type { Key } from "./input-keys.ts";

/**
 * What the chat's line input uses of node:readline beyond its typings (the same in Node and Bun;
 * `readlineInternals` checks them when the input starts), and the two places where the chat draws
 * the line itself.
 */
export interface ReadlineInternals {
  _ttyWrite(s: string | undefined, key: Key | undefined): void;
  _insertString(text: string): void;
  _refreshLine(): void;
  line: string;
  cursor: number;
  history: string[];
  /** Where ↑/↓ are in `history`; -1 is the line being typed. */
  historyIndex: number;
  /** The row of the line the cursor was left on by the last redraw; the next redraw moves up that far. */
  prevRows?: number;
}

export function readlineInternals(rl: Interface): ReadlineInternals {
  const internals = rl as unknown as ReadlineInternals;
  if (typeof internals._ttyWrite !== "function" || typeof internals._refreshLine !== "function")
    throw new Error("this runtime's readline cannot be extended for the chat");
  return internals;
}

/** Puts `text` on the line being edited, the cursor at its end, and redraws it below a fresh prompt. */
export function setLine(rl: Interface, text: string): void {
  const internals = readlineInternals(rl);
  internals.line = text;
  internals.cursor = text.length;
  // readline draws a line with breaks as rows under "| " when it set the line itself (from history);
  // its flag for that is an unexported symbol: set it too where it exists, else the rows lack the mark.
  const multiline = Object.getOwnPropertySymbols(rl).find((k) => k.description === "_isMultiline");
  if (multiline) Reflect.set(rl, multiline, text.includes("\n"));
  internals.prevRows = 0; // the empty prompt was just drawn on a row of its own
  internals._refreshLine();
}

/**
 * A line typed up to the terminal's last column leaves the cursor there, waiting to wrap, though the
 * line's layout already puts it on the next row: write a space and go back, so both agree (the space
 * lies past the end of the line, where nothing is).
 */
export function settleWrap(rl: Interface, output: NodeJS.WriteStream): void {
  const { line, cursor } = readlineInternals(rl);
  const at = rl.getCursorPos();
  if (line !== "" && cursor === line.length && at.cols === 0 && at.rows > 0) output.write(" \r");
}
