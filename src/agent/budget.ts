/**
 * `--max-budget-usd N` (Claude Code's name): the run stops once what it has spent passes N, checked
 * after each model request with the session's prices. Without prices the limit could not be kept,
 * so the flag is refused before any request rather than silently ignored.
 */
import { IonError } from "../errors.ts";
import type { Usage } from "../providers/types.ts";
import { emptyUsage } from "../providers/types.ts";

export function parseBudget(value: string): number {
  // Plain decimals only: Number() would also take "0x10", "1e3", "Infinity" and "" (as 0).
  const n = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0)
    throw new IonError("usage", `--max-budget-usd must be a positive number of US dollars, got "${value}"`);
  return n;
}

/** Refuses a budget the session cannot keep: the model's prices are unknown. */
export function checkBudgetPriced(price: (usage: Usage) => number | null, label: string): void {
  if (price(emptyUsage()) === null)
    throw new IonError("usage", `--max-budget-usd needs the price of ${label}, which is not known`, {
      hint: "`ion models --refresh` fetches prices; or run without --max-budget-usd",
    });
}

/** The error line when `spent` has passed the budget; undefined while within it (or without one). */
export function overBudget(spent: number | null, max: number | undefined): string | undefined {
  if (max === undefined || spent === null || spent <= max) return undefined;
  return `spent $${spent.toFixed(4)}, over the --max-budget-usd limit of $${max}; stopped before the next request`;
}
