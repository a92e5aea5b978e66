/** A stdin the test writes lines into, as a Claude Agent SDK program writes them to ion. */
import type { JsonObject } from "../../src/sdk/channel.ts";

export function programStdin() {
  const chunks: string[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const stdin: AsyncIterable<string> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const chunk = chunks.shift();
        if (chunk !== undefined) yield chunk;
        else if (closed) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
  return {
    stdin,
    send(line: JsonObject) {
      chunks.push(`${JSON.stringify(line)}\n`);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
  };
}
