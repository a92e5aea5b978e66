/**
 * Text ion did not write itself — a model's answer and thinking, tool names, inputs and output, file
 * names, a repository's skills, a saved session — goes to a terminal only through this module, so it
 * can never drive the terminal (clear the screen, set the window title, write the clipboard with
 * OSC 52, move the cursor over what ion printed).
 *
 * - `safeForTerminal` drops escape sequences (CSI, OSC, DCS, SOS, PM, APC, and the short `ESC x`
 *   forms), their 8-bit C1 forms (U+0080–U+009F), and every other C0 control except tab and newline.
 *   A CR before LF is dropped and a lone CR becomes a newline, so no line can be overwritten.
 * - `TerminalTextStream` does the same for text that arrives in pieces: a sequence split between two
 *   pieces is held back until it is complete (or given up as plain text).
 * - `escapeControls` makes every control character visible instead (`\x1b`, `\r`, `\u202e`), for an
 *   approval question, which must show exactly what would run.
 *
 * ion's own colours are applied after the untrusted text has been made safe.
 */

const ESC = 0x1b;
const BEL = 0x07;
const CR = 0x0d;
const LF = 0x0a;
const TAB = 0x09;
/** CAN and SUB abort a control string in the terminal. */
const CAN = 0x18;
const SUB = 0x1a;
/** 8-bit introducers: CSI, and the control strings DCS, SOS, OSC, PM, APC; ST ends a string. */
const C1_CSI = 0x9b;
const C1_STRINGS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
const C1_ST = 0x9c;
/** After ESC: `[` opens a CSI; `P X ] ^ _` open control strings (DCS, SOS, OSC, PM, APC). */
const ESC_STRINGS = new Set(["P", "X", "]", "^", "_"]);

/**
 * How much of an unterminated sequence a stream holds back waiting for its end. Beyond this it is
 * given up: its introducer is dropped and the rest shown as the harmless text it then is.
 */
const MAX_HELD = 4096;

/** Where a sequence starting at `at` ends (the index after it), or `undefined` when the text ends first. */
function sequenceEnd(text: string, at: number): number | undefined {
  const code = text.charCodeAt(at);
  if (code === C1_CSI) return csiEnd(text, at + 1);
  if (C1_STRINGS.has(code)) return stringEnd(text, at + 1);
  if (code !== ESC) return at + 1; // any other C1 control is a sequence of one
  if (at + 1 >= text.length) return undefined;
  const next = text[at + 1]!;
  if (next === "[") return csiEnd(text, at + 2);
  if (ESC_STRINGS.has(next)) return stringEnd(text, at + 2);
  // `ESC` intermediates (0x20–0x2F) then one final byte (0x30–0x7E), e.g. `ESC c`, `ESC 7`, `ESC ( B`.
  let i = at + 1;
  while (i < text.length && inRange(text.charCodeAt(i), 0x20, 0x2f)) i++;
  if (i >= text.length) return undefined;
  return inRange(text.charCodeAt(i), 0x30, 0x7e) ? i + 1 : i;
}

/** CSI: parameter bytes, intermediate bytes, one final byte. A stray byte ends it where it stands. */
function csiEnd(text: string, from: number): number | undefined {
  let i = from;
  while (i < text.length && inRange(text.charCodeAt(i), 0x30, 0x3f)) i++;
  while (i < text.length && inRange(text.charCodeAt(i), 0x20, 0x2f)) i++;
  if (i >= text.length) return undefined;
  return inRange(text.charCodeAt(i), 0x40, 0x7e) ? i + 1 : i;
}

/** A control string (OSC, DCS …) runs to BEL, ST (`ESC \` or U+009C), or CAN/SUB, whatever it holds. */
function stringEnd(text: string, from: number): number | undefined {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BEL || code === C1_ST || code === CAN || code === SUB) return i + 1;
    if (code === ESC) {
      if (i + 1 >= text.length) return undefined;
      // `ESC \` is ST; any other ESC ends the string and starts a sequence of its own.
      return text[i + 1] === "\\" ? i + 2 : i;
    }
  }
  return undefined;
}

function inRange(code: number, low: number, high: number): boolean {
  return code >= low && code <= high;
}

/** Printable, tab or newline: passes through unchanged. */
function isKept(code: number): boolean {
  return (code >= 0x20 && code < 0x7f) || code >= 0xa0 || code === TAB || code === LF;
}

/**
 * Makes `text` safe; with `final` false, a sequence (or a CR) the text may end in the middle of is
 * returned as `held`, to be scanned again with the next piece.
 */
function scan(text: string, final: boolean): { out: string; held: string } {
  let out = "";
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (isKept(code)) {
      i++;
      continue;
    }
    out += text.slice(start, i);
    if (code === ESC || inRange(code, 0x80, 0x9f)) {
      const end = sequenceEnd(text, i);
      if (end === undefined && !final && text.length - i <= MAX_HELD) return { out, held: text.slice(i) };
      i = end ?? i + 1; // unterminated for good: drop the introducer, keep what follows as text
    } else if (code === CR) {
      if (i + 1 >= text.length && !final) return { out, held: "\r" };
      if (text.charCodeAt(i + 1) !== LF) out += "\n";
      i++;
    } else i++; // any other C0 control, or DEL
    start = i;
  }
  return { out: out + text.slice(start), held: "" };
}

/** `text` with every terminal control sequence and control character removed (tab and newline kept). */
export function safeForTerminal(text: string): string {
  // Almost all text has nothing to remove: one native regex test instead of a scan in JavaScript.
  if (!HAS_CONTROL.test(text)) return text;
  return scan(text, true).out;
}

/** Any character `isKept` does not keep: C0 controls but tab and newline, DEL, C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const HAS_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/**
 * `safeForTerminal` for text that arrives in pieces (streamed deltas): each `push` returns what can be
 * shown so far; `end` returns the rest once the text is complete.
 */
export class TerminalTextStream {
  private held = "";

  push(piece: string): string {
    const { out, held } = scan(this.held + piece, false);
    this.held = held;
    return out;
  }

  end(): string {
    const { out } = scan(this.held, true);
    this.held = "";
    return out;
  }
}

/**
 * A copy of `value` (plain data: strings, arrays, objects) with every string, keys too, made safe:
 * for a whole record read from outside (a saved session) before it is formatted for the terminal.
 */
export function safeForTerminalDeep<T>(value: T): T {
  return deep(value) as T;
}

function deep(value: unknown): unknown {
  if (typeof value === "string") return safeForTerminal(value);
  if (Array.isArray(value)) return value.map(deep);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [safeForTerminal(key), deep(item)]));
}

/** Characters that reorder or hide text on screen (Trojan Source): shown escaped in approvals. */
const INVISIBLE = /[\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/**
 * `text` with every control character written out visibly — `\r`, `\x1b`, `\x07`, `\x9b`, and
 * direction overrides and zero-width characters as `\u202e` — so what a terminal shows is exactly
 * what the text holds. Tab and newline stay as they are (a multi-line command shows its lines).
 */
export function escapeControls(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === TAB || code === LF) out += char;
    else if (code === CR) out += "\\r";
    else if (code < 0x20 || inRange(code, 0x7f, 0x9f)) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (INVISIBLE.test(char)) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return out;
}
