import { readFileSync } from "node:fs";
import { errnoOf } from "./io.ts";

/**
 * What the ion process holding a session is doing, for the message that refuses a second one: "an ion
 * chat" or "`ion run`", from its command line (/proc/<pid>/cmdline, Linux only; undefined elsewhere or
 * when the command line says neither). Read only when a session is refused, never on the way in.
 */
export function holderKind(pid: number): string | undefined {
  if (process.platform !== "linux") return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch (err) {
    const code = errnoOf(err);
    if (code === "ENOENT" || code === "ESRCH" || code === "EACCES") return undefined;
    throw err;
  }
  return kindOf(text.split("\0").filter((word) => word !== ""));
}

/** The chat's options that take a value in the next word (`ion -m openai/gpt-4o` is a chat). */
const VALUE_OPTIONS = new Set(["-m", "--model", "-r", "--resume", "--cwd", "--thinking"]);

/** From argv: the program, then (run from source) its script, then the command; none is the chat. */
export function kindOf(argv: readonly string[]): string | undefined {
  let words = argv.slice(1);
  if (/\.(ts|js|mjs)$/.test(words[0] ?? "")) words = words.slice(1);
  const command = words.find((word, i) => !word.startsWith("-") && !VALUE_OPTIONS.has(words[i - 1] ?? ""));
  // `ion` alone or with options only (`ion -c`) is the chat.
  if (command === undefined || command === "chat") return "an ion chat";
  if (command === "run") return "`ion run`";
  return undefined;
}
