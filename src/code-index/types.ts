/** Shared types of the code index: what parsing a file yields and why a file is skipped. */

export type LanguageId = "typescript" | "tsx" | "javascript" | "python" | "rust" | "go";

/** A definition from a grammar's tags query (@definition.<kind>), with its place and context. */
export interface SymbolDef {
  name: string;
  /** The tags.scm kind: function, method, class, interface, module, type, constant, … */
  kind: string;
  /** 1-based line of the name. */
  line: number;
  /** 1-based last line of the definition node (the @definition capture's node). */
  endLine: number;
  /** The definition's first line, trimmed, at most 200 chars. */
  signature: string;
  /** The enclosing definition's name (the class of a method), when any. */
  parent?: string;
}

/** A reference (@reference.<kind>): a call, a type use, an implementation. */
export interface SymbolRef {
  name: string;
  kind: string;
  line: number;
}

export interface FileTags {
  language: LanguageId;
  definitions: SymbolDef[];
  references: SymbolRef[];
  /** The tree has ERROR or MISSING nodes: the tags are what tree-sitter recovered. */
  hasErrors: boolean;
}

export type SkipReason = "binary" | "not-utf8" | "too-large" | "unsupported";
