import designer from "./builtin/designer/SKILL.md" with { type: "text" };
import developer from "./builtin/developer/SKILL.md" with { type: "text" };
import refactor from "./builtin/refactor/SKILL.md" with { type: "text" };
import { type ParsedSkill, parseSkill } from "./parse.ts";

/**
 * The skills embedded in ion (SPEC §9): the roles `developer` (implement), `designer` (plan an
 * architecture before code) and `refactor` (restructure without changing behaviour). Their files are
 * ordinary SKILL.md files, parsed like a user's; any skill of the same name in a skills directory
 * replaces them.
 *
 * load.ts imports `parsedBuiltinSkills` as a Bun macro (`with { type: "macro" }`): the files are
 * parsed when ion is built, so a run does not parse their YAML and check it with zod every time.
 */
export const BUILTIN_SKILLS: readonly { name: string; text: string }[] = [
  { name: "designer", text: designer },
  { name: "developer", text: developer },
  { name: "refactor", text: refactor },
];

/** The built-in skills parsed as any skill file is (parse.ts), in BUILTIN_SKILLS' order. */
export function parsedBuiltinSkills(): ParsedSkill[] {
  return BUILTIN_SKILLS.map(({ name, text }) =>
    parseSkill(text, { path: `builtin:${name}`, source: "builtin", kind: "folder", name }),
  );
}
