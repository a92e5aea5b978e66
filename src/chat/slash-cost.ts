import { count } from "../util/numbers.ts";
import type { ChatContext } from "./context.ts";
import type { SlashCommand } from "./registry.ts";

/**
 * `/cost`: what this chat has spent (this process), and what its session has spent in all — every
 * run and chat turn saved in the session file, across resumes, as each priced itself then.
 */
export const costCommand: SlashCommand<ChatContext> = {
  name: "cost",
  summary: "tokens and cost of this chat and of its whole session",
  async run(_args, context) {
    const { session, style } = context;
    const { usage, pricedUSD, priced, unpriced, turns, apiMs } = session.totals;
    context.print(
      `this chat: ${turns} model request${turns === 1 ? "" : "s"} · in ${usage.input_tokens} (+${usage.cache_read_input_tokens} cache read, +${usage.cache_creation_input_tokens} cache write) · out ${usage.output_tokens} · ${dollars(pricedUSD, priced, unpriced)} · ${(apiMs / 1000).toFixed(1)}s waiting on the model`,
    );
    if (!session.saving) {
      context.print(style.dim("this session is not saved (--no-session): the chat is all of it"));
      return;
    }
    const loaded = await session.load();
    if (!loaded) {
      context.print(style.dim("this session has nothing saved yet"));
      return;
    }
    const { sessionCost } = await import("../history/cost.ts");
    const cost = sessionCost(loaded.entries);
    let input = 0;
    let output = 0;
    for (const entry of loaded.entries) {
      if (entry.type !== "run_end") continue;
      const u = entry.usage;
      input += u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
      output += u.output_tokens;
    }
    context.print(
      `this session: ${cost.runs} turn${cost.runs === 1 ? "" : "s"} · ${count(input)} in / ${count(output)} out tokens · ${dollars(cost.usd, cost.runs - cost.unpriced, cost.unpriced)}`,
    );
  },
};

/**
 * "$0.0912"; "$0.0500 + 1 turn without a price" (the model was not in the cached catalogue then, or a
 * request was cut short before its usage came); "cost unknown (2 turns without a price)" when no turn
 * had a price — never a $0 that was not measured.
 */
function dollars(usd: number, priced: number, unpriced: number): string {
  const known = `$${usd.toFixed(4)}`;
  if (unpriced === 0) return known;
  const without = `${unpriced} turn${unpriced === 1 ? "" : "s"} without a price`;
  return priced === 0 ? `cost unknown (${without})` : `${known} + ${without}`;
}
