import { z } from "zod";
import { defineTool } from "./define.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "./types.ts";

/** The kinds of child agent `task` can start (see subagents/types.ts for what each may use). */
export const SUBAGENT_TYPES = ["explorer", "designer", "reviewer", "researcher", "general"] as const;
export type SubagentType = (typeof SUBAGENT_TYPES)[number];

/** A `task` call, validated. */
export interface TaskRequest {
  description: string;
  prompt: string;
  /**
   * A built-in type (SUBAGENT_TYPES) or a custom agent's name (subagents/custom-agents.ts); none: a
   * resumed child's saved type, else explorer.
   */
  subagent_type?: string | undefined;
  /** The id a previous `task` result named: continue that child's conversation. */
  resume?: string | undefined;
}

/** Who runs the child agents of a session: the session's subagents extension (subagents/session-subagents.ts). */
export interface TaskRunner {
  run(request: TaskRequest, ctx: ToolContext): Promise<ToolOutcome>;
}

/**
 * The `task` tool: hands a piece of work to a child agent with a context of its own and returns its
 * final answer. Read-only for approval: what the child does is decided call by call by the child's
 * own tools and the parent's approval rules.
 */
export function taskTool(runner: TaskRunner): AgentTool {
  return defineTool({
    name: "task",
    description: [
      "Hand a self-contained piece of work to a subagent with a fresh context of its own; you get its final answer.",
      "Use it for searches and analyses whose intermediate output you do not need, to keep your own context small.",
      "- subagent_type: explorer (default; read-only: find and read code), designer (read-only: work out a plan),",
      "  reviewer (read tools and bash: build, test, analyse; no file edits), researcher (read tools and web_fetch:",
      "  look things up on the web), general (your own tools).",
      "  The user may define custom agents; a type that does not exist gets the list of all types.",
      "- prompt: everything the subagent needs to know; it does not see your conversation.",
      "- resume: the task id a previous result named, to continue that subagent's conversation (it keeps its type).",
    ].join("\n"),
    schema: z.object({
      description: z.string().trim().min(1).max(200).describe("A few words naming the task"),
      prompt: z.string().trim().min(1).describe("The task, in full"),
      subagent_type: z
        .string()
        .trim()
        .min(1)
        .optional()
        .describe("The kind of subagent: a built-in type or a custom agent's name (default explorer)"),
      resume: z.string().trim().min(1).optional().describe("A task id to continue"),
    }),
    readOnly: true,
    async execute(input, ctx) {
      return runner.run(input, ctx);
    },
  });
}
