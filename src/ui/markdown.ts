import type { Style } from "./style.ts";

/**
 * Streams a model's markdown answer to a terminal as it arrives. Text outside code fences passes
 * through at once (only the start of a line that could open a fence waits for its line to end);
 * fences are set off (dimmed) and, with colour, their lines are highlighted by emphasize
 * (highlight.js grammars), loaded the first time a fence appears. Without colour the text is written
 * exactly as the model sent it. No full-screen redraw: only appended output.
 */

type Highlight = (code: string, language: string | undefined) => string;

let highlighterPromise: Promise<Highlight> | undefined;

/** emphasize and its grammars load only when an answer first contains a fence. */
function loadHighlighter(): Promise<Highlight> {
  highlighterPromise ??= import("emphasize").then(({ common, createEmphasize }) => {
    const emphasize = createEmphasize(common);
    return (code, language) => {
      const lang = language?.toLowerCase();
      if (!lang || !emphasize.registered(lang)) return code;
      return emphasize.highlight(lang, code).value;
    };
  });
  return highlighterPromise;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
/** A line start that may still turn out to be a fence: hold it back until the line is complete. */
const MAYBE_FENCE = /^ {0,3}(`{1,2}|~{1,2})?$/;

export class MarkdownStream {
  /** The current line's text not yet written (only while it might be a fence). */
  private pending = "";
  /** Whether the current line has already been partly written. */
  private midLine = false;
  private fence: { marker: string; language: string | undefined } | undefined;
  private highlight: Highlight | undefined;
  /** Output held, in order, while the highlighter loads. */
  private held: Array<() => string> | undefined;
  private loading: Promise<void> | undefined;
  private wroteAny = false;
  private lastChar = "\n";

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly color: boolean,
  ) {}

  /** Whether anything was written and the output does not end with a newline. */
  get openLine(): boolean {
    return this.wroteAny && this.lastChar !== "\n";
  }

  push(text: string): void {
    let rest = text;
    while (rest.length > 0) {
      const newline = rest.indexOf("\n");
      if (newline === -1) {
        this.partial(rest);
        return;
      }
      this.line(rest.slice(0, newline));
      rest = rest.slice(newline + 1);
    }
  }

  /** The end of the answer: whatever is held back is written. */
  async end(): Promise<void> {
    if (this.pending) {
      const text = this.pending;
      this.pending = "";
      if (this.fence) this.code(text, "");
      else this.out(() => text);
    }
    await this.loading;
  }

  private partial(piece: string): void {
    if (this.fence) {
      this.pending += piece; // code is highlighted a whole line at a time
      return;
    }
    if (this.midLine) {
      this.out(() => piece);
      return;
    }
    const candidate = this.pending + piece;
    if (MAYBE_FENCE.test(candidate) || FENCE.test(candidate)) {
      this.pending = candidate;
      return;
    }
    this.pending = "";
    this.midLine = true;
    this.out(() => candidate);
  }

  private line(piece: string): void {
    const whole = this.pending + piece;
    this.pending = "";
    if (this.midLine) {
      this.midLine = false;
      this.out(() => `${piece}\n`);
      return;
    }
    const fence = FENCE.exec(whole);
    if (this.fence) {
      if (fence && fence[1]!.startsWith(this.fence.marker) && whole.trim() === fence[1]) {
        this.fence = undefined;
        this.out(() => `${this.style.dim(whole)}\n`);
      } else this.code(whole, "\n");
      return;
    }
    if (fence) {
      this.fence = { marker: fence[1]!, language: fence[2] || undefined };
      if (this.color && !this.highlight && !this.loading) this.startLoading();
      this.out(() => `${this.style.dim(whole)}\n`);
      return;
    }
    this.out(() => `${whole}\n`);
  }

  private code(line: string, end: string): void {
    const language = this.fence?.language;
    if (!this.color) this.out(() => `${line}${end}`);
    else this.out(() => `${this.highlight ? this.highlight(line, language) : line}${end}`);
  }

  private startLoading(): void {
    this.held = [];
    this.loading = loadHighlighter()
      .catch(() => (code: string) => code) // highlighting is decoration: without grammars, plain code
      .then((highlight) => {
        this.highlight = highlight;
        const held = this.held ?? [];
        this.held = undefined;
        for (const make of held) this.emit(make());
      });
  }

  private out(make: () => string): void {
    if (this.held) this.held.push(make);
    else this.emit(make());
  }

  private emit(text: string): void {
    if (text === "") return;
    this.wroteAny = true;
    this.lastChar = text[text.length - 1]!;
    this.write(text);
  }
}
