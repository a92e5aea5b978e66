import systemTemplate from "../../templates/system.eta" with { type: "text" };
import { systemTemplateBody } from "../context/precompile.ts" with { type: "macro" };
import { type PromptTemplate, renderTemplate } from "../context/template.ts";
import type { SkillsIndex } from "../skills/index-prompt.ts";
import { gitBranch } from "../util/git.ts";
import { localDay } from "../util/local-day.ts";

/**
 * The system prompt as a pure function of its input (SPEC §9): the same input gives the same bytes,
 * so providers' prompt caches hit turn after turn. Assembling the input — instruction files, skills,
 * the user's template — is `buildSystemPrompt` in src/context/system-prompt.ts.
 *
 *   renderSystemPrompt(input, template?) → string      template defaults to the embedded one
 *   environmentFacts(cwd, env?, now?)                  cwd, git branch, date (the day), OS, shell
 *   gitBranch(cwd)                                     re-exported from src/util/git.ts
 */

export { gitBranch };

export interface SystemPromptInput {
  cwd: string;
  /** `preamble` from config, or `--system` which replaces it. */
  preamble: string | undefined;
  tools: string[];
  /** ISO date (day precision) so the prompt stays byte-identical within a day for prompt caching. */
  date: string;
  os: string;
  shell: string;
  gitBranch?: string | undefined;
  /** Instruction files in prompt order (general first, closest to cwd last), each labelled with its path. */
  instructions?: readonly { path: string; scope: string; text: string }[];
  skills?: SkillsIndex | undefined;
  /** The skill the user activated: last in the prompt, closest to the conversation. */
  activeSkill?: { name: string; body: string; dir?: string | undefined } | undefined;
}

export const BUILTIN_TEMPLATE: PromptTemplate = {
  source: systemTemplate,
  path: "templates/system.eta (built-in)",
  compiled: systemTemplateBody(),
};

export function renderSystemPrompt(input: SystemPromptInput, template = BUILTIN_TEMPLATE): string {
  // Every optional field present, so a template can test `it.skills` without a ReferenceError.
  const data = {
    ...input,
    instructions: input.instructions ?? [],
    skills: input.skills,
    activeSkill: input.activeSkill,
  };
  return renderTemplate(template, data).trim();
}

export function environmentFacts(
  cwd: string,
  env: Record<string, string | undefined> = process.env,
  now: Date = new Date(),
) {
  return {
    cwd,
    gitBranch: gitBranch(cwd),
    // `YYYY-MM-DD` in local time: the user's today, and it changes once a day, not every request.
    date: localDay(now),
    os: `${process.platform} ${process.arch}`,
    shell: env.SHELL ?? (process.platform === "win32" ? "cmd.exe" : "sh"),
  };
}
