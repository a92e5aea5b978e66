import { join } from "node:path";
import {
  BUILTIN_TEMPLATE,
  environmentFacts,
  renderSystemPrompt,
  type SystemPromptInput,
} from "../agent/context.ts";
import { configDir, type Env } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { skillsIndex } from "../skills/index-prompt.ts";
import type { Skill } from "../skills/types.ts";
import type { Diagnostic } from "./diagnostics.ts";
import type { FileSystem } from "./file-cache.ts";
import { TextFileCache } from "./file-cache.ts";
import { type InstructionFile, InstructionLoader } from "./instructions.ts";
import type { PromptTemplate } from "./template.ts";

/**
 * Assembles the system prompt for one request (SPEC §9): base text, preamble, environment, tool
 * guidance, instruction files, skills index, active skill — from `templates/system.eta`, or the user's
 * `<config>/templates/system.eta` when there is one. A session keeps one builder and calls `build`
 * before every turn: files are stat'ed each time but read only when changed, and the text is
 * byte-identical until an input changes (the date is the day, not the time).
 *
 *   new SystemPromptBuilder({fs?})                     one per session (owns the file caches)
 *   builder.build(options) → BuiltSystemPrompt          throws IonError("config") for a broken template
 *   buildSystemPrompt(options, builder?)               the same through a process-wide builder
 *
 * The skills index is included only when the `skill` tool is among `tools`: without it the model
 * could not read a listed skill.
 */

export interface SystemPromptOptions {
  cwd: string;
  env?: Env;
  preamble: string | undefined;
  /** The names of the tools offered to the model, in order. */
  tools: readonly string[];
  /** The loaded skill set (`loadSkills(...).items`). */
  skills?: readonly Skill[];
  /** The skill the user activated (`--skill`, `/skill`); see `resolveSkill`. */
  activeSkill?: Skill | undefined;
  /** The model's context window in tokens, when known: the skills index takes about 2 % of it. */
  contextWindow?: number | undefined;
  now?: Date;
}

export interface BuiltSystemPrompt {
  text: string;
  /** What was rendered: for `/context` and tests. */
  input: SystemPromptInput;
  /** The template used: the user's file, or the built-in one. */
  template: PromptTemplate;
  instructions: InstructionFile[];
  /** Instruction files skipped or cut; the caller shows them (once per change, in a chat). */
  diagnostics: Diagnostic[];
}

export class SystemPromptBuilder {
  readonly instructions: InstructionLoader;
  readonly #files: TextFileCache;

  constructor(options: { fs?: FileSystem } = {}) {
    this.instructions = new InstructionLoader(options.fs);
    this.#files = new TextFileCache(options.fs);
  }

  build(options: SystemPromptOptions): BuiltSystemPrompt {
    const env = options.env ?? process.env;
    const template = this.template(env);
    const loaded = this.instructions.load({ cwd: options.cwd, env });
    const tools = [...options.tools];
    const input: SystemPromptInput = {
      ...environmentFacts(options.cwd, env, options.now),
      preamble: options.preamble,
      tools,
      instructions: loaded.items.map(({ path, scope, text }) => ({ path, scope, text })),
      skills: tools.includes("skill")
        ? skillsIndex(options.skills ?? [], { contextWindow: options.contextWindow })
        : undefined,
      activeSkill: options.activeSkill && {
        name: options.activeSkill.name,
        body: options.activeSkill.body,
        dir: options.activeSkill.dir,
      },
    };
    return {
      text: renderSystemPrompt(input, template),
      input,
      template,
      instructions: loaded.items,
      diagnostics: loaded.diagnostics,
    };
  }

  /** The user's template when present (re-read only when it changes), else the embedded one. */
  template(env: Env): PromptTemplate {
    const path = join(configDir(env), "templates", "system.eta");
    const file = this.#files.read(path);
    if (file.kind === "missing") return BUILTIN_TEMPLATE;
    if (file.kind === "error")
      throw new IonError("config", `cannot use the template ${path}: ${file.reason}`, {
        hint: "fix the file, or move it away to use the built-in template",
      });
    return { source: file.text, path };
  }
}

let shared: SystemPromptBuilder | undefined;

export function buildSystemPrompt(
  options: SystemPromptOptions,
  builder?: SystemPromptBuilder,
): BuiltSystemPrompt {
  if (builder) return builder.build(options);
  shared ??= new SystemPromptBuilder();
  return shared.build(options);
}
