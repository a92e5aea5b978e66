import type { Writer } from "./renderer.ts";
import { truncate } from "./table.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;
/** What the spinner says while ion waits for the model. */
export const IDLE_LABEL = "Ionizing…";

/**
 * What the spinner's line shows, given the current frame and the columns it may use (undefined when
 * the terminal's width is unknown). The text may be styled; it must be one line that fits `width`.
 */
export type SpinnerLine = (frame: string, width: number | undefined) => string;

function labelLine(label: string): SpinnerLine {
  return (frame, width) => {
    const text = `${frame} ${label}`;
    return width === undefined ? text : truncate(text, width);
  };
}

/**
 * A one-line spinner, redrawn in place with `\r`; only ever started on a terminal. The line is kept
 * one column short of the terminal's width, so it never wraps and `\r` always returns to its start.
 */
export class Spinner {
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Waiting to draw the first frame (a delayed start). */
  private pending: ReturnType<typeof setTimeout> | undefined;
  private interval = FRAME_MS;
  private frame = 0;
  /** Widest line drawn since the last stop, in columns. */
  private drawn = 0;
  private line: SpinnerLine;

  constructor(
    private readonly out: Writer,
    label = IDLE_LABEL,
    private readonly columns: () => number | undefined = () => undefined,
  ) {
    this.line = labelLine(label);
  }

  /**
   * Starts spinning, or keeps spinning with a new line. `intervalMs` is the pace of redraws (a changed
   * pace starts over); `delayMs` holds the first frame back, so what ends sooner never flickers.
   */
  start(line?: string | SpinnerLine, intervalMs = FRAME_MS, delayMs = 0): void {
    if (line !== undefined) this.line = typeof line === "string" ? labelLine(line) : line;
    if ((this.timer || this.pending) && this.interval === intervalMs) return;
    this.clearTimers();
    this.interval = intervalMs;
    const begin = () => {
      this.pending = undefined;
      this.draw();
      this.timer = setInterval(() => this.draw(), intervalMs);
      // The spinner must never keep the process alive on its own.
      this.timer.unref?.();
    };
    if (delayMs <= 0) {
      begin();
      return;
    }
    this.pending = setTimeout(begin, delayMs);
    this.pending.unref?.();
  }

  /** Redraws now with the same frame (what the line shows has changed); nothing when not shown. */
  refresh(): void {
    if (this.timer) this.draw(false);
  }

  stop(): void {
    const shown = this.timer !== undefined;
    this.clearTimers();
    if (!shown) return;
    // Blank the line with spaces, not ESC[K: no escape codes, so NO_COLOR / TERM=dumb terminals stay clean.
    this.out.write(`\r${" ".repeat(this.drawn)}\r`);
    this.drawn = 0;
  }

  private clearTimers(): void {
    clearInterval(this.timer);
    clearTimeout(this.pending);
    this.timer = undefined;
    this.pending = undefined;
  }

  private draw(advance = true): void {
    const columns = this.columns();
    const frame =
      FRAMES[advance ? this.frame++ % FRAMES.length : Math.max(0, this.frame - 1) % FRAMES.length];
    const text = this.line(frame ?? "", columns === undefined ? undefined : Math.max(1, columns - 1));
    const width = Bun.stringWidth(text);
    // A shorter line than the last one leaves no tail of it behind.
    const pad = " ".repeat(Math.max(0, this.drawn - width));
    this.drawn = Math.max(this.drawn, width);
    this.out.write(`\r${text}${pad}`);
  }
}
