import type { Message } from "../providers/types.ts";
import type { ChatContext } from "./context.ts";
import type { SlashCommand } from "./registry.ts";

/** The text of the last assistant message that has any: the answer the user last read. */
export function lastAnswer(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant") continue;
    const text = message.content
      .flatMap((b) => (b.type === "text" ? [b.text] : []))
      .join("")
      .trim();
    if (text !== "") return text;
  }
  return undefined;
}

export const copyCommand: SlashCommand<ChatContext> = {
  name: "copy",
  summary: "put the last answer on the clipboard",
  // What lands on the clipboard is pasted next, often into a shell: only the user may put it there.
  refuseWhenPiped: () => "piped input cannot write your clipboard",
  async run(_args, context) {
    const answer = lastAnswer(context.session.messages());
    if (answer === undefined) {
      context.print("nothing to copy yet: no answer in this session");
      return;
    }
    const { copyToClipboard } = await import("./clipboard.ts");
    const copied = await copyToClipboard(answer, process.env, context.interactive);
    const chars = [...answer].length;
    // The OSC 52 sequence is ion's own bytes, written with the line that reports it (never through the
    // sanitiser, which removes OSC 52 from untrusted text).
    context.print(
      `${copied.terminalBytes ?? ""}${context.style.dim(`copied the last answer (${chars} characters) via ${copied.via}`)}`,
    );
  },
};
