import { latestExtensionState } from "../history/extension-state.ts";
import { PLAN_EXTENSION, planChecklist, planFromData } from "../plan/plan.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import type { ChatContext } from "./context.ts";
import type { SlashCommand } from "./registry.ts";

/** `/plan`: the session's current plan as a checklist, as last saved by the `plan` tool. */
export const planCommand: SlashCommand<ChatContext> = {
  name: "plan",
  summary: "show the model's current plan",
  async run(_args, context) {
    const { session, style } = context;
    if (!session.saving) {
      context.print(style.dim("this session is not saved (--no-session): its plan is shown as it changes"));
      return;
    }
    const loaded = await session.load();
    const saved = loaded && latestExtensionState(loaded.entries, PLAN_EXTENSION);
    const items = saved ? (planFromData(saved.data) ?? []) : [];
    if (items.length === 0) {
      context.print(
        style.dim("no plan yet: the model makes one with the plan tool for work of several steps"),
      );
      return;
    }
    for (const line of planChecklist(items)) context.print(safeForTerminal(line));
  },
};
