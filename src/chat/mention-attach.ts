import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { homeDir } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { sizeText } from "../providers/image.ts";
import { readImageFile } from "../providers/image-file.ts";
import type { UserBlock } from "../providers/types.ts";
import { ToolInputError } from "../tools/define.ts";
import { resolveInWorkspace, type WorkspaceScope } from "../tools/workspace.ts";
import { PROJECT_FILE_MAX_BYTES } from "../util/project-file.ts";
import type { Mention } from "./mention-parse.ts";

/**
 * The files a message's `@` mentions attach, read as `ion run -f` reads them (images as image blocks,
 * text as a `<file path="…">` block, binary refused), with the workspace guard of the file tools and a
 * size cap. A mention that is not an existing file is plain text. A mention of a file that cannot go
 * (outside the workspace, binary, too large) refuses the whole message: the user wrote it around that
 * file, and an answer about a file the model never saw would cost a request and mislead.
 * Loaded with the first message that has a mention.
 */

export interface AttachedFile {
  block: UserBlock;
  /** `src/a.ts (2 KB)`, for the line saying what went with the message. */
  label: string;
}

/** A text file larger than this is refused: the one reader's cap for project files (≈ 250 k tokens). */
export const MAX_MENTION_TEXT_BYTES = PROJECT_FILE_MAX_BYTES;

/** Error codes that mean "there is no file by that name": the mention is then plain text. */
const NOT_A_PATH = new Set(["ENOENT", "ENOTDIR", "ENAMETOOLONG", "EINVAL"]);

function refused(message: string, hint?: string): IonError {
  return new IonError("usage", `${message}; nothing was sent`, hint === undefined ? undefined : { hint });
}

/** `~/x` as in a shell; the rest relative to the workspace root. */
function fullPath(path: string, root: string): string {
  return resolve(root, path.startsWith("~/") ? `${homeDir()}${path.slice(1)}` : path);
}

/** The mention's path (as written, else without a sentence's closing punctuation) when it names a file. */
async function existingFile(
  mention: Mention,
  root: string,
): Promise<{ path: string; size: number } | undefined> {
  for (const path of mention.trimmed === undefined ? [mention.path] : [mention.path, mention.trimmed]) {
    let size: number | undefined;
    try {
      const info = await stat(fullPath(path, root));
      if (info.isFile()) size = info.size;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === undefined || !NOT_A_PATH.has(code))
        throw refused(`cannot read @${path} (${code ?? String(err)})`);
    }
    if (size !== undefined) return { path, size };
  }
  return undefined;
}

async function attachFile(path: string, size: number, scope: WorkspaceScope): Promise<AttachedFile> {
  let real: string;
  try {
    real = resolveInWorkspace(fullPath(path, scope.root), scope);
  } catch (err) {
    if (!(err instanceof ToolInputError)) throw err;
    throw refused(
      `cannot attach @${path}: it is outside the workspace`,
      "mentions attach files inside the workspace and the directories in config workspace.allow",
    );
  }
  try {
    if (size > MAX_MENTION_TEXT_BYTES) {
      // Images have a cap of their own (5 MB); anything else this large is refused unread.
      const image = await readImageFile(real, path);
      if (!image)
        throw refused(
          `cannot attach @${path}: it is ${sizeText(size)}; text files up to ${sizeText(MAX_MENTION_TEXT_BYTES)}`,
          "mention a smaller file, or ask the model to read the part you need",
        );
      return { block: image, label: `${path} (${sizeText(size)})` };
    }
    // The reader `ion run -f` uses; it loads here, with the first file, not at the chat's start.
    const { readContextFile } = await import("../commands/run-input.ts");
    // `~/x` goes by its full path (the reader does not expand `~`); the rest as written, as with -f.
    const block = await readContextFile(
      path.startsWith("~/") ? fullPath(path, scope.root) : path,
      scope.root,
    );
    return { block, label: `${path} (${sizeText(size)})` };
  } catch (err) {
    if (!(err instanceof IonError) || err.message.endsWith("nothing was sent")) throw err;
    throw new IonError(
      err.code,
      `${err.message}; nothing was sent`,
      err.hint ? { hint: err.hint } : undefined,
    );
  }
}

/** The files the mentions name, in order; throws IonError (ending "nothing was sent") for one that cannot go. */
export async function attachMentions(
  mentions: readonly Mention[],
  scope: WorkspaceScope,
): Promise<AttachedFile[]> {
  const files: AttachedFile[] = [];
  for (const mention of mentions) {
    const file = await existingFile(mention, scope.root);
    if (file) files.push(await attachFile(file.path, file.size, scope));
  }
  return files;
}
