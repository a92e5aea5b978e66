import type { ToolUseBlock } from "../providers/types.ts";
import type { ChildEvent, ToolUpdate } from "../tools/types.ts";
import type { AgentEvent } from "./events.ts";

type ProgressEvent = Extract<AgentEvent, { type: "tool_progress" }>;

/**
 * What running tools report while the batch waits for them, handed to the event stream as it comes:
 * progress (only the latest report of each call is kept: a slow consumer sees the newest line, never
 * a backlog) and the events of child agents (every one, in order, marked with their parent call).
 */
export class CallEvents {
  private readonly progress = new Map<string, ProgressEvent>();
  private readonly children: AgentEvent[] = [];
  /** Calls whose tool returned: a late report from one of them is not shown. */
  private readonly ended = new Set<string>();
  private wake: (() => void) | undefined;

  constructor(private readonly now: () => number) {}

  /** The `onUpdate` callback for one call's tool context. */
  reporter(call: ToolUseBlock, started: number): (update: ToolUpdate) => void {
    return (update) => {
      if (this.ended.has(call.id)) return;
      this.coalesce(call.id, {
        type: "tool_progress",
        id: call.id,
        name: call.name,
        elapsed_ms: this.now() - started,
        ...(update.output_tail === undefined ? {} : { output_tail: update.output_tail }),
      });
    };
  }

  /** The `emit` callback for one call's tool context: a child's events, marked with this call's id. */
  emitter(call: ToolUseBlock): (event: ChildEvent) => void {
    return (event) => {
      if (this.ended.has(call.id)) return;
      // A grandchild's event, passed on by its parent, keeps the parent it names.
      const marked = { ...event, parent_tool_use_id: event.parent_tool_use_id ?? call.id };
      // A child's own progress lines are coalesced like the call's (keyed by the child's call id).
      if (marked.type === "tool_progress") return this.coalesce(`${call.id}/${marked.id}`, marked);
      if (marked.type === "tool_end") this.progress.delete(`${call.id}/${marked.id}`);
      this.children.push(marked);
      this.wake?.();
    };
  }

  end(id: string): void {
    this.ended.add(id);
    this.progress.delete(id);
  }

  /**
   * Yields what is reported while `work` runs, then returns its value. A child's events reported up
   * to the end are all yielded; progress reported after it is dropped.
   */
  async *during<T>(work: Promise<T>): AsyncGenerator<AgentEvent, T> {
    // Only to know when it settled; its rejection is taken by the `await work` below.
    const settled = work.then(
      () => true,
      () => true,
    );
    for (;;) {
      // A report may come while the reader holds an event: take again until none is waiting.
      while (this.waiting()) yield* this.take();
      const woken = new Promise<boolean>((resolve) => {
        this.wake = () => resolve(false);
      });
      const done = await Promise.race([settled, woken]);
      this.wake = undefined;
      if (done) break;
    }
    this.progress.clear();
    yield* this.children.splice(0);
    return await work;
  }

  private coalesce(key: string, event: ProgressEvent): void {
    this.progress.delete(key);
    this.progress.set(key, event);
    this.wake?.();
  }

  private waiting(): boolean {
    return this.children.length > 0 || this.progress.size > 0;
  }

  private take(): AgentEvent[] {
    const events = [...this.children.splice(0), ...this.progress.values()];
    this.progress.clear();
    return events;
  }
}
