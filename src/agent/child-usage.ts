import type { Usage } from "../providers/types.ts";
import { addUsage, emptyUsage } from "../providers/types.ts";
import type { ChildModel } from "../tools/types.ts";
import { type ModelUsageEntry, modelUsageEntry, type RunResult } from "./events.ts";

/** Two costs added; unknown (null) when either is. */
function addCost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

function merged(a: ModelUsageEntry, b: ModelUsageEntry): ModelUsageEntry {
  return {
    ...a,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadInputTokens: a.cacheReadInputTokens + b.cacheReadInputTokens,
    cacheCreationInputTokens: a.cacheCreationInputTokens + b.cacheCreationInputTokens,
    webSearchRequests: a.webSearchRequests + b.webSearchRequests,
    costUSD: addCost(a.costUSD, b.costUSD),
  };
}

/**
 * What the child agents of one run (subagents run by its tool calls) reported spending: rolled into
 * the run's result — tokens into `usage`, cost into `total_cost_usd`, each child model into
 * `modelUsage` — and counted against `--max-budget-usd`.
 */
export class ChildSpending {
  private usage = emptyUsage();
  private cost: number | null = 0;
  private reported = false;
  /** By provider/model: each child model's spending. */
  private readonly models = new Map<string, { model: string; entry: ModelUsageEntry }>();

  report(usage: Usage, costUSD: number | null, model?: ChildModel): void {
    this.reported = true;
    this.usage = addUsage(this.usage, usage);
    this.cost = addCost(this.cost, costUSD);
    if (!model) return;
    const entry = modelUsageEntry(usage, costUSD, model);
    const key = `${model.provider}/${model.model}`;
    const known = this.models.get(key);
    this.models.set(key, { model: model.model, entry: known ? merged(known.entry, entry) : entry });
  }

  /** The run's own cost with its children's. */
  plus(own: number | null): number | null {
    return this.reported ? addCost(own, this.cost) : own;
  }

  /** The run's result with its children's spending added (the same object when they reported none). */
  addTo(result: RunResult): RunResult {
    if (!this.reported) return result;
    const modelUsage = { ...result.modelUsage };
    for (const [label, { model, entry }] of this.models) {
      // Keyed by model id as Claude Code does; one id served by two providers stays two entries.
      const key = (modelUsage[model]?.provider ?? entry.provider) === entry.provider ? model : label;
      const there = modelUsage[key];
      modelUsage[key] = there ? merged(there, entry) : entry;
    }
    return {
      ...result,
      usage: addUsage(result.usage, this.usage),
      total_cost_usd: addCost(result.total_cost_usd, this.cost),
      modelUsage,
    };
  }
}
