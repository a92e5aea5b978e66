/**
 * A server's log file: the stdio server's stderr goes straight into it (the child holds the file, so
 * nothing passes through ion and nothing reaches the terminal), and ion adds a line when it starts the
 * server and for each transport error. Appended to across runs; emptied first once it passes 1 MB.
 */
import { closeSync, mkdirSync, openSync, readSync, statSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { errnoOf } from "../util/error-text.ts";

const MAX_LOG_BYTES = 1024 * 1024;
const TAIL_BYTES = 4096;
const MAX_TAIL_LINE = 300;

export class ServerLog {
  /** Open for appending while the server starts, so its stderr can be handed to the child. */
  private fd: number | undefined;
  /** Where this run's output begins. */
  private readonly startOffset: number;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    if (sizeOf(path) > MAX_LOG_BYTES) truncateSync(path, 0);
    this.fd = openSync(path, "a", 0o600);
    this.startOffset = sizeOf(path);
  }

  /** The descriptor to give a child as its stderr; valid until `release()`. */
  get descriptor(): number {
    if (this.fd === undefined) throw new Error(`log ${this.path} is no longer open`);
    return this.fd;
  }

  note(line: string): void {
    const text = `[ion ${new Date().toISOString()}] ${line.replace(/\n/g, " ")}\n`;
    const fd = this.fd ?? openSync(this.path, "a", 0o600);
    try {
      writeSync(fd, text);
    } finally {
      if (fd !== this.fd) closeSync(fd);
    }
  }

  /** Closes ion's copy of the descriptor once the child has its own. */
  release(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** The last line the server itself wrote this run (ion's own notes skipped), cut to one short line. */
  lastServerLine(): string | undefined {
    const end = sizeOf(this.path);
    const start = Math.max(this.startOffset, end - TAIL_BYTES);
    if (end <= start) return undefined;
    const buffer = Buffer.alloc(end - start);
    const fd = openSync(this.path, "r");
    try {
      readSync(fd, buffer, 0, buffer.length, start);
    } finally {
      closeSync(fd);
    }
    const lines = buffer
      .toString("utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("[ion "));
    const last = lines.at(-1);
    return last === undefined ? undefined : last.slice(0, MAX_TAIL_LINE);
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return 0;
    throw err;
  }
}
