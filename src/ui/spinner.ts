import type { Writer } from "./renderer.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line stderr spinner; only ever started when stderr is a TTY. */
export class Spinner {
  private timer: ReturnType<typeof setInterval> | undefined;
  private frame = 0;

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
    this.out.write("\r\x1b[K");
  }

  private draw(): void {
    this.out.write(`\r${FRAMES[this.frame++ % FRAMES.length]} ${this.label}`);
  }
}
