import type { SessionExtension, SessionStartInfo, TurnStartInfo } from "../agent/session-extension.ts";
import { planTool } from "../tools/index.ts";
import type { TaskRunner } from "../tools/task.ts";
import type { AgentTool } from "../tools/types.ts";
import { PLAN_EXTENSION, type PlanItem, planContext, planFromData } from "./plan.ts";

/**
 * The plan as a session extension: it holds the current plan, saves it (an `extension_state` entry)
 * whenever the `plan` tool changes it, restores it when a session is resumed, and puts it into the
 * context after the conversation before each request — never into the system prompt, and nothing at
 * all while there is no plan. Compaction leaves it alone: it is not part of the conversation.
 * With config `plan.auto`, a long user message is planned by the `designer` before the turn's first request.
 */
export class SessionPlan implements SessionExtension {
  readonly name = PLAN_EXTENSION;
  private current: PlanItem[] = [];
  private save: SessionStartInfo["saveState"];

  constructor(private readonly designer?: TaskRunner) {}

  /** The current plan (empty: none yet). */
  get items(): readonly PlanItem[] {
    return this.current;
  }

  /** The `plan` tool over this plan (its module is imported on the first call). */
  tools(): AgentTool[] {
    return [planTool(this)];
  }

  async sessionStart(info: SessionStartInfo): Promise<void> {
    this.save = info.saveState;
    const saved = info.resumed ? info.latestState?.(PLAN_EXTENSION) : undefined;
    this.current = (saved !== undefined && planFromData(saved)) || [];
  }

  /** Replaces the plan and saves it before the tool call returns (so it survives the process being killed). */
  async update(items: PlanItem[]): Promise<void> {
    this.current = items;
    await this.save?.(PLAN_EXTENSION, { items });
  }

  async beforeTurn({ content, config, ctx, notice }: TurnStartInfo): Promise<void> {
    if (!this.designer || config.plan?.auto !== true) return;
    const { autoPlanText, designPlan } = await import("./auto-plan.ts");
    const text = autoPlanText(content);
    if (text === undefined) return;
    const items = await designPlan(this.designer, text, ctx, notice);
    if (items.length > 0) await this.update(items);
  }

  async requestContext(): Promise<string | undefined> {
    return planContext(this.current);
  }
}
