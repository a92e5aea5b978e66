import * as z from "zod/mini";

/**
 * YAML frontmatter of skill files: `---` fences split here, the YAML between them parsed by Bun's
 * built-in YAML parser (`Bun.YAML.parse`: no dependency, nothing to load at start-up), its shape checked
 * with zod. Keys other than these (`license`, `metadata`, `allowed-tools`, …) are kept by the parser
 * and ignored by ion, as the Agent Skills specification allows.
 *
 *   splitFrontmatter(text) → { yaml, body } | { body } | { error }
 *   parseFrontmatter(yaml) → { data } | { error }
 */

export const FrontmatterSchema = z.looseObject({
  name: z.optional(z.string()),
  description: z.optional(z.string()),
  /** Programs the skill runs; a single name is accepted for a list of one. */
  requires: z.optional(z.union([z.array(z.string()), z.string()])),
});

export type Frontmatter = z.infer<typeof FrontmatterSchema>;

const EXPECTED: Record<string, string> = {
  name: "a string",
  description: "a string",
  requires: "a list of program names",
};

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

export function parseFrontmatter(yaml: string): { data: Frontmatter } | { error: string } {
  let value: unknown;
  try {
    value = yaml.trim() === "" ? {} : Bun.YAML.parse(yaml);
  } catch (err) {
    // Bun's message is "YAML Parse error: <reason>"; it carries no position.
    const reason = err instanceof Error ? err.message.replace(/^YAML Parse error: /, "") : String(err);
    return { error: `invalid YAML in the frontmatter: ${reason}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: "the frontmatter must be a YAML mapping (`name: …`, `description: …`)" };
  }
  const parsed = FrontmatterSchema.safeParse(value);
  if (parsed.success) return { data: parsed.data };
  const field = String(parsed.error.issues[0]?.path[0] ?? "frontmatter");
  return { error: `${field}: expected ${EXPECTED[field] ?? "a valid value"}` };
}
