import { createInterface } from "node:readline";
import type { ApprovalPrompt } from "./approval.ts";

/**
 * Asks on stderr (and shows what a question is about there) and reads the answer from the terminal
 * on stdin. Ctrl+D or a closed stdin means no.
 */
export function terminalPrompt(beforeAsk?: () => void): ApprovalPrompt & { close(): void } {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  let closed = false;
  rl.on("close", () => {
    closed = true;
  });
  /** Answers the question being asked, if any. */
  let answerPending: ((answer: string) => void) | undefined;
  // The terminal is in raw mode while this reader is open, so Ctrl+C arrives as a key, not a signal:
  // readline would only pause. Hand it to the run's SIGINT handling (which cancels the turn), then
  // let a question being asked go unanswered (no): one Ctrl+C ends the run, as without a terminal.
  rl.on("SIGINT", () => {
    // End the question's line first, so what the interruption prints starts a line of its own.
    if (answerPending) process.stderr.write("\n");
    if (process.listenerCount("SIGINT") > 0) process.emit("SIGINT", "SIGINT");
    else process.kill(process.pid, "SIGINT");
    answerPending?.("");
  });
  return {
    ...(beforeAsk ? { beforeAsk } : {}),
    show: (preview) => process.stderr.write(`${preview}\n`),
    ask: (question) =>
      new Promise((resolve) => {
        if (closed) return resolve("");
        // Ctrl+D: readline closes without ending the question's line; end it, so what follows starts its own.
        const onClose = () => {
          answerPending = undefined;
          process.stderr.write("\n");
          resolve("");
        };
        rl.once("close", onClose);
        answerPending = (answer) => {
          answerPending = undefined;
          rl.off("close", onClose);
          resolve(answer);
        };
        rl.question(question, (answer) => answerPending?.(answer));
      }),
    close: () => rl.close(),
  };
}
