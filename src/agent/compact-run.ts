import type { Message, ResolvedProvider, StreamFn, ToolSpec, Usage } from "../providers/types.ts";
import { boundaryEvent, compactMessages } from "./compact.ts";
import type { AgentEvent, CompactTrigger } from "./events.ts";

/**
 * One compaction of a conversation, whoever asked for it — the loop before a request (auto) or after a
 * context_overflow, `/compact` (manual): extensions may add a focus, the summary requests run, their
 * usage, time and price are measured, and the boundary is returned. An interrupted compaction has no
 * boundary: it is not applied, and the next request or turn compacts afresh rather than keeping a
 * fallback that dropped messages only because of the interrupt.
 */

export interface CompactionRequest {
  /** The view to compact; not mutated. */
  messages: readonly Message[];
  system: string;
  /** The tools sent with agent requests (counted in the estimates, never sent to the summariser). */
  tools: readonly ToolSpec[];
  provider: ResolvedProvider;
  model: string;
  stream: StreamFn;
  signal: AbortSignal;
  window: number | undefined;
  trigger: CompactTrigger;
  /** `/compact FOCUS`. */
  focus?: string | undefined;
  /** The caller's estimate of the view's size in tokens (default chars/4). */
  tokensBefore?: number | undefined;
  /** The `beforeCompact` seam: what extensions want the summary to focus on. */
  beforeCompact?: ((trigger: CompactTrigger) => Promise<string | undefined>) | undefined;
  price?: ((usage: Usage) => number | null) | undefined;
  now?: (() => number) | undefined;
  log?: ((line: string) => void) | undefined;
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
  const now = request.now ?? Date.now;
  const { trigger, signal } = request;
  const extra = await request.beforeCompact?.(trigger);
  const focus = [request.focus?.trim(), extra?.trim()].filter(Boolean).join("\n\n");
  const started = now();
  const compacted = await compactMessages({
    messages: request.messages,
    system: request.system,
    provider: request.provider,
    model: request.model,
    stream: request.stream,
    signal,
    window: request.window,
    trigger,
    tools: request.tools,
    ...(focus ? { focus } : {}),
    ...(request.tokensBefore !== undefined ? { tokensBefore: request.tokensBefore } : {}),
    ...(request.log ? { log: request.log } : {}),
  });
  return {
    boundary: signal.aborted ? undefined : boundaryEvent(trigger, compacted, request.messages),
    messages: compacted.messages,
    usage: compacted.usage,
    costUSD: request.price ? request.price(compacted.usage) : null,
    apiMs: now() - started,
  };
}
