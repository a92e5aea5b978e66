import Fuse from "fuse.js";
import { IonError } from "../errors.ts";
import type { Skill } from "./types.ts";

/**
 * Picking a skill by the name a user or model gave, with "did you mean" for a near miss (fuse.js).
 * Imported only where a name is looked up, so listing skills never loads fuse.js.
 *
 *   suggestSkillNames(names, query) → string[]              up to 3 close names, best first
 *   resolveSkill(skills, name, {available?}) → Skill        throws IonError("usage") naming the problem
 */

export function suggestSkillNames(names: readonly string[], query: string, limit = 3): string[] {
  return new Fuse([...names], { threshold: 0.4 })
    .search(query)
    .slice(0, limit)
    .map((result) => result.item);
}

/**
 * The skill called `name`. Unknown: a usage error with suggestions. With `available` (activation,
 * `--skill`, `/skill`), a skill whose programs are missing is refused with the reason.
 */
export function resolveSkill(
  skills: readonly Skill[],
  name: string,
  options: { available?: boolean } = {},
): Skill {
  const skill = skills.find((candidate) => candidate.name === name);
  if (!skill) {
    const close = suggestSkillNames(
      skills.map((candidate) => candidate.name),
      name,
    );
    const hint = close.length > 0 ? `did you mean ${close.join(", ")}? ` : "";
    throw new IonError("usage", `unknown skill "${name}"`, { hint: `${hint}\`ion skills\` lists them` });
  }
  if (options.available && !skill.available)
    throw new IonError("usage", `skill "${name}" is unavailable: ${skill.unavailable ?? "unknown reason"}`, {
      hint: "`ion skills` shows what each skill needs",
    });
  return skill;
}
