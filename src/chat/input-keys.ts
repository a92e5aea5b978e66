/**
 * What the chat's line input makes of keys pressed while a turn runs: text typed ahead, kept for the
 * next prompt (as Claude Code does), and Esc pressed twice, which cancels the turn. Pure, so the rules
 * are tested without a terminal.
 */

/** A readline key as its keypress decoder reports it. */
export interface Key {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** Control characters: keys that edit or move, never text to keep (an escape sequence has one too). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Text typed while an answer streams: nothing is shown or sent; the next prompt starts with it. */
export class TypeAhead {
  private text = "";

  /** A key pressed during a turn: printable text is kept, Enter keeps a line break, Backspace and Ctrl+U edit. */
  key(s: string | undefined, key: Key): void {
    if (key.name === "return" || key.name === "enter") this.text += "\n";
    else if (key.name === "backspace") this.text = Array.from(this.text).slice(0, -1).join("");
    else if (key.ctrl && key.name === "u") this.text = "";
    else if (typeof s === "string" && s !== "" && !key.ctrl && !key.meta && !CONTROL.test(s)) this.text += s;
  }

  /** Text that arrived otherwise (a paste, or its marker). */
  add(text: string): void {
    this.text += text;
  }

  /** What was typed, for the next prompt, without blank lines around it; the buffer is emptied. */
  take(): string {
    const text = this.text.replace(/^\n+|\n+$/g, "");
    this.text = "";
    return text;
  }
}

/** How many Esc presses a key is: a lone Esc is one; two pressed quickly arrive as one `ESC ESC` key. */
export function escPresses(key: Key): number {
  const sequence = key.sequence ?? "";
  if (key.name !== "escape" || sequence === "" || sequence !== "\u001b".repeat(sequence.length)) return 0;
  return sequence.length;
}

/**
 * Esc twice within `windowMs` (the original design's double-Esc). Arrow keys and Alt+letter arrive as
 * sequences starting with ESC but are other keys: they count as none and break a pending first press.
 */
export class DoubleEsc {
  private first = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly windowMs = 1500,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** True when this key completes a double Esc. */
  press(key: Key): boolean {
    const presses = escPresses(key);
    const at = this.now();
    const double = presses >= 2 || (presses === 1 && at - this.first <= this.windowMs);
    this.first = presses === 1 && !double ? at : Number.NEGATIVE_INFINITY;
    return double;
  }

  reset(): void {
    this.first = Number.NEGATIVE_INFINITY;
  }
}
