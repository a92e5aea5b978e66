import { z } from "zod";
import { MAX_PLAN_ITEMS, type PlanItem, planChecklist } from "../plan/plan.ts";
import { defineTool, ToolInputError } from "./define.ts";
import type { AgentTool } from "./types.ts";

/** Where the `plan` tool keeps the plan: the session's plan extension (plan/session-plan.ts). */
export interface PlanHolder {
  update(items: PlanItem[]): Promise<void>;
}

/**
 * The `plan` tool: the model writes its task list, whole, each time it changes. It changes only the
 * session's plan — nothing on disk beyond the session file, nothing outside — so it is read-only for
 * approval and never asks.
 */
export function planTool(plan: PlanHolder): AgentTool {
  return defineTool({
    name: "plan",
    description: [
      "Keep a short plan for a task of several steps: write the whole list each time it changes.",
      "Use it for work of three or more steps; skip it for a question or a one-step change.",
      `- items: at most ${MAX_PLAN_ITEMS}, in order; each has content (what to do) and status: pending, in_progress or completed.`,
      "- At most one item is in_progress: mark it before starting it, and completed only once the tool results show it is done.",
      "The plan is shown to the user and to you before each request.",
    ].join("\n"),
    schema: z.object({
      items: z
        .array(
          z.object({
            content: z.string().trim().min(1).max(500).describe("The step, in a few words"),
            status: z.enum(["pending", "in_progress", "completed"]),
          }),
        )
        .max(MAX_PLAN_ITEMS)
        .describe("The whole plan, in order"),
    }),
    readOnly: true,
    async execute({ items }) {
      const active = items.filter((item) => item.status === "in_progress");
      if (active.length > 1)
        throw new ToolInputError(
          `at most one item may be in_progress, got ${active.length} (${active.map((item) => `"${item.content}"`).join(", ")}): keep one in_progress and set the others to pending or completed`,
        );
      await plan.update(items);
      const done = items.filter((item) => item.status === "completed").length;
      return {
        content: items.length === 0 ? "Plan cleared." : `Plan updated (${done}/${items.length} completed).`,
        is_error: false,
        metadata: {
          title: items.length === 0 ? "plan cleared" : `plan: ${done}/${items.length} completed`,
          details: { items, checklist: planChecklist(items) },
        },
      };
    },
  });
}
