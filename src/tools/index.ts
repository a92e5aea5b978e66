import type { Skill } from "../skills/types.ts";
import type { PlanHolder } from "./plan.ts";
import { builtinToolEntries, planToolEntry, skillToolEntry, taskToolEntry } from "./specs.ts" with {
  type: "macro",
};
import type { ToolEntry } from "./specs.ts";
import type { TaskRunner } from "./task.ts";
import type { AgentTool } from "./types.ts";

/**
 * The tools a session offers. Their specs are data computed from the tools' zod schemas when ion is
 * built (specs.ts, a Bun macro); a tool's module — its zod schema, its code — is imported the first
 * time the model calls it. Offering tools thus costs a run nothing (it cost ~8 ms of zod: building
 * the schemas, converting them to JSON Schema).
 */

const BUILTIN: ToolEntry[] = builtinToolEntries();
const SKILL: ToolEntry = skillToolEntry();
const PLAN: ToolEntry = planToolEntry();
const TASK: ToolEntry = taskToolEntry();

const LOADERS: Record<string, () => Promise<AgentTool>> = {
  read_file: () => import("./read-file.ts").then((m) => m.readFileTool),
  list_files: () => import("./list-files.ts").then((m) => m.listFilesTool),
  glob: () => import("./glob.ts").then((m) => m.globTool),
  grep: () => import("./grep.ts").then((m) => m.grepTool),
  symbols: () => import("./symbols.ts").then((m) => m.symbolsTool),
  edit_file: () => import("./edit-file.ts").then((m) => m.editFileTool),
  write_file: () => import("./write-file.ts").then((m) => m.writeFileTool),
  bash: () => import("./bash.ts").then((m) => m.bashTool),
  web_fetch: () => import("./web-fetch.ts").then((m) => m.webFetchTool),
};

/** A tool whose module is imported on its first call. */
function lazyTool({ spec, readOnly }: ToolEntry, load: () => Promise<AgentTool>): AgentTool {
  let tool: Promise<AgentTool> | undefined;
  return {
    spec,
    readOnly,
    async execute(input, ctx) {
      tool ??= load();
      return (await tool).execute(input, ctx);
    },
  };
}

/**
 * Every name a built-in tool of ion may have, also those offered only in some sessions (`skill` with
 * skills, `plan` and `task` through their extensions): what `tools.disabled` may name besides MCP tools.
 */
export function knownToolNames(): string[] {
  return [...BUILTIN, SKILL, PLAN, TASK].map((entry) => entry.spec.name);
}

/** The built-in tools, in the order the model sees them. */
export function builtinTools(): AgentTool[] {
  return BUILTIN.map((entry) => {
    const load = LOADERS[entry.spec.name];
    if (!load) throw new Error(`no module for the built-in tool ${entry.spec.name}`);
    return lazyTool(entry, load);
  });
}

/** The `skill` tool over a session's skills (see skill.ts). */
export function skillTool(skills: readonly Skill[]): AgentTool {
  return lazyTool(SKILL, () => import("./skill.ts").then((m) => m.skillTool(skills)));
}

/** The `plan` tool over a session's plan (see plan.ts). */
export function planTool(plan: PlanHolder): AgentTool {
  return lazyTool(PLAN, () => import("./plan.ts").then((m) => m.planTool(plan)));
}

/** The `task` tool, its child agents run by `runner` (see task.ts). */
export function taskTool(runner: TaskRunner): AgentTool {
  return lazyTool(TASK, () => import("./task.ts").then((m) => m.taskTool(runner)));
}
