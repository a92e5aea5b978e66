import { bashTool } from "./bash.ts";
import { editFileTool } from "./edit-file.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { listFilesTool } from "./list-files.ts";
import { readFileTool } from "./read-file.ts";
import type { AgentTool } from "./types.ts";
import { writeFileTool } from "./write-file.ts";

/** The built-in tools, in the order the model sees them. */
export function builtinTools(): AgentTool[] {
  return [readFileTool, listFilesTool, globTool, grepTool, editFileTool, writeFileTool, bashTool];
}
