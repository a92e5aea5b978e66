import type { AgentEvent } from "../agent/events.ts";

export interface Writer {
  write(text: string): void;
}

export interface RenderOptions {
  stdout: Writer;
  stderr: Writer;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  quiet: boolean;
  verbose: boolean;
  /** stream-json: also emit text/thinking deltas as `stream_event` lines. */
  partial: boolean;
  color: boolean;
  /** The terminal's width for progress lines (default: stderr's). */
  columns?: () => number | undefined;
}

/** A front end: consumes every AgentEvent of a run; `close` is called once after the last one. */
export interface Renderer {
  onEvent(event: AgentEvent): void;
  /** Get out of the way of an interactive question on the terminal (stop a spinner). */
  suspend?(): void;
  close(): void;
}

export type OutputFormat = "text" | "json" | "stream-json";
export const OUTPUT_FORMATS: readonly OutputFormat[] = ["text", "json", "stream-json"];

/** JSON for line-oriented consumers: U+2028/2029 are valid in JSON but split lines in some readers. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")}\n`;
}

export async function createRenderer(format: OutputFormat, options: RenderOptions): Promise<Renderer> {
  switch (format) {
    case "json":
      return (await import("./json.ts")).jsonRenderer(options);
    case "stream-json":
      return (await import("./stream-json.ts")).streamJsonRenderer(options);
    case "text":
      return (await import("./text.ts")).textRenderer(options);
  }
}
