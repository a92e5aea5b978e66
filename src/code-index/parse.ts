/**
 * Parse a file and read its symbols: the code index's one entry point to tree-sitter.
 * Grammars load on first use (grammars.ts) and stay cached, one parser and tags query per language.
 */
import { type Grammar, grammarOf } from "./grammars.ts";
import { languageOf } from "./languages.ts";
import { tagsFromTree } from "./tags.ts";
import type { FileTags, LanguageId, SkipReason } from "./types.ts";

export { languageOf } from "./languages.ts";

/** Files larger than this are skipped: generated or vendored code, not worth an index entry. */
export const DEFAULT_MAX_BYTES = 1024 * 1024;
/** A NUL byte this early means a binary file, as git and grep decide it. */
const BINARY_PROBE_BYTES = 8192;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The definitions and references of a file from its grammar's tags query, or why it was skipped.
 * A file with syntax errors still yields what tree-sitter recovered (`hasErrors: true`).
 */
export async function tagsOf(
  path: string,
  bytes: Uint8Array,
  options?: { maxBytes?: number },
): Promise<FileTags | { skipped: SkipReason }> {
  const language = languageOf(path);
  if (!language) return { skipped: "unsupported" };
  const text = decodeSource(bytes, options?.maxBytes ?? DEFAULT_MAX_BYTES);
  if (typeof text !== "string") return text;
  const grammar = await grammarOf(language);
  const tree = parseWith(grammar.parser, text, path);
  try {
    return tagsFromTree(grammar, tree, text, language);
  } finally {
    tree.delete();
  }
}

/** Parse without running the tags query — the floor an index run is measured against. */
export async function parseOnly(
  path: string,
  text: string,
): Promise<{ language: LanguageId; hasErrors: boolean } | undefined> {
  const language = languageOf(path);
  if (!language) return undefined;
  const tree = parseWith((await grammarOf(language)).parser, text, path);
  try {
    return { language, hasErrors: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}

/** The file's text, or why it is not indexed: too large, binary (a NUL early on) or not UTF-8. */
export function decodeSource(bytes: Uint8Array, maxBytes: number): string | { skipped: SkipReason } {
  if (bytes.byteLength > maxBytes) return { skipped: "too-large" };
  if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return { skipped: "binary" };
  try {
    return utf8.decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) return { skipped: "not-utf8" };
    throw error;
  }
}

function parseWith(parser: Grammar["parser"], text: string, path: string) {
  const tree = parser.parse(text);
  // parse() returns null only when the parser has no language or was cancelled; neither happens here.
  if (!tree) throw new Error(`tree-sitter returned no tree for ${path}`);
  return tree;
}
