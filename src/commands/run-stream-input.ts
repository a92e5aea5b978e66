import type { UserBlock } from "../providers/types.ts";
import { textLines } from "../util/text-lines.ts";

/**
 * `--input-format stream-json`: Claude Code's input protocol — one JSON object per stdin line,
 * `{"type":"user","message":{"role":"user","content": "text" | [{"type":"text","text":…}, …]}}` — each
 * a turn of the same session, until EOF. A line that is not such a message is skipped with one line
 * on stderr naming it; nothing else on the line is sent. Binary data (a NUL byte or invalid UTF-8) is
 * no protocol at all: it ends the input with an error (textLines), and the turns before it stand.
 */

export function textBlocks(content: unknown): UserBlock[] | undefined {
  if (typeof content === "string")
    return content.trim() === "" ? undefined : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return undefined;
  const blocks: UserBlock[] = [];
  for (const block of content) {
    if (typeof block !== "object" || block === null) return undefined;
    const { type, text } = block as { type?: unknown; text?: unknown };
    if (type !== "text" || typeof text !== "string") return undefined;
    blocks.push({ type: "text", text });
  }
  return blocks.length > 0 ? blocks : undefined;
}

/** Why a parsed line is not a user message ion can send, or its content blocks. */
function parseUserLine(line: string): UserBlock[] | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return "not JSON";
  }
  if (typeof value !== "object" || value === null) return "not a JSON object";
  const { type, message } = value as { type?: unknown; message?: unknown };
  if (type !== "user") return `type is ${JSON.stringify(type)}, not "user"`;
  const content = (message as { content?: unknown } | undefined)?.content;
  return textBlocks(content) ?? 'message.content must be text or an array of {"type":"text","text":…} blocks';
}

export async function* userMessages(
  stdin: AsyncIterable<Uint8Array | string>,
  warn: (line: string) => void,
): AsyncGenerator<UserBlock[]> {
  let n = 0;
  for await (const line of textLines(stdin)) {
    n++;
    if (line.trim() === "") continue;
    const parsed = parseUserLine(line);
    if (typeof parsed === "string") warn(`stdin line ${n} skipped: ${parsed}`);
    else yield parsed;
  }
}
