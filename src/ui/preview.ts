import { readFile } from "node:fs/promises";
import { unifiedDiff } from "../tools/diff.ts";
import { displayPath, resolveInWorkspace } from "../tools/workspace.ts";
import { escapeControls } from "../util/terminal-text.ts";
import { colorDiff } from "./chat-render.ts";
import type { Style } from "./style.ts";

/** The whole diff, coloured, with control characters in the files' text written out visibly. */
function shownDiff(before: string, after: string, path: string, style: Style): string {
  return colorDiff(escapeControls(unifiedDiff(before, after, { path }).trimEnd()), style);
}

async function current(path: string, cwd: string): Promise<{ shown: string; text: string | undefined }> {
  const target = resolveInWorkspace(path, { root: cwd, allow: [] });
  const shown = displayPath(target, cwd);
  const text = await readFile(target, "utf8").catch(() => undefined);
  return { shown, text };
}

/**
 * What an approval shows before its question (which itself shows the command or path): the whole
 * diff an edit or write would make. Undefined for other tools, or when the preview cannot be made
 * (the tool itself reports such problems when it runs).
 */
export async function previewCall(
  name: string,
  input: Record<string, unknown>,
  options: { cwd: string; style: Style },
): Promise<string | undefined> {
  try {
    if (name === "edit_file" && typeof input.path === "string") {
      const { shown, text } = await current(input.path, options.cwd);
      const { old_string: from, new_string: to, replace_all: all } = input;
      if (text === undefined || typeof from !== "string" || typeof to !== "string" || !text.includes(from))
        return undefined;
      const after = all === true ? text.split(from).join(to) : text.replace(from, () => to);
      return shownDiff(text, after, shown, options.style);
    }
    if (name === "write_file" && typeof input.path === "string" && typeof input.content === "string") {
      const { shown, text } = await current(input.path, options.cwd);
      return shownDiff(text ?? "", input.content, shown, options.style);
    }
  } catch {
    return undefined; // e.g. a path outside the workspace: the tool refuses it with its own message
  }
  return undefined;
}
