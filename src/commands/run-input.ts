import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { IonError } from "../errors.ts";
import { readImageFile } from "../providers/image-file.ts";
import type { UserBlock } from "../providers/types.ts";
import { isBinary } from "../tools/limits.ts";
import { messageOf } from "../util/error-text.ts";

export { stdinReader } from "./run-stdin.ts";

export interface PromptSources {
  /** The prompt words from the command line, joined; "-" means read it from stdin. */
  prompt: string;
  files: string[];
  cwd: string;
  stdinIsTTY: boolean;
  readStdin: () => Promise<Uint8Array>;
}

/** The bytes as text, or undefined when they are binary: a NUL byte or invalid UTF-8 anywhere. */
function textOf(bytes: Uint8Array): string | undefined {
  if (isBinary(bytes)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined; // invalid UTF-8 past the sample isBinary looks at
  }
}

/** A `-f` file: an image block for a PNG, JPEG, GIF or WebP image (by its first bytes), else its text. */
export async function readContextFile(path: string, cwd: string): Promise<UserBlock> {
  const full = resolve(cwd, path);
  const info = await stat(full).catch(() => undefined);
  if (!info) throw new IonError("io", `cannot read ${path}: no such file`);
  if (info.isDirectory()) throw new IonError("io", `cannot attach ${path}: it is a directory`);
  let bytes: Uint8Array;
  try {
    const image = await readImageFile(full, path);
    if (image) return image;
    bytes = await Bun.file(full).bytes();
  } catch (err) {
    if (err instanceof IonError) throw err;
    throw new IonError("io", `cannot read ${path}: ${messageOf(err)}`);
  }
  const text = textOf(bytes);
  if (text === undefined)
    throw new IonError(
      "io",
      `cannot attach ${path}: it is a binary file (NUL bytes or invalid UTF-8), not text`,
    );
  return { type: "text", text: `<file path="${path}">\n${text.replace(/\n$/, "")}\n</file>` };
}

/** Piped stdin as text; binary data (`head -c 3000 /dev/urandom | ion run`) is refused as `-f` refuses it. */
function stdinText(bytes: Uint8Array): string {
  const text = textOf(bytes);
  if (text === undefined)
    throw new IonError("io", "cannot read stdin: it is binary data (NUL bytes or invalid UTF-8), not text");
  return text;
}

/**
 * The user's message: the prompt from arguments or stdin; piped stdin alongside a prompt is attached
 * as context; `-f` files are attached before the prompt (images as image blocks, the rest as text).
 */
export async function buildUserContent(sources: PromptSources): Promise<UserBlock[]> {
  const blocks: UserBlock[] = [];
  let prompt = sources.prompt.trim();
  const fromStdin = !sources.stdinIsTTY ? stdinText(await sources.readStdin()) : "";

  if (prompt === "-" || (prompt === "" && !sources.stdinIsTTY)) {
    prompt = fromStdin.trim();
  } else if (fromStdin.trim() !== "") {
    blocks.push({ type: "text", text: `<stdin>\n${fromStdin.replace(/\n$/, "")}\n</stdin>` });
  }
  for (const path of sources.files) blocks.push(await readContextFile(path, sources.cwd));
  if (prompt === "") {
    throw new IonError("usage", "no prompt given", {
      hint: 'pass it as an argument (`ion run "…"`) or pipe it on stdin (`echo "…" | ion run`)',
    });
  }
  blocks.push({ type: "text", text: prompt });
  return blocks;
}
