/**
 * Turns the matches of a grammar's tags query into definitions and references, following the
 * tree-sitter tagging convention (as the `tree-sitter tags` command reads queries/tags.scm): each
 * match pairs an `@name` capture with an `@definition.<kind>` or `@reference.<kind>` capture.
 * Doc-comment captures (`@doc` with `#strip!`/`#select-adjacent!`) are not used: the index keeps
 * a definition's signature line, not its documentation.
 */
import type { Node, QueryMatch, Tree } from "web-tree-sitter";
import type { Grammar } from "./grammars.ts";
import type { FileTags, LanguageId, SymbolDef, SymbolRef } from "./types.ts";

const SIGNATURE_MAX_CHARS = 200;

interface Tag {
  name: Node;
  node: Node;
  role: "definition" | "reference";
  kind: string;
  pattern: number;
}

/** The definitions and references of a parsed file, in source order. */
export function tagsFromTree(grammar: Grammar, tree: Tree, text: string, language: LanguageId): FileTags {
  const tags = uniqueTags(grammar.tags().matches(tree.rootNode));
  const definitions: SymbolDef[] = [];
  const references: SymbolRef[] = [];
  const definitionNodes: { definition: SymbolDef; node: Node }[] = [];
  let lines: string[] | undefined;
  for (const tag of tags) {
    const line = tag.name.startPosition.row + 1;
    if (tag.role === "reference") {
      references.push({ name: tag.name.text, kind: tag.kind, line });
      continue;
    }
    lines ??= text.split("\n");
    const definition: SymbolDef = {
      name: tag.name.text,
      kind: tag.kind,
      line,
      endLine: lastLine(tag.node),
      signature: signatureOf(lines[line - 1] ?? ""),
    };
    definitions.push(definition);
    definitionNodes.push({ definition, node: tag.node });
  }
  assignParents(definitionNodes);
  return { language, definitions, references, hasErrors: tree.rootNode.hasError };
}

/**
 * One tag per (name, node): when several patterns tag the same node — Rust's method pattern and its
 * function pattern both match a function in an impl block, Go's type definition and its catch-all
 * type reference — the pattern written first in tags.scm wins, as in tree-sitter's own tagger.
 * Matches without both an @name and a definition/reference capture (Go's bare @name patterns) are
 * not tags.
 */
function uniqueTags(matches: QueryMatch[]): Tag[] {
  const byKey = new Map<string, Tag>();
  for (const match of matches) {
    let name: Node | undefined;
    let role: Tag["role"] | undefined;
    let kind = "";
    let node: Node | undefined;
    for (const capture of match.captures) {
      if (capture.name === "name") name = capture.node;
      else if (capture.name.startsWith("definition.")) {
        role = "definition";
        kind = capture.name.slice("definition.".length);
        node = capture.node;
      } else if (capture.name.startsWith("reference.")) {
        role = "reference";
        kind = capture.name.slice("reference.".length);
        node = capture.node;
      }
    }
    if (!name || !role || !node) continue;
    const key = `${name.startIndex}:${name.endIndex}:${node.startIndex}`;
    const existing = byKey.get(key);
    if (!existing || existing.pattern > match.patternIndex) {
      byKey.set(key, { name, node, role, kind, pattern: match.patternIndex });
    }
  }
  return [...byKey.values()].sort((a, b) => a.name.startIndex - b.name.startIndex || a.pattern - b.pattern);
}

/** 1-based last line of a node; a node ending at the start of a line ends on the line before. */
function lastLine(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}

/**
 * The line the name stands on, trimmed and capped: the definition's first line, except that
 * decorators or attributes above it are skipped (a TypeScript class node starts at its decorators).
 */
function signatureOf(line: string): string {
  const trimmed = line.trim();
  if (trimmed.length <= SIGNATURE_MAX_CHARS) return trimmed;
  const cut = trimmed.slice(0, SIGNATURE_MAX_CHARS);
  // Do not end on half a surrogate pair.
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * Each definition's parent: the innermost other definition whose node encloses its node, else the
 * type a Rust or Go method belongs to.
 */
function assignParents(definitions: { definition: SymbolDef; node: Node }[]): void {
  const byPosition = [...definitions].sort(
    (a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex,
  );
  const open: { definition: SymbolDef; node: Node }[] = [];
  for (const entry of byPosition) {
    let parent = open[open.length - 1];
    while (parent && !encloses(parent.node, entry.node)) {
      open.pop();
      parent = open[open.length - 1];
    }
    const owner = parent?.definition.name ?? receiverType(entry.node);
    if (owner !== undefined) entry.definition.parent = owner;
    open.push(entry);
  }
}

function encloses(outer: Node, inner: Node): boolean {
  const same = outer.startIndex === inner.startIndex && outer.endIndex === inner.endIndex;
  return !same && outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;
}

/**
 * The type a method is declared for where tags.scm does not nest it in a definition: Rust methods sit
 * in an `impl Type` block (a reference, not a definition), Go methods name the type as their receiver.
 */
function receiverType(node: Node): string | undefined {
  let type: Node | null | undefined;
  if (node.type === "method_declaration") {
    type = node.childForFieldName("receiver")?.namedChildren[0]?.childForFieldName("type");
  } else if (node.parent?.type === "declaration_list" && node.parent.parent?.type === "impl_item") {
    type = node.parent.parent.childForFieldName("type");
  }
  return type ? baseTypeName(type.text) : undefined;
}

/** `*Store` → Store, `Stack<T>` / `List[T]` → Stack / List, `fmt::Wrapper` → Wrapper. */
function baseTypeName(type: string): string {
  const bare = type.replace(/^[\s*&]+/, "").replace(/[<[][\s\S]*$/, "");
  return bare.slice(bare.lastIndexOf(":") + 1).trim();
}
