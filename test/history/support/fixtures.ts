/** Shared helpers for the session store tests: temp dirs, entries, and decoding with the zstd CLI. */
import { afterEach } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewEntry } from "../../../src/history/schema.ts";

export const SUPPORT_DIR = import.meta.dir;

/** A fresh temp dir per test, removed after it. */
export function useTempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}

export function userText(text: string): NewEntry {
  return { type: "message", message: { role: "user", content: [{ type: "text", text }] } };
}

export function assistantText(text: string, usage?: { input: number; output: number }): NewEntry {
  return {
    type: "message",
    message: { role: "assistant", content: [{ type: "text", text }] },
    stop_reason: "end_turn",
    ...(usage
      ? {
          usage: {
            input_tokens: usage.input,
            output_tokens: usage.output,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
        }
      : {}),
  };
}

/**
 * The zstd command-line tool. CI installs it, so tests always prove a user's `zstd -dc` reads ion's
 * files there; on a machine without it, tests of frames the CLI makes are skipped (and say so).
 */
export const ZSTD_CLI: string | null = Bun.which("zstd");

/** `zstd -dc <path>`: what a user sees; Bun's own libzstd decoder stands in where the CLI is missing. */
export function zstdDecode(path: string): string {
  if (!ZSTD_CLI) return new TextDecoder().decode(Bun.zstdDecompressSync(readFileSync(path)));
  const out = Bun.spawnSync([ZSTD_CLI, "-dc", path]);
  if (out.exitCode !== 0) throw new Error(`zstd -dc failed: ${out.stderr.toString()}`);
  return out.stdout.toString();
}

/** Names in `dir` that contain `part`. */
export function filesWith(dir: string, part: string): string[] {
  return readdirSync(dir).filter((name) => name.includes(part));
}

/** Reads a child's stdout line by line; `next(predicate)` waits for a matching line. */
export class LineReader {
  private buffer = "";
  private readonly seen: string[] = [];
  private waiters: (() => void)[] = [];
  readonly done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = this.pump(stream);
  }

  private async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      this.buffer += decoder.decode(chunk, { stream: true });
      const lines = this.buffer.split("\n");
      this.buffer = lines.pop() ?? "";
      this.seen.push(...lines);
      for (const wake of this.waiters.splice(0)) wake();
    }
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Every complete line so far. */
  get lines(): readonly string[] {
    return this.seen;
  }

  /** The first line matching `test`, waiting up to `timeoutMs`. */
  async next(test: (line: string) => boolean, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    void this.done.then(() => {
      ended = true;
    });
    for (;;) {
      const found = this.seen.find(test);
      if (found !== undefined) return found;
      if (ended) throw new Error(`the child ended without such a line; it printed: ${this.seen.join(" | ")}`);
      if (Date.now() > deadline)
        throw new Error(`no such line within ${timeoutMs} ms: ${this.seen.join(" | ")}`);
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), Bun.sleep(50)]);
    }
  }
}
