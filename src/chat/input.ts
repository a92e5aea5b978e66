import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { clearScreenDown, createInterface, cursorTo, type Interface, moveCursor } from "node:readline";

/**
 * The chat's line input on a terminal: node:readline for editing, history and completion, plus what
 * a chat needs on top of it — multi-line input (bracketed paste, a trailing `\`), keys of its own
 * (Ctrl+T, Shift+Tab), and one Ctrl+C that means "cancel the turn", "clear the line" or, pressed twice
 * on an empty line, "leave". While a turn runs every other key is swallowed, so nothing the user types
 * lands in the streamed answer; an approval question lets keys through again.
 */

/** A readline key as its keypress decoder reports it. */
interface Key {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** What readline offers beyond its typings (stable across Node and Bun; checked when the input starts). */
interface ReadlineInternals {
  _ttyWrite(s: string | undefined, key: Key | undefined): void;
  _insertString(text: string): void;
  _refreshLine(): void;
  line: string;
  cursor: number;
  history: string[];
  /** The row of the line the cursor was left on by the last redraw; the next redraw moves up that far. */
  prevRows?: number;
}

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

const HISTORY_SIZE = 1000;
const CONTINUATION = "… ";
const PASTE_MARK = /\[pasted text #(\d+) \+\d+ lines?\]/g;

type State = "idle" | "busy" | "question" | "external";

export class ChatInput {
  private readonly rl: Interface;
  private readonly internals: ReadlineInternals;
  private state: State = "external";
  private pasting: string | undefined;
  private readonly pastes: string[] = [];
  private ctrlCArmed = false;
  private onCancel: (() => void) | undefined;
  private pendingLine: ((line: string | undefined) => void) | undefined;
  private closed = false;

  constructor(private readonly options: InputOptions) {
    const resizeListeners = new Set(options.output.listeners("resize"));
    this.rl = createInterface({
      input: options.input,
      output: options.output,
      terminal: true,
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      completer: (line: string, done: (err: Error | null, result: [string[], string]) => void) => {
        options.complete(line).then(
          (result) => done(null, result),
          () => done(null, [[], line]), // completion is a convenience: a failing source offers nothing
        );
      },
    });
    this.internals = this.rl as unknown as ReadlineInternals;
    if (typeof this.internals._ttyWrite !== "function")
      throw new Error("this runtime's readline cannot be extended for the chat");
    this.internals.history.push(...loadHistory(options.historyFile));
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
   */
  async read(): Promise<string | undefined> {
    const parts: string[] = [];
    for (;;) {
      const line = await this.readLine(parts.length === 0 ? this.options.prompt() : CONTINUATION);
      if (line === undefined) return parts.length > 0 ? this.expand(parts.join("\n")) : undefined;
      if (line.endsWith("\\") && !line.endsWith("\\\\")) {
        parts.push(line.slice(0, -1));
        continue;
      }
      parts.push(line);
      // The history file keeps what was sent: a paste's marker would mean nothing to a later chat.
      const text = this.expand(parts.join("\n"));
      this.remember(text);
      return text;
    }
  }

  /** A turn is running: Ctrl+C calls `cancel`; other keys are swallowed. */
  busy(cancel: () => void): void {
    this.state = "busy";
    this.onCancel = cancel;
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
      const at = this.internals.history.indexOf(answer);
      if (at === 0) this.internals.history.shift();
      return answer;
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
    this.internals.prevRows = 0;
    this.rl.setPrompt(this.options.prompt());
    this.internals._refreshLine();
  }

  /** Redraws the prompt (after Ctrl+T / Shift+Tab changed what it shows). */
  refresh(): void {
    if (this.state !== "idle") return;
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
   * in that layout, not the old one — else the line's first row would be left on screen twice.
   */
  private readonly onResize = (): void => {
    if (this.state !== "idle" && this.state !== "question") return;
    this.internals.prevRows = this.rl.getCursorPos().rows;
    this.internals._refreshLine();
  };

  private readLine(prompt: string): Promise<string | undefined> {
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
      this.rl.setPrompt(prompt);
      this.rl.prompt();
    });
  }

  private key(s: string | undefined, key: Key, write: ReadlineInternals["_ttyWrite"]): void {
    if (key.name === "paste-start") {
      this.pasting = "";
      return;
    }
    if (key.name === "paste-end") {
      const text = this.pasting ?? "";
      this.pasting = undefined;
      if (this.state === "idle" || this.state === "question") this.insertPaste(text);
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
    if (this.state === "busy" || this.state === "external") return;
    if (this.state === "idle") {
      this.ctrlCArmed = false;
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

  /** A one-line paste is typed in; a longer one becomes a marker that expands when the message is sent. */
  private insertPaste(text: string): void {
    const clean = text.replace(/\r\n?/g, "\n");
    if (!clean.includes("\n")) {
      this.internals._insertString(clean);
      return;
    }
    this.pastes.push(clean);
    const lines = clean.split("\n").length;
    this.internals._insertString(`[pasted text #${this.pastes.length} +${lines} lines]`);
  }

  private expand(text: string): string {
    return text.replace(PASTE_MARK, (mark, n: string) => this.pastes[Number(n) - 1] ?? mark);
  }

  private remember(text: string): void {
    const file = this.options.historyFile;
    if (!file || text.trim() === "") return;
    try {
      mkdirSync(dirname(file), { recursive: true });
      appendFileSync(file, `${JSON.stringify(text)}\n`, { mode: 0o600 });
    } catch (err) {
      // Losing input history is not worth interrupting the conversation; say so once.
      this.options.hint(`input history not saved: ${err instanceof Error ? err.message : String(err)}`);
      this.options.historyFile = undefined;
    }
  }
}

/** The newest entries first, as readline keeps them; unreadable lines are skipped. */
export function loadHistory(file: string | undefined): string[] {
  if (!file) return [];
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return []; // no history yet
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "string") entries.push(value.replaceAll("\n", " "));
    } catch {
      // a torn last line from a killed process: skip it
    }
  }
  return entries.reverse().slice(0, HISTORY_SIZE);
}
