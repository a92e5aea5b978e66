import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { homeDir } from "../config/paths.ts";
import { imageRefusal } from "../providers/image.ts";
import { readImageFile } from "../providers/image-file.ts";
import type { ImageBlock, ModelCapabilities, UserBlock } from "../providers/types.ts";

/**
 * Images in chat messages. A line that is only an image file's path — what a terminal pastes for a
 * file dragged onto it: maybe quoted, with backslash-escaped spaces, or as a file:// URL — attaches
 * the image to the next message. `@path` of an image file inside a message attaches it to that
 * message (the mention stays in the text, so the model knows which file it is). Only paths ending in
 * an image extension are looked at, so ordinary messages cost no file system access.
 */

const IMAGE_PATH = /\.(png|jpe?g|gif|webp)$/i;

/** What the chat knows of its session, for resolving paths and refusing a model without image input. */
export interface AttachTarget {
  cwd: string;
  modelCapabilities: ModelCapabilities | undefined;
  label: string;
}

/** A pasted path as the file system path it names, or undefined when the line does not look like one. */
export function pastedPath(line: string): string | undefined {
  let text = line.trim();
  if (text.startsWith("file://")) {
    if (!URL.canParse(text)) return undefined; // not a URL after all: the line is a message
    text = decodeURIComponent(new URL(text).pathname);
  }
  const quote = text[0];
  if ((quote === "'" || quote === '"') && text.length > 1 && text.endsWith(quote)) text = text.slice(1, -1);
  else text = text.replace(/\\(.)/g, "$1"); // `Screen\ Shot.png`, as macOS terminals paste it
  if (text.includes("\n") || !IMAGE_PATH.test(text)) return undefined;
  return text;
}

async function imageAt(path: string, cwd: string): Promise<ImageBlock | undefined> {
  const full = resolve(cwd, path.startsWith("~/") ? `${homeDir()}${path.slice(1)}` : path);
  const info = await stat(full).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return readImageFile(full, path);
}

export class ChatAttachments {
  private pending: ImageBlock[] = [];

  /**
   * The line as a pasted image path: the image, held for the next message. Undefined when the line
   * is not the path of an image file (it is then a message). Throws IonError for an image too large,
   * or for a model that cannot read images.
   */
  async paste(line: string, target: AttachTarget): Promise<ImageBlock | undefined> {
    const path = pastedPath(line);
    const image = path === undefined ? undefined : await imageAt(path, target.cwd);
    if (!image) return undefined;
    const refusal = imageRefusal([image], target.modelCapabilities, target.label);
    if (refusal) throw refusal;
    this.pending.push(image);
    return image;
  }

  /** A message's blocks: the images held for it, those it mentions with `@path`, then its text. */
  async content(text: string, cwd: string): Promise<UserBlock[]> {
    const blocks: UserBlock[] = this.pending;
    this.pending = [];
    for (const match of text.matchAll(/(?:^|\s)@(\S+)/g)) {
      const path = (match[1] ?? "").replace(/[?!.,;:)\]]+$/, ""); // `@shot.png?` ends a sentence
      if (!IMAGE_PATH.test(path)) continue;
      const image = await imageAt(path, cwd);
      if (image) blocks.push(image);
    }
    blocks.push({ type: "text", text });
    return blocks;
  }
}
