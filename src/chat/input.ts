import { clearScreenDown, createInterface, cursorTo, type Interface, moveCursor } from "node:readline";
import { messageOf } from "../util/error-text.ts";
import { appendHistory, loadHistory, recordInHistory } from "./input-history.ts";
import { DoubleEsc, type Key, TypeAhead } from "./input-keys.ts";
import { Pastes } from "./input-paste.ts";
import { type ReadlineInternals, readlineInternals, setLine, settleWrap } from "./input-readline.ts";
import { ResizedLine } from "./input-resize.ts";

/**
 * The chat's line input on a terminal: node:readline for editing, history and completion, plus what
 * a chat needs on top of it — multi-line input (bracketed paste, a trailing `\`), keys of its own
 * (Ctrl+T, Shift+Tab), and one Ctrl+C that means "cancel the turn", "clear the line" (or the whole
 * message being continued) or, pressed twice on an empty line, "leave". While a turn runs nothing typed
 * is shown: text is kept for the next prompt (input-keys.ts), Esc twice cancels like Ctrl+C; an
 * approval question lets keys through again.
 */

export type Completer = (line: string) => Promise<[string[], string]>;

export interface InputOptions {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** Persisted input history (JSON string per line); undefined keeps none. */
  historyFile: string | undefined;
  complete: Completer;
  /** Ctrl+T / Shift+Tab; they return nothing and the prompt is redrawn with `prompt()`. */
  onKey: (key: "cycle-thinking" | "cycle-mode") => void;
  /** The current prompt text (it shows the thinking level and mode). */
  prompt: () => string;
  /** A dim hint line (e.g. "press Ctrl+C again to exit"). */
  hint: (text: string) => void;
}

const CONTINUATION = "… ";

type State = "idle" | "busy" | "question" | "external";

/** What a line read resolves to when Ctrl+C or Ctrl+D dropped the message being continued. */
const DISCARDED = Symbol("discarded");

