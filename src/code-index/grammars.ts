/**
 * The tree-sitter runtime and grammars, loaded on first use and cached for the process.
 *
 * Everything is embedded by `bun build --compile`: web-tree-sitter's own WebAssembly runtime and each
 * grammar's .wasm as files (`with { type: "file" }` gives their path, inside the binary when compiled),
 * each grammar's tags query as text. web-tree-sitter itself is imported on first use only, so a
 * module that merely imports this one loads no parser.
 */

import goTags from "tree-sitter-go/queries/tags.scm" with { type: "text" };
import goWasm from "tree-sitter-go/tree-sitter-go.wasm" with { type: "file" };
import javascriptTags from "tree-sitter-javascript/queries/tags.scm" with { type: "text" };
import javascriptWasm from "tree-sitter-javascript/tree-sitter-javascript.wasm" with { type: "file" };
import pythonTags from "tree-sitter-python/queries/tags.scm" with { type: "text" };
import pythonWasm from "tree-sitter-python/tree-sitter-python.wasm" with { type: "file" };
import rustTags from "tree-sitter-rust/queries/tags.scm" with { type: "text" };
import rustWasm from "tree-sitter-rust/tree-sitter-rust.wasm" with { type: "file" };
import typescriptTags from "tree-sitter-typescript/queries/tags.scm" with { type: "text" };
import tsxWasm from "tree-sitter-typescript/tree-sitter-tsx.wasm" with { type: "file" };
import typescriptWasm from "tree-sitter-typescript/tree-sitter-typescript.wasm" with { type: "file" };
import type { Language, Parser, Query } from "web-tree-sitter";
import runtimeWasm from "web-tree-sitter/web-tree-sitter.wasm" with { type: "file" };
import type { LanguageId } from "./types.ts";

/**
 * Each language's grammar and tags query, the query concatenated as its package's tree-sitter.json
 * lists it: TypeScript and TSX use their own tags.scm followed by JavaScript's (the package points
 * at its own copy of tree-sitter-javascript's queries, identical to the one used here).
 */
const SOURCES: Record<LanguageId, { wasm: string; tags: string }> = {
  typescript: { wasm: typescriptWasm, tags: `${typescriptTags}\n${javascriptTags}` },
  tsx: { wasm: tsxWasm, tags: `${typescriptTags}\n${javascriptTags}` },
  javascript: { wasm: javascriptWasm, tags: javascriptTags },
  python: { wasm: pythonWasm, tags: pythonTags },
  rust: { wasm: rustWasm, tags: rustTags },
  go: { wasm: goWasm, tags: goTags },
};

/** A language ready to use: one parser set to it and its tags query. */
export interface Grammar {
  language: Language;
  parser: Parser;
  /**
   * The tags query, compiled on first call: compiling TypeScript's takes 50–200 ms, more than
   * loading the grammar, and a parse-only run never needs it.
   */
  tags(): Query;
}

type TreeSitter = typeof import("web-tree-sitter");

let runtime: Promise<TreeSitter> | undefined;
const grammars = new Map<LanguageId, Promise<Grammar>>();

/** web-tree-sitter, initialised with its runtime read from the embedded file (not looked up next to the script). */
function treeSitter(): Promise<TreeSitter> {
  runtime ??= (async () => {
    const module = await import("web-tree-sitter");
    const wasmBinary = new Uint8Array(await Bun.file(runtimeWasm).arrayBuffer());
    await module.Parser.init({ wasmBinary });
    return module;
  })();
  return runtime;
}

/** The grammar of `id`, loaded once per process; a failed load is not cached, so a later call retries. */
export function grammarOf(id: LanguageId): Promise<Grammar> {
  let grammar = grammars.get(id);
  if (!grammar) {
    grammar = loadGrammar(id);
    grammars.set(id, grammar);
    grammar.catch(() => grammars.delete(id));
  }
  return grammar;
}

async function loadGrammar(id: LanguageId): Promise<Grammar> {
  const { Language, Parser, Query } = await treeSitter();
  const source = SOURCES[id];
  const language = await Language.load(new Uint8Array(await Bun.file(source.wasm).arrayBuffer()));
  const parser = new Parser();
  parser.setLanguage(language);
  let tags: Query | undefined;
  return { language, parser, tags: () => (tags ??= new Query(language, source.tags)) };
}
