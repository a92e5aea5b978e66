import {
  type BuiltSystemPrompt,
  SystemPromptBuilder,
  type SystemPromptOptions,
} from "../context/system-prompt.ts";
import type { Skill } from "../skills/types.ts";

/**
 * A session's system prompt and skills: the builder (instruction files re-read only when they change),
 * the loaded skills, the one the user activated, and which instruction-file problems were already told.
 */
export class SessionPrompt {
  private readonly builder = new SystemPromptBuilder();
  /** Instruction-file problems already told, so a chat says each once. */
  private readonly told = new Set<string>();
  /** The skill activated with `--skill` or `/skill`: its instructions are last in the system prompt. */
  active: Skill | undefined;

  constructor(
    readonly skills: readonly Skill[],
    private readonly notice: (line: string) => void,
  ) {}

  /** Byte-identical between turns unless an input changed. */
  build(options: Omit<SystemPromptOptions, "skills" | "activeSkill">): BuiltSystemPrompt {
    const built = this.builder.build({ ...options, skills: this.skills, activeSkill: this.active });
    for (const diagnostic of built.diagnostics) {
      const line = `${diagnostic.severity}: ${diagnostic.path}: ${diagnostic.message}`;
      if (this.told.has(line)) continue;
      this.told.add(line);
      this.notice(line);
    }
    return built;
  }

  /** `--skill` / `/skill NAME`: throws IonError for an unknown or unavailable skill. */
  async activate(name: string): Promise<Skill> {
    const found = this.skills.find((skill) => skill.name === name);
    if (found?.available) {
      this.active = found;
      return found;
    }
    // resolveSkill says why (unknown, with suggestions; or unavailable, with the reason); it loads fuse.js.
    const { resolveSkill } = await import("../skills/resolve.ts");
    this.active = resolveSkill(this.skills, name, { available: true });
    return this.active;
  }

  /** Names of the skills the model can read. */
  available(): string[] {
    return this.skills.filter((skill) => skill.available).map((skill) => skill.name);
  }
}
