import designer from "./builtin/designer/SKILL.md" with { type: "text" };
import developer from "./builtin/developer/SKILL.md" with { type: "text" };
import refactor from "./builtin/refactor/SKILL.md" with { type: "text" };

/**
 * The skills embedded in ion (SPEC §9): the roles `developer` (implement), `designer` (plan an
 * architecture before code) and `refactor` (restructure without changing behaviour). Their files are
 * ordinary SKILL.md files, parsed like a user's; any skill of the same name in a skills directory
 * replaces them.
 */
export const BUILTIN_SKILLS: readonly { name: string; text: string }[] = [
  { name: "designer", text: designer },
  { name: "developer", text: developer },
  { name: "refactor", text: refactor },
];
