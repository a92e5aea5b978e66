import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { homeDir } from "../config/paths.ts";
import { imageRefusal } from "../providers/image.ts";
import { readImageFile } from "../providers/image-file.ts";
import type { ImageBlock, ModelCapabilities, UserBlock } from "../providers/types.ts";
import type { WorkspaceScope } from "../tools/workspace.ts";
import { mentionsIn } from "./mention-parse.ts";

/**
 * Images in chat messages. A line that is only an image file's path — what a terminal pastes for a
 * file dragged onto it: maybe quoted, with backslash-escaped spaces, or as a file:// URL — attaches
 * the image to the next message; only lines ending in an image extension are looked at, so ordinary
 * messages cost no file system access. `@path` inside a message attaches that file to the message —
 * an image, or a text file as a `<file path="…">` block (chat/mention-attach.ts has the rules); the
 * mention stays in the text, so the model knows which file it is.
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

  /**
   * A message's blocks: the images held for it, the files it mentions with `@path`, then its text; and
   * a label per mentioned file. Throws IonError (nothing is sent, the held images stay) for a mentioned
   * file that cannot go.
   */
  async content(text: string, scope: WorkspaceScope): Promise<{ blocks: UserBlock[]; attached: string[] }> {
    const mentions = mentionsIn(text);
    // The file reader and the workspace guard load with the first message that mentions something.
    const files =
      mentions.length === 0
        ? []
        : await (await import("./mention-attach.ts")).attachMentions(mentions, scope);
    const blocks: UserBlock[] = [...this.pending, ...files.map((f) => f.block), { type: "text", text }];
    this.pending = [];
    return { blocks, attached: files.map((f) => f.label) };
  }
}
