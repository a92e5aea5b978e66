import type { Diagnostic } from "../context/diagnostics.ts";
import { parseFrontmatter, splitFrontmatter } from "./frontmatter.ts";
import type { Skill, SkillSource } from "./types.ts";

/**
 * One skill file → a skill, or diagnostics saying why not. Two forms:
 * - `<name>/SKILL.md` (Agent Skills): frontmatter with `name` (equal to the folder's name) and
 *   `description` is required.
 * - `<name>.md` (ion's short form): the file name is the name; the description is the frontmatter's,
 *   else the first non-empty line without its leading `#`s, cut to 200 characters.
 *
 *   parseSkill(text, origin) → { skill?: SkillDraft; diagnostics }
 */

/** Agent Skills: lowercase letters and digits in runs joined by single hyphens, at most 64 characters. */
const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1024;
export const MAX_FIRST_LINE_CHARS = 200;

/** A parsed skill before its `requires` are looked up on PATH. */
export type SkillDraft = Omit<Skill, "available" | "unavailable">;

export interface SkillOrigin {
  path: string;
  source: SkillSource;
  kind: "folder" | "file";
  /** The folder's name (SKILL.md) or the file name without `.md`. */
  name: string;
  /** The folder of a SKILL.md skill. */
  dir?: string;
}

export interface ParsedSkill {
  skill?: SkillDraft;
  diagnostics: Diagnostic[];
}

/** Why `name` is not a valid skill name, or undefined when it is. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return "is empty";
  if (name.length > MAX_NAME_CHARS) return `is longer than ${MAX_NAME_CHARS} characters`;
  if (!NAME_PATTERN.test(name))
    return "may hold only lowercase letters, digits and single hyphens, and not start or end with a hyphen";
  return undefined;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

export function parseSkill(text: string, origin: SkillOrigin): ParsedSkill {
  const diagnostics: Diagnostic[] = [];
  const error = (message: string): ParsedSkill => ({
    diagnostics: [...diagnostics, { path: origin.path, severity: "error", message }],
  });
  const warn = (message: string) => diagnostics.push({ path: origin.path, severity: "warning", message });

  const split = splitFrontmatter(text);
  if ("error" in split) return error(split.error);
  let front: { name?: string | undefined; description?: string | undefined; requires?: string[] | string } =
    {};
  if ("yaml" in split) {
    const parsed = parseFrontmatter(split.yaml);
    if ("error" in parsed) return error(parsed.error);
    front = parsed.data;
  } else if (origin.kind === "folder") {
    return error("SKILL.md needs YAML frontmatter between `---` lines with `name` and `description`");
  }
  const body = split.body.trim();

  let name = origin.name;
  if (origin.kind === "folder") {
    if (front.name === undefined)
      return error(`name: missing (it must be the folder's name, "${origin.name}")`);
    const problem = nameProblem(front.name);
    if (problem) return error(`name "${front.name}" ${problem}`);
    if (front.name !== origin.name)
      return error(`name "${front.name}" does not match its folder "${origin.name}"`);
    name = front.name;
  } else {
    const problem = nameProblem(origin.name);
    if (problem) return error(`the file name "${origin.name}" is not a skill name: it ${problem}`);
    if (front.name !== undefined && front.name !== origin.name)
      warn(
        `name "${front.name}" in the frontmatter differs from the file name; the skill is "${origin.name}"`,
      );
  }

  let description = front.description?.trim() ?? "";
  if (description === "" && front.description !== undefined) return error("description: is empty");
  if (description === "" && origin.kind === "folder") return error("description: missing");
  if (description.length > MAX_DESCRIPTION_CHARS) {
    // Lenient on purpose: real, widely shared skills exceed the limit (anthropics/skills' claude-api
    // has 1068 characters) and other agents load them. Refusing would make them vanish; the cut keeps
    // the skills index bounded, and the warning tells the author.
    warn(
      `description: ${description.length} characters, over the limit of ${MAX_DESCRIPTION_CHARS}; cut to ${MAX_DESCRIPTION_CHARS}`,
    );
    description = cut(description, MAX_DESCRIPTION_CHARS);
  }
  if (description === "") {
    const first = body.split("\n").find((line) => line.trim() !== "");
    if (first === undefined) return error("the file is empty");
    description = cut(first.replace(/^\s*#+\s*/, "").trim(), MAX_FIRST_LINE_CHARS);
  }
  if (body === "") warn("no instructions after the frontmatter");

  const requires = [front.requires ?? []]
    .flat()
    .flatMap((entry) => entry.split(/\s+/))
    .filter((bin) => bin !== "");
  const skill: SkillDraft = { name, description, body, source: origin.source, path: origin.path, requires };
  if (origin.dir !== undefined) skill.dir = origin.dir;
  return { skill, diagnostics };
}
