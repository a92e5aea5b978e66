import type { ToolUpdate } from "./types.ts";

/** How often a running command's latest line is reported: a status line needs no more. */
export const TAIL_INTERVAL_MS = 250;
/** A line longer than this is cut (a status line shows one terminal row of it). */
const MAX_LINE_CHARS = 500;

/** The last non-blank line of `text`, after any carriage return (a progress bar redraws with `\r`). */
function lastLine(text: string): string | undefined {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const segments = (lines[i] ?? "").split("\r");
    for (let j = segments.length - 1; j >= 0; j--) {
      const segment = segments[j] ?? "";
      if (segment.trim() !== "") return segment.slice(-MAX_LINE_CHARS);
    }
  }
  return undefined;
}

/**
 * Watches a command's output streams and reports their latest line through `onUpdate`, at most every
 * `intervalMs` (the newest line wins; one report follows the last change). Each stream is decoded on
 * its own, so a character split between two reads is never garbled.
 */
export class OutputTail {
  private latest: string | undefined;
  private reported: string | undefined;
  private lastReport = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly onUpdate: (update: ToolUpdate) => void,
    private readonly intervalMs = TAIL_INTERVAL_MS,
  ) {}

  /** A sink for one stream's chunks. */
  stream(): (chunk: Uint8Array) => void {
    const decoder = new TextDecoder();
    // Only the unfinished end of the stream is kept between chunks, capped.
    let partial = "";
    return (chunk) => {
      const text = partial + decoder.decode(chunk, { stream: true });
      const cut = text.lastIndexOf("\n");
      partial = (cut < 0 ? text : text.slice(cut + 1)).slice(-MAX_LINE_CHARS * 4);
      const line = lastLine(text);
      if (line === undefined) return;
      this.latest = line;
      this.schedule();
    };
  }

  /** No report after this (the command ended). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    const wait = this.lastReport + this.intervalMs - Date.now();
    if (wait <= 0) {
      this.report();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.report();
    }, wait);
    // A pending report must never keep the process alive.
    this.timer.unref?.();
  }

  private report(): void {
    if (this.closed || this.latest === this.reported) return;
    this.lastReport = Date.now();
    this.reported = this.latest;
    this.onUpdate({ output_tail: this.latest });
  }
}
