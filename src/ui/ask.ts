import { createInterface, type Interface } from "node:readline";
import type { ApprovalPrompt } from "./approval.ts";

/**
 * Asks on stderr (and shows what a question is about there) and reads the answer from the terminal
 * on stdin. Ctrl+D or a closed stdin means no.
 *
 * The terminal is read only while a question waits: between questions it stays as the shell left
 * it, so what the user types while a run works is left unread (the shell gets it once ion exits),
 * and Ctrl+C is the terminal's own SIGINT.
 */
export function terminalPrompt(beforeAsk?: () => void): ApprovalPrompt & { close(): void } {
  /** Ctrl+D or the end of stdin: every later question is answered no at once. */
  let ended = false;
  /** The reader of the question being asked, if any. */
  let reader: Interface | undefined;
  /** Answers the question being asked, if any. */
  let answerPending: ((answer: string) => void) | undefined;

  const open = (): Interface => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    // The terminal is in raw mode while this reader is open, so Ctrl+C arrives as a key, not a signal:
    // readline would only pause. Hand it to the run's SIGINT handling (which cancels the turn), then
    // let the question go unanswered (no): one Ctrl+C ends the run, as without a terminal.
    rl.on("SIGINT", () => {
      // End the question's line first, so what the interruption prints starts a line of its own.
      if (answerPending) process.stderr.write("\n");
      if (process.listenerCount("SIGINT") > 0) process.emit("SIGINT", "SIGINT");
      else process.kill(process.pid, "SIGINT");
      answerPending?.("");
    });
    return rl;
  };

  return {
    ...(beforeAsk ? { beforeAsk } : {}),
    show: (preview) => process.stderr.write(`${preview}\n`),
    ask: (question) =>
      new Promise((resolve) => {
        if (ended) return resolve("");
        const rl = open();
        reader = rl;
        // Ctrl+D: readline closes without ending the question's line; end it, so what follows starts its own.
        const onClose = () => {
          ended = true;
          answerPending = undefined;
          reader = undefined;
          process.stderr.write("\n");
          resolve("");
        };
        rl.once("close", onClose);
        answerPending = (answer) => {
          answerPending = undefined;
          rl.off("close", onClose);
          reader = undefined;
          // Closed at once: leaves raw mode and stops reading, so nothing typed later is taken.
          rl.close();
          resolve(answer);
        };
        rl.question(question, (answer) => answerPending?.(answer));
      }),
    close: () => reader?.close(),
  };
}
