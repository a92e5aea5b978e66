import { z } from "zod";
import { suggestSkillNames } from "../skills/resolve.ts";
import type { Skill } from "../skills/types.ts";
import { defineTool, ToolInputError } from "./define.ts";
import type { AgentTool } from "./types.ts";

/**
 * The `skill` tool (SPEC §9): the model reads a skill's instructions by name. Read-only, so it runs
 * without approval. Built per session from that session's loaded skills:
 *
 *   skillTool(skills) → AgentTool
 */
export function skillTool(skills: readonly Skill[]): AgentTool {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  return defineTool({
    name: "skill",
    description: [
      "Read a skill: instructions for a particular kind of work, listed under Skills in the system prompt.",
      "Call it with the skill's name before starting a task the skill matches, then follow the instructions it returns.",
      "- name: the skill's name exactly as listed (lowercase, e.g. `developer`).",
      "Files a skill mentions (scripts/, references/) are relative to the folder named in the result; read or run them with the other tools.",
      "An unknown name returns the list of every available skill.",
    ].join("\n"),
    schema: z.object({
      name: z.string().min(1).describe("The skill's name, as listed under Skills"),
    }),
    readOnly: true,
    async execute({ name }) {
      const skill = byName.get(name.trim());
      const available = skills.filter((candidate) => candidate.available).map((candidate) => candidate.name);
      if (!skill) {
        const close = suggestSkillNames(available, name);
        const guess = close.length > 0 ? ` Did you mean ${close.join(", ")}?` : "";
        const list =
          available.length > 0 ? ` Available skills: ${available.join(", ")}.` : " No skills are available.";
        throw new ToolInputError(`unknown skill "${name}".${guess}${list}`);
      }
      if (!skill.available) throw new ToolInputError(`skill "${name}" is unavailable: ${skill.unavailable}`);
      const where = skill.dir ? ` dir="${skill.dir}"` : "";
      return `<skill name="${skill.name}"${where}>\n${skill.body}\n</skill>`;
    },
  });
}
