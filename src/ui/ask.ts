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
  return {
    ...(beforeAsk ? { beforeAsk } : {}),
    show: (preview) => process.stderr.write(`${preview}\n`),
    ask: (question) =>
      new Promise((resolve) => {
        if (closed) return resolve("");
        const onClose = () => resolve("");
        rl.once("close", onClose);
        rl.question(question, (answer) => {
          rl.off("close", onClose);
          resolve(answer);
        });
      }),
    close: () => rl.close(),
  };
}
