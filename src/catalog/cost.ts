import type { Usage } from "../providers/types.ts";
import type { ModelInfo } from "./catalog.ts";

/**
 * The cost in USD of `usage` at the model's prices ($ per 1M tokens). Input, output, cache reads and
 * cache writes are priced separately (`input_tokens` excludes cached tokens, as `Usage` defines).
 * A kind of token with a count of zero needs no price; a kind with tokens and no known price makes the
 * whole cost unknown (null), as does an unknown model: never 0 by guess. Tiered prices (models.dev's
 * `context_over_200k`) are not applied.
 *
 * The sum is rounded to 1e-9 USD (a nano-dollar), which removes floating-point noise such as
 * 0.30000000000000004 while keeping far more precision than any price has.
 */
export function costOf(usage: Usage, model: ModelInfo | undefined): number | null {
  if (!model) return null;
  const parts: [number, number | null][] = [
    [usage.input_tokens, model.input_cost],
    [usage.output_tokens, model.output_cost],
    [usage.cache_read_input_tokens, model.cache_read_cost],
    [usage.cache_creation_input_tokens, model.cache_write_cost],
  ];
  let micro = 0;
  for (const [tokens, price] of parts) {
    if (tokens === 0) continue;
    if (price === null) return null;
    micro += tokens * price;
  }
  return Math.round((micro / 1e6) * 1e9) / 1e9;
}
