/**
 * The built-in subagent types: what each is for and which of the parent's tools it gets. Plain data
 * (no tool or agent modules): the child run and `ion agents show` read the same table.
 */
import type { SubagentType } from "../tools/task.ts";

/** The tools a file reader needs: every read-only type gets them. */
export const READ_TOOLS: readonly string[] = ["read_file", "list_files", "glob", "grep", "symbols"];

export interface BuiltinType {
  /** What it is for, as its system prompt tells it. */
  role: string;
  /** The parent's tools it gets beyond READ_TOOLS; "all": every tool of the parent's but `task`. */
  tools: readonly string[] | "all";
}

export const BUILTIN_TYPES: Record<SubagentType, BuiltinType> = {
  explorer: { role: "find and read what the task asks about; you cannot change files", tools: [] },
  designer: { role: "work out a plan for the task; you cannot change files", tools: [] },
  reviewer: { role: "review, build, test and analyse as the task asks; do not edit files", tools: ["bash"] },
  researcher: {
    role: "look up what the task asks about, in the files and on the web; you cannot change files",
    tools: ["web_fetch"],
  },
  general: { role: "carry out the task", tools: "all" },
};

/** Whether a child of a built-in `type` may use the parent's tool `name` (never `task`). */
export function builtinAllows(type: SubagentType, name: string): boolean {
  if (name === "task") return false;
  const { tools } = BUILTIN_TYPES[type];
  return tools === "all" || READ_TOOLS.includes(name) || tools.includes(name);
}
