import { readFile } from "node:fs/promises";
import { unifiedDiff } from "../tools/diff.ts";
import { displayPath, resolveInWorkspace } from "../tools/workspace.ts";
import { colorDiff } from "./chat-render.ts";
import type { Style } from "./style.ts";

const MAX_PREVIEW_LINES = 40;

function cut(text: string): string {
  const lines = text.split("\n");
  if (lines.length <= MAX_PREVIEW_LINES) return text;
  return [...lines.slice(0, MAX_PREVIEW_LINES), `… ${lines.length - MAX_PREVIEW_LINES} more lines`].join(
    "\n",
  );
}

async function current(path: string, cwd: string): Promise<{ shown: string; text: string | undefined }> {
  const target = resolveInWorkspace(path, { root: cwd, allow: [] });
  const shown = displayPath(target, cwd);
  const text = await readFile(target, "utf8").catch(() => undefined);
  return { shown, text };
}

/**
 * What an approval shows before its question: a multi-line command in full, or the diff an edit or
 * write would make. Undefined when the one-line question says it all or the preview cannot be made
 * (the tool itself reports such problems when it runs).
 */
export async function previewCall(
  name: string,
  input: Record<string, unknown>,
  options: { cwd: string; style: Style },
): Promise<string | undefined> {
  try {
    if (name === "bash" && typeof input.command === "string" && input.command.includes("\n"))
      return cut(input.command);
    if (name === "edit_file" && typeof input.path === "string") {
      const { shown, text } = await current(input.path, options.cwd);
      const { old_string: from, new_string: to, replace_all: all } = input;
      if (text === undefined || typeof from !== "string" || typeof to !== "string" || !text.includes(from))
        return undefined;
      const after = all === true ? text.split(from).join(to) : text.replace(from, () => to);
      return colorDiff(cut(unifiedDiff(text, after, { path: shown }).trimEnd()), options.style);
    }
    if (name === "write_file" && typeof input.path === "string" && typeof input.content === "string") {
      const { shown, text } = await current(input.path, options.cwd);
      return colorDiff(cut(unifiedDiff(text ?? "", input.content, { path: shown }).trimEnd()), options.style);
    }
  } catch {
    return undefined; // e.g. a path outside the workspace: the tool refuses it with its own message
  }
  return undefined;
}
