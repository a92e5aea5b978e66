/**
 * Wording shared by the terminal front ends (the chat and `run -o text`), so both say a thing the
 * same way: a run's cost, the note for each retry of a request, and what memory recalled.
 */
import type { AgentEvent } from "../agent/events.ts";
import { counted } from "../util/numbers.ts";
import { safeForTerminal } from "../util/terminal-text.ts";

type Retry = Extract<AgentEvent, { type: "api_retry" }>;

/** `$0.0042`, or `cost unknown` when the model has no price. */
export function costText(usd: number | null): string {
  return usd === null ? "cost unknown" : `$${usd.toFixed(4)}`;
}

/** `memory: 3 memories recalled (212 tokens)` */
export function memoryRecallLine(event: Extract<AgentEvent, { type: "memory_recall" }>): string {
  const memories = event.count === 1 ? "1 memory" : `${event.count} memories`;
  return `memory: ${memories} recalled (${counted(event.tokens, "token")})`;
}

/**
 * One note per retry. The server's message (often several lines) is said once, with the first retry;
 * the retries after it for the same message only count: `retry 2/3 in 4.0s`.
 */
export class RetryNotes {
  private said: string | undefined;

  line(event: Retry): string {
    const message = safeForTerminal(event.error.message);
    const wait = `${(event.delay_ms / 1000).toFixed(1)}s`;
    if (event.attempt > 1 && message === this.said)
      return `retry ${event.attempt}/${event.max_retries} in ${wait}`;
    this.said = message;
    return `retrying in ${wait} (${event.attempt}/${event.max_retries}): ${message}`;
  }
}
