import type { ToolSpec } from "../providers/types.ts";
import { bashTool } from "./bash.ts";
import { editFileTool } from "./edit-file.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { listFilesTool } from "./list-files.ts";
import { planTool } from "./plan.ts";
import { readFileTool } from "./read-file.ts";
import { skillTool } from "./skill.ts";
import { symbolsTool } from "./symbols.ts";
import { taskTool } from "./task.ts";
import type { AgentTool } from "./types.ts";
import { webFetchTool } from "./web-fetch.ts";
import { writeFileTool } from "./write-file.ts";

/**
 * What the model is told about each tool — name, description, the JSON Schema of its zod schema —
 * and whether it only reads. index.ts imports these functions as a Bun macro
 * (`with { type: "macro" }`): they run when ion is built (or when Bun loads index.ts from source),
 * and their results are inlined as data, so a run offers the tools without importing zod or any
 * tool's code until the model calls one. The zod schemas stay the one source of truth.
 */

export interface ToolEntry {
  spec: ToolSpec;
  readOnly: boolean;
}

function entry(tool: AgentTool): ToolEntry {
  const { name, description, input_schema } = tool.spec;
  // Inlined as data at build time: a per-call rule (a function) could not be.
  if (typeof tool.readOnly !== "boolean")
    throw new Error(`built-in tool ${name}: readOnly must be a boolean`);
  return { spec: { name, description, input_schema }, readOnly: tool.readOnly };
}

/** The built-in tools, in the order the model sees them. */
export function builtinToolEntries(): ToolEntry[] {
  return [
    readFileTool,
    listFilesTool,
    globTool,
    grepTool,
    symbolsTool,
    editFileTool,
    writeFileTool,
    bashTool,
    webFetchTool,
  ].map(entry);
}

/** The `skill` tool (its spec does not depend on the skills it serves). */
export function skillToolEntry(): ToolEntry {
  return entry(skillTool([]));
}

/** The `plan` tool (its spec does not depend on the plan it keeps). */
export function planToolEntry(): ToolEntry {
  return entry(planTool({ update: async () => undefined }));
}

/** The `task` tool (its spec does not depend on who runs the child agents). */
export function taskToolEntry(): ToolEntry {
  return entry(taskTool({ run: async () => ({ content: "", is_error: false }) }));
}