export class ChatInput {
  private readonly rl: Interface;
  private readonly internals: ReadlineInternals;
  private state: State = "external";
  private pasting: string | undefined;
  private readonly pastes = new Pastes();
  private ctrlCArmed = false;
  /** The prompt shows `… `: earlier lines of the message wait for this one. */
  private continuing = false;
  private readonly typeAhead = new TypeAhead();
  private readonly doubleEsc = new DoubleEsc();
  private readonly resized: ResizedLine;
  private onCancel: (() => void) | undefined;
  private pendingLine: ((line: string | typeof DISCARDED | undefined) => void) | undefined;
  private closed = false;
  /** When the last key (or paste) arrived while a turn ran, in performance.now() time. */
  private lastTurnKeyAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: InputOptions) {
    const resizeListeners = new Set(options.output.listeners("resize"));
    this.rl = createInterface({
      input: options.input,
      output: options.output,
      terminal: true,
      // The chat keeps the history itself (input-history.ts): readline would add each line of a
      // continued message apart, and the answers to approval questions.
      historySize: 0,
      completer: (line: string, done: (err: Error | null, result: [string[], string]) => void) => {
        options.complete(line).then(
          (result) => done(null, result),
          () => done(null, [[], line]), // completion is a convenience: a failing source offers nothing
        );
      },
    });
    this.internals = readlineInternals(this.rl);
    this.internals.history.push(...loadHistory(options.historyFile));
    this.internals.historyIndex = -1;
    this.resized = new ResizedLine(this.rl, options.output);
    const redrawWhole = this.internals._refreshLine.bind(this.rl);
    this.internals._refreshLine = () => this.resized.refresh(redrawWhole);
    // readline redraws its prompt on every resize, even while an answer streams (it would erase the
    // line being written and put "> " there): the chat redraws only while a line is being edited.
    for (const listener of options.output.listeners("resize"))
      if (!resizeListeners.has(listener)) options.output.off("resize", listener as () => void);
    options.output.on("resize", this.onResize);
    const write = this.internals._ttyWrite.bind(this.rl);
    this.internals._ttyWrite = (s, key) => this.key(s, key ?? {}, write);
    this.rl.on("line", (line) => this.pendingLine?.(line));
    this.rl.on("close", () => {
      this.closed = true;
      // Ctrl+D at the prompt: end its line, so the shell's prompt does not follow "> " on the same line.
      if (this.state === "idle" || this.state === "question") options.output.write("\n");
      this.pendingLine?.(undefined);
    });
    // Bracketed paste: the terminal marks pasted text, so its newlines do not submit it line by line.
    options.output.write("\x1b[?2004h");
  }

  /**
   * Reads one message: a line, or several joined by a trailing `\` or pasted at once. Resolves
   * undefined when the user leaves (Ctrl+D on an empty line, Ctrl+C twice, or the input closed).
   * Ctrl+C or Ctrl+D on a continued message drops all of it, as a shell does, and reads anew.
   */
  async read(): Promise<string | undefined> {
    const parts: string[] = [];
    for (;;) {
      this.continuing = parts.length > 0;
      const line = await this.readLine(this.continuing ? CONTINUATION : this.options.prompt());
      if (line === DISCARDED) {
        parts.length = 0;
        continue;
      }
      if (line === undefined) return undefined;
      if (line.endsWith("\\") && !line.endsWith("\\\\")) {
        parts.push(line.slice(0, -1));
        continue;
      }
      parts.push(line);
      const typed = parts.join("\n");
      // One entry for the whole message, so ↑ brings it back as it was sent (pastes as their markers).
      recordInHistory(this.internals.history, typed);
      this.internals.historyIndex = -1;
      // The history file keeps what was sent: a paste's marker would mean nothing to a later chat.
      const text = this.pastes.expand(typed);
      this.remember(text);
      return text;
    }
  }

  /**
   * A key was pressed (or text pasted) during a turn within the last `ms` milliseconds: someone is
   * typing. The Enter that sent the message does not count.
   */
  typedWithin(ms: number): boolean {
    return performance.now() - this.lastTurnKeyAt <= ms;
  }

  /** A turn is running: Ctrl+C (or Esc twice) calls `cancel`; typed text waits for the next prompt. */
  busy(cancel: () => void): void {
    this.state = "busy";
    this.onCancel = cancel;
    this.doubleEsc.reset();
    this.lastTurnKeyAt = Number.NEGATIVE_INFINITY; // keys of an earlier turn say nothing of this one
  }

  /** A yes/no question during a turn (approvals). The answer never enters the input history. */
  async question(text: string): Promise<string> {
    if (this.closed) return "";
    const before = this.state;
    this.state = "question";
    try {
      const answer = await new Promise<string>((resolve) => {
        const onClose = () => resolve("");
        this.rl.once("close", onClose);
        this.rl.question(text, (value) => {
          this.rl.off("close", onClose);
          resolve(value);
        });
      });
      return answer; // readline keeps no history of its own (historySize 0), so the answer is in none
    } finally {
      this.state = before === "question" ? "busy" : before;
    }
  }

  /** Hands the terminal to another prompt (a @clack/prompts picker) until `work` settles. */
  async external<T>(work: () => Promise<T>): Promise<T> {
    const before = this.state;
    this.state = "external";
    this.rl.pause();
    try {
      return await work();
    } finally {
      if (this.options.input.isTTY) this.options.input.setRawMode(true);
      this.rl.resume();
      this.state = before;
    }
  }

  /**
   * A line above the line being edited (what Shift+Tab changed): the edited line is erased, the text
   * printed, and the prompt with what was typed drawn again below it. Outside editing, just a line.
   */
  say(text: string): void {
    const { output } = this.options;
    if (this.state !== "idle") {
      output.write(`${text}\n`);
      return;
    }
    moveCursor(output, 0, -this.rl.getCursorPos().rows);
    cursorTo(output, 0);
    clearScreenDown(output);
    output.write(`${text}\n`);
    this.resized.reset();
    this.internals.prevRows = 0;
    this.rl.setPrompt(this.options.prompt());
    this.internals._refreshLine();
  }

  /** Redraws the prompt (after Ctrl+T / Shift+Tab changed what it shows). */
  refresh(): void {
    if (this.state !== "idle") return;
    this.internals.prevRows = this.rl.getCursorPos().rows; // where the old prompt left the cursor
    this.rl.setPrompt(this.options.prompt());
    this.internals._refreshLine();
  }

  close(): void {
    this.options.output.off("resize", this.onResize);
    this.options.output.write("\x1b[?2004l");
    if (!this.closed) this.rl.close();
  }

  /**
   * A resize while a line is edited: the terminal has already re-wrapped the line to the new width
   * (tmux and today's terminal emulators reflow), so the redraw starts from the row the cursor is on
   * in that layout, not the old one — else the line's first row would be left on screen twice — and
   * keeps off rows the terminal pushed into its scrollback (input-resize.ts).
   */
  private readonly onResize = (): void => {
    if (this.state !== "idle" && this.state !== "question") return;
    this.resized.resized(() => this.internals._refreshLine());
  };

  private readLine(prompt: string): Promise<string | typeof DISCARDED | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.state = "idle";
      this.ctrlCArmed = false;
      this.pendingLine = (line) => {
        this.pendingLine = undefined;
        this.state = "busy";
        this.onCancel = undefined;
        resolve(line);
      };
      this.resized.reset();
      this.rl.setPrompt(prompt);
      this.rl.prompt();
      if (!this.continuing) this.restoreTypeAhead();
    });
  }

  /** Text typed while the last answer streamed comes back on the new prompt; only Enter sends it. */
  private restoreTypeAhead(): void {
    const text = this.typeAhead.take();
    if (text !== "") setLine(this.rl, text);
  }

  private key(s: string | undefined, key: Key, write: ReadlineInternals["_ttyWrite"]): void {
    if (this.resized.takeReport(s, key)) return; // the terminal's answer to where its cursor is
    if (this.state === "busy" || this.state === "question") this.lastTurnKeyAt = performance.now();
    if (key.name === "paste-start") {
      this.pasting = "";
      return;
    }
    if (key.name === "paste-end") {
      const text = this.pasting ?? "";
      this.pasting = undefined;
      if (this.state === "idle" || this.state === "question")
        this.internals._insertString(this.pastes.pasted(text));
      else if (this.state === "busy") this.typeAhead.add(this.pastes.pasted(text));
      return;
    }
    if (this.pasting !== undefined) {
      this.pasting += key.name === "return" || key.name === "enter" ? "\n" : (s ?? "");
      return;
    }
    if (key.ctrl && key.name === "c") {
      this.interrupt();
      return;
    }
    if (this.state === "busy") {
      this.duringTurn(s, key);
      return;
    }
    if (this.state === "external") return;
    // readline redraws a line by moving up `prevRows` rows, a figure it updates only when it redraws;
    // typing that wraps (keys arriving together, as a fast typist's or a paste's do) is written without
    // a redraw, so stale rows were left. Take the row from where the cursor is in the line instead.
    this.internals.prevRows = this.rl.getCursorPos().rows;
    if (this.state === "question" && this.doubleEsc.press(key)) {
      this.interrupt();
      return;
    }
    if (this.state === "idle") {
      this.ctrlCArmed = false;
      if (key.ctrl && key.name === "d" && this.continuing && this.internals.line === "") {
        this.discard();
        return;
      }
      if (key.ctrl && key.name === "t") {
        this.options.onKey("cycle-thinking");
        return;
      }
      if (key.shift && key.name === "tab") {
        this.options.onKey("cycle-mode");
        return;
      }
    }
    write(s, key);
    if (this.state === "idle" || this.state === "question") settleWrap(this.rl, this.options.output);
  }

  /** A key while a turn runs: Esc twice cancels it; text is kept for the next prompt; nothing is drawn. */
  private duringTurn(s: string | undefined, key: Key): void {
    if (this.doubleEsc.press(key)) this.onCancel?.();
    else this.typeAhead.key(s, key);
  }

  /** Ctrl+C or Ctrl+D on a continued message: all of it is dropped, and a fresh prompt follows. */
  private discard(): void {
    this.internals.line = "";
    this.internals.cursor = 0;
    this.internals._refreshLine();
    this.options.output.write("\n");
    this.options.hint("(message discarded)");
    this.pendingLine?.(DISCARDED);
  }

  private interrupt(): void {
    switch (this.state) {
      case "busy":
        this.onCancel?.();
        return;
      case "question":
        // Ctrl+C at an approval question: no, and the turn is cancelled.
        this.onCancel?.();
        this.internals.line = "";
        this.internals._ttyWrite("\r", { name: "return" });
        return;
      case "external":
        return;
      case "idle": {
        if (this.continuing) {
          this.discard();
          return;
        }
        if (this.internals.line !== "") {
          this.internals.line = "";
          this.internals.cursor = 0;
          this.internals._refreshLine();
          return;
        }
        if (this.ctrlCArmed) {
          this.options.output.write("\n");
          this.pendingLine?.(undefined);
          return;
        }
        this.ctrlCArmed = true;
        this.options.output.write("\n");
        this.options.hint("(press Ctrl+C again to exit, or Ctrl+D)");
        this.rl.prompt();
      }
    }
  }

  private remember(text: string): void {
    const file = this.options.historyFile;
    if (!file || text.trim() === "") return;
    try {
      appendHistory(file, text);
    } catch (err) {
      // Losing input history is not worth interrupting the conversation; say so once.
      this.options.hint(`input history not saved: ${messageOf(err)}`);
      this.options.historyFile = undefined;
    }
  }
}
