import type { SessionEntry } from "./schema.ts";

/**
 * What a session has cost, summed over the `run_end` entries in its file: every run and chat turn
 * ends with one, carrying that run's price as it was known then (null when the model's prices were not).
 */
export interface SessionCost {
  /** The sum of the runs whose price was known. */
  usd: number;
  /** Runs whose price was unknown: `usd` is then a lower bound. */
  unpriced: number;
  runs: number;
}

export function sessionCost(entries: readonly SessionEntry[]): SessionCost {
  let usd = 0;
  let unpriced = 0;
  let runs = 0;
  for (const entry of entries) {
    if (entry.type !== "run_end") continue;
    runs++;
    if (entry.total_cost_usd === null) unpriced++;
    else usd += entry.total_cost_usd;
  }
  // Rounded as costOf rounds a run's price: no floating-point noise from the sum.
  return { usd: Math.round(usd * 1e9) / 1e9, unpriced, runs };
}

/** The total when every run was priced, else null (as `--json` reports an unknown cost). */
export function knownCost(cost: SessionCost): number | null {
  return cost.unpriced > 0 ? null : cost.usd;
}

/** "$0.0912"; "≥$0.0500" when some runs had no price; "unknown" when none had. */
export function costText(cost: SessionCost): string {
  const dollars = `$${cost.usd.toFixed(4)}`;
  if (cost.unpriced === 0) return dollars;
  return cost.unpriced === cost.runs ? "unknown" : `≥${dollars}`;
}
