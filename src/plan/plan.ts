/**
 * A session's plan: the short task list the model keeps with the `plan` tool. Plain data and text
 * only (no zod): the plan extension runs on every session, the tool's module loads on its first call.
 */

export type PlanStatus = "pending" | "in_progress" | "completed";

export interface PlanItem {
  content: string;
  status: PlanStatus;
}

/** The extension name its state is saved under (`extension_state` entries). */
export const PLAN_EXTENSION = "plan";

/** At most this many items: a plan is a short list, not a backlog. */
export const MAX_PLAN_ITEMS = 20;

const STATUSES: readonly string[] = ["pending", "in_progress", "completed"];

/** A saved plan read back; undefined when `data` is not one (a newer or damaged entry). */
export function planFromData(data: unknown): PlanItem[] | undefined {
  const items = (data as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return undefined;
  const plan: PlanItem[] = [];
  for (const item of items) {
    const { content, status } = (item ?? {}) as { content?: unknown; status?: unknown };
    if (typeof content !== "string" || typeof status !== "string" || !STATUSES.includes(status))
      return undefined;
    plan.push({ content, status: status as PlanStatus });
  }
  return plan;
}

const MARKS: Record<PlanStatus, string> = { pending: "☐", in_progress: "◐", completed: "☑" };

/** The plan as a checklist, one item a line: ☐ pending, ◐ in progress, ☑ completed. */
export function planChecklist(items: readonly PlanItem[]): string[] {
  return items.map((item) => `${MARKS[item.status]} ${item.content}`);
}

/**
 * A `plan` call's input in a few words for its tool line: `3 items, 1 completed, 1 in progress`, or
 * undefined when the input is not a list of items (the model sent something else).
 */
export function planCallSummary(input: Record<string, unknown>): string | undefined {
  const items: unknown = input.items;
  if (!Array.isArray(items)) return undefined;
  const count = (status: PlanStatus) =>
    items.filter((item: unknown) => (item as { status?: unknown } | null)?.status === status).length;
  const total = items.length;
  const parts = [total === 1 ? "1 item" : `${total} items`];
  const completed = count("completed");
  const active = count("in_progress");
  if (completed > 0) parts.push(`${completed} completed`);
  if (active > 0) parts.push(`${active} in progress`);
  return parts.join(", ");
}

/**
 * What the model is told before each request while it has a plan: the list, and — while an item is
 * in progress — to check the last tool results against it before calling it completed.
 */
export function planContext(items: readonly PlanItem[]): string | undefined {
  if (items.length === 0) return undefined;
  const lines = items.map((item) => `- [${item.status}] ${item.content}`);
  const current = items.find((item) => item.status === "in_progress");
  const text = [`<plan>\nYour current plan (update it with the plan tool as you work):`, ...lines, "</plan>"];
  if (current)
    text.push(
      `In progress: "${current.content}". Before marking it completed, check the last tool results against it: the output must show it is done (an exit code alone does not).`,
    );
  return text.join("\n");
}
