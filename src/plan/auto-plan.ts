import type { UserBlock } from "../providers/types.ts";
import type { TaskRunner } from "../tools/task.ts";
import type { ToolContext } from "../tools/types.ts";
import { MAX_PLAN_ITEMS, type PlanItem } from "./plan.ts";

/**
 * `plan.auto`: a long user message goes to the designer subagent first (one extra, read-only child
 * run), and the plan it answers with becomes the session's plan before the main agent's first request.
 */

/** A message longer than this many characters is planned first. */
const AUTO_PLAN_MIN_CHARS = 100;

/** The message's text, when it is long enough to plan first; undefined otherwise. */
export function autoPlanText(content: readonly UserBlock[]): string | undefined {
  const text = content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
  return text.length > AUTO_PLAN_MIN_CHARS ? text : undefined;
}

function designerPrompt(text: string): string {
  return [
    "Work out a plan for the task below, which another agent will carry out: read what you need in the workspace first.",
    `Answer with the plan only: a list of at most ${MAX_PLAN_ITEMS} steps in order, one line each, starting with "- ".`,
    "",
    "The task:",
    text,
  ].join("\n");
}

/** The designer's answer's list lines ("- step", "* step", "1. step") as pending plan items. */
export function planFromAnswer(answer: string): PlanItem[] {
  const items: PlanItem[] = [];
  for (const line of answer.split("\n")) {
    const step = /^\s*(?:[-*•]|\d+[.)])\s+(?:\[[ x]\]\s+)?(.+?)\s*$/i.exec(line)?.[1];
    if (step && items.length < MAX_PLAN_ITEMS) items.push({ content: step.slice(0, 500), status: "pending" });
  }
  return items;
}

/**
 * Asks the designer for a plan of `text`: its list, or nothing when it failed or answered without
 * one (the main agent then works without a plan, as it would with plan.auto off).
 */
export async function designPlan(
  designer: TaskRunner,
  text: string,
  ctx: ToolContext,
  notice: (line: string) => void,
): Promise<PlanItem[]> {
  notice("plan.auto: the designer plans this first (one extra request)");
  const outcome = await designer.run(
    { description: "plan the task", prompt: designerPrompt(text), subagent_type: "designer" },
    ctx,
  );
  const items = outcome.is_error ? [] : planFromAnswer(outcome.content);
  if (items.length === 0)
    notice(
      `plan.auto: no plan from the designer${outcome.is_error ? `: ${outcome.content.split("\n")[0]}` : ""}`,
    );
  return items;
}
