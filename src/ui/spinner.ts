import type { Writer } from "./renderer.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line stderr spinner; only ever started when stderr is a TTY. */
export class Spinner {
  private timer: ReturnType<typeof setInterval> | undefined;
  private frame = 0;
  /** Widest line drawn since the last stop, in columns (frame, space, label). */
  private drawn = 0;

  constructor(
    private readonly out: Writer,
    private label = "Ionizing…",
  ) {}

  start(label?: string): void {
    if (label) this.label = label;
    if (this.timer) return;
    this.draw();
    this.timer = setInterval(() => this.draw(), 80);
    // The spinner must never keep the process alive on its own.
    this.timer.unref?.();
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    // Blank the line with spaces, not ESC[K: no escape codes, so NO_COLOR / TERM=dumb terminals stay clean.
    this.out.write(`\r${" ".repeat(this.drawn)}\r`);
    this.drawn = 0;
  }

  private draw(): void {
    this.drawn = Math.max(this.drawn, 2 + [...this.label].length);
    this.out.write(`\r${FRAMES[this.frame++ % FRAMES.length]} ${this.label}`);
  }
}
