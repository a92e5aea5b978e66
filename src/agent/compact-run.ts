import type { Message, ToolSpec, Usage } from "../providers/types.ts";
import { boundaryEvent, type CompactInput, compactMessages } from "./compact.ts";
import type { AgentEvent, CompactTrigger } from "./events.ts";

/**
 * One compaction of a conversation, whoever asked for it — the loop before a request (auto) or after a
 * context_overflow, `/compact` (manual): extensions may add a focus, the summary requests run, their
 * usage, time and price are measured, and the boundary is returned. An interrupted compaction has no
 * boundary: it is not applied, and the next request or turn compacts afresh rather than keeping a
 * fallback that dropped messages only because of the interrupt.
 */

/** What `compactMessages` needs, and the seams around it: the extensions' focus, the price, the clock. */
export interface CompactionRequest extends CompactInput {
  /** The tools sent with agent requests (counted in the estimates, never sent to the summariser). */
  tools: readonly ToolSpec[];
  /** The `beforeCompact` seam: what extensions want the summary to focus on. */
  beforeCompact?: ((trigger: CompactTrigger) => Promise<string | undefined>) | undefined;
  price?: ((usage: Usage) => number | null) | undefined;
  now?: (() => number) | undefined;
}

export interface Compaction {
  /** The event to record and show; undefined when the compaction was interrupted (not applied). */
  boundary: Extract<AgentEvent, { type: "compact_boundary" }> | undefined;
  /** The new view: the summary, then the kept messages. */
  messages: Message[];
  /** Of the summary requests: counted whether or not the compaction was applied (they cost money). */
  usage: Usage;
  costUSD: number | null;
  apiMs: number;
}

export async function runCompaction(request: CompactionRequest): Promise<Compaction> {
  const { beforeCompact, price, now = Date.now, focus: asked, ...input } = request;
  const extra = await beforeCompact?.(input.trigger);
  const focus = [asked?.trim(), extra?.trim()].filter(Boolean).join("\n\n");
  const started = now();
  const compacted = await compactMessages({ ...input, ...(focus ? { focus } : {}) });
  return {
    boundary: input.signal.aborted ? undefined : boundaryEvent(input.trigger, compacted, input.messages),
    messages: compacted.messages,
    usage: compacted.usage,
    costUSD: price ? price(compacted.usage) : null,
    apiMs: now() - started,
  };
}
