import type { Skill } from "./types.ts";

/**
 * The skills index of the system prompt: name + description of each available skill, in name order
 * (stable bytes for prompt caching), within about 2 % of the context window. What does not fit is
 * named without its description, and past that only counted; the `skill` tool reaches every skill.
 *
 *   skillsIndex(skills, {contextWindow?}) → SkillsIndex
 */

export interface SkillsIndex {
  listed: { name: string; description: string }[];
  /** Skills past the budget for descriptions, by name only. */
  namesOnly: string[];
  /** Skills past the budget even for their names. */
  unlisted: number;
}

/** The share of the window the index may take. */
export const SKILLS_INDEX_SHARE = 0.02;
/** When the model's window is unknown, budget as for a common 128k window. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

export function skillsIndex(
  skills: readonly Skill[],
  options: { contextWindow?: number | undefined } = {},
): SkillsIndex {
  const window = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  let budget = Math.floor(window * SKILLS_INDEX_SHARE) * 4; // chars, as tokens are chars/4
  const index: SkillsIndex = { listed: [], namesOnly: [], unlisted: 0 };
  // Name order whatever the caller's: the same skills must give the same bytes.
  const available = skills
    .filter((skill) => skill.available)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const skill of available) {
    // The description as one line: YAML block scalars and first lines may carry newlines.
    const description = skill.description.replace(/\s+/g, " ").trim();
    const full = skill.name.length + description.length + 5; // "- name: description\n"
    const short = skill.name.length + 2; // "name, "
    if (index.namesOnly.length === 0 && index.unlisted === 0 && full <= budget) {
      index.listed.push({ name: skill.name, description });
      budget -= full;
    } else if (index.unlisted === 0 && short <= budget) {
      index.namesOnly.push(skill.name);
      budget -= short;
    } else {
      index.unlisted++;
    }
  }
  return index;
}
