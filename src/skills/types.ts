/**
 * A skill: named instructions for one kind of work, listed (name + description) in the system prompt
 * and read in full when the user activates it or the model calls the `skill` tool.
 */

/** Where a skill came from; a project skill beats a user one, which beats a built-in, by name. */
export type SkillSource = "builtin" | "user" | "project";

export interface Skill {
  name: string;
  description: string;
  /** The instructions: the file without its frontmatter. */
  body: string;
  source: SkillSource;
  /** The file it was read from; `builtin:<name>` for one embedded in ion. */
  path: string;
  /** A `<name>/SKILL.md` skill's folder: files the body mentions (scripts/, references/) live there. */
  dir?: string;
  /** Programs it needs on PATH (frontmatter `requires`). */
  requires: string[];
  available: boolean;
  /** Why it is unavailable, e.g. "needs docker, jq (not on PATH)". */
  unavailable?: string;
}
