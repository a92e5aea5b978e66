/** Which grammar parses a file, by its extension. Light on purpose: loads no parser. */
import type { LanguageId } from "./types.ts";

const BY_EXTENSION: Record<string, LanguageId> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  // The JavaScript grammar parses JSX too.
  jsx: "javascript",
  py: "python",
  pyi: "python",
  rs: "rust",
  go: "go",
};

export const LANGUAGES: readonly LanguageId[] = ["typescript", "tsx", "javascript", "python", "rust", "go"];

/** The language of `path` from its extension, or undefined when no grammar is bundled for it. */
export function languageOf(path: string): LanguageId | undefined {
  const slash = path.lastIndexOf("/");
  const dot = path.lastIndexOf(".");
  if (dot <= slash + 1) return undefined; // no extension, or a dotfile such as ".ts"
  return BY_EXTENSION[path.slice(dot + 1).toLowerCase()];
}
