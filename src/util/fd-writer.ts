import { writeSync } from "node:fs";
import { closedByCaller } from "./fd-modes.ts";
import { isTerminal } from "./libc.ts";
import { closedStdoutError, stdoutClosed, useProcessStreams, writeFailed } from "./stdout.ts";

export interface FdWriter {
  write(text: string): void;
}

/** How long a write waits for a full non-blocking pipe (EAGAIN) before trying again. */
const RETRY_MS = 1;

/**
 * Writes to stdout or stderr with synchronous `write`s to fd 1 or 2, never creating process.stdout/
 * stderr (~2 ms of start-up). A failed write is handled as one on those streams (stdout.ts: a closed
 * pipe ends ion with 141, hooks first); once the output has failed, further writes are dropped. A
 * pipe left non-blocking by another program is waited for. A stdout the caller closed fails the first
 * write as a closed fd would, rather than "succeeding" into the /dev/null the runtime put there.
 */
export function fdWriter(stream: "stdout" | "stderr"): FdWriter {
  const fd = stream === "stdout" ? 1 : 2;
  const encoder = new TextEncoder();
  return {
    write(text) {
      if (stdoutClosed()) return;
      if (fd === 1 && closedByCaller(1)) {
        writeFailed(closedStdoutError(), stream);
        return;
      }
      const bytes = encoder.encode(text);
      let offset = 0;
      while (offset < bytes.length) {
        try {
          offset += writeSync(fd, bytes, offset, bytes.length - offset);
        } catch (err) {
          if (err instanceof Error && "code" in err && err.code === "EAGAIN") {
            Bun.sleepSync(RETRY_MS);
            continue;
          }
          writeFailed(err, stream);
          return;
        }
      }
    },
  };
}

/**
 * Whether stdout is a terminal, and its width when it is, for a command printing through fdWriter:
 * libc answers for a pipe or a file; a terminal's width needs process.stdout (then watched).
 */
export function terminal(): { isTTY: boolean; width: number | undefined } {
  const isTTY = isTerminal(1);
  if (!isTTY) return { isTTY, width: undefined };
  useProcessStreams();
  return { isTTY, width: process.stdout.columns || 80 };
}
