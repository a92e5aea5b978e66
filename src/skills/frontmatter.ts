/**
 * YAML frontmatter of skill files: `---` fences split here, the YAML between them parsed by Bun's
 * built-in YAML parser (`Bun.YAML.parse`: no dependency, nothing to load at start-up), its three
 * fields checked here. Keys other than these (`license`, `metadata`, `allowed-tools`, …) are kept by
 * the parser and ignored by ion, as the Agent Skills specification allows.
 *
 * The check is written out rather than a zod schema: skills are loaded on every run, and importing
 * zod's core for three fields cost ~1 ms of each (the built-in skills are parsed when ion is built).
 *
 *   splitFrontmatter(text) → { yaml, body } | { body } | { error }
 *   parseYamlMapping(yaml) → { data } | { error }      the mapping, unchecked (custom agents check their own)
 *   parseFrontmatter(yaml) → { data } | { error }      with the skill fields checked
 */
import { messageOf } from "../util/error-text.ts";

export interface Frontmatter {
  name?: string;
  description?: string;
  /** Programs the skill runs; a single name is accepted for a list of one. */
  requires?: string[] | string;
  [key: string]: unknown;
}

const EXPECTED: Record<string, string> = {
  name: "a string",
  description: "a string",
  requires: "a list of program names",
};

const isString = (value: unknown): value is string => typeof value === "string";

/** The first of the known fields whose value has the wrong type (absent is fine; null is not). */
function wrongField(value: Record<string, unknown>): string | undefined {
  for (const field of ["name", "description"]) {
    if (field in value && !isString(value[field])) return field;
  }
  const requires = value.requires;
  if ("requires" in value && !isString(requires) && !(Array.isArray(requires) && requires.every(isString)))
    return "requires";
  return undefined;
}

type Split = { yaml: string; body: string } | { body: string } | { error: string };

/**
 * Frontmatter is a first line of exactly `---` and the next line of `---` (or `...`, YAML's document
 * end). A file without the opening fence has no frontmatter; one without the closing fence is an error.
 */
export function splitFrontmatter(text: string): Split {
  const open = /^---[ \t]*\r?\n/.exec(text);
  if (!open) return { body: text };
  const rest = text.slice(open[0].length);
  const close = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m.exec(rest);
  if (!close) return { error: "the frontmatter has no closing `---` line" };
  return { yaml: rest.slice(0, close.index), body: rest.slice(close.index + close[0].length) };
}

/** The frontmatter's YAML as a mapping (empty YAML is an empty one), its fields not yet checked. */
export function parseYamlMapping(yaml: string): { data: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = yaml.trim() === "" ? {} : Bun.YAML.parse(yaml);
  } catch (err) {
    // Bun's message is "YAML Parse error: <reason>"; it carries no position.
    const reason = messageOf(err).replace(/^YAML Parse error: /, "");
    return { error: `invalid YAML in the frontmatter: ${reason}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: "the frontmatter must be a YAML mapping (`name: …`, `description: …`)" };
  }
  return { data: value as Record<string, unknown> };
}

export function parseFrontmatter(yaml: string): { data: Frontmatter } | { error: string } {
  const mapping = parseYamlMapping(yaml);
  if ("error" in mapping) return mapping;
  const field = wrongField(mapping.data);
  if (field === undefined) return { data: mapping.data as Frontmatter };
  return { error: `${field}: expected ${EXPECTED[field]}` };
}
