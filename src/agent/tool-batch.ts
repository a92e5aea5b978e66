import type { ToolResultBlock, ToolUseBlock } from "../providers/types.ts";
import type { AgentTool, ToolOutcome, ToolUpdate } from "../tools/types.ts";
import type { AgentEvent, PermissionDenial } from "./events.ts";
import type { AgentDeps, AgentInput } from "./loop.ts";
import { createAuthorizer } from "./permissions.ts";

type Decision =
  | { run: true; tool: AgentTool; input: Record<string, unknown> }
  | { run: false; outcome: ToolOutcome; denied: boolean };

const NOT_RUN: ToolOutcome = { content: "not run: the run was interrupted", is_error: true };

type ProgressEvent = Extract<AgentEvent, { type: "tool_progress" }>;

/**
 * Progress reported by running tools, handed to the event stream while the batch waits for them. Only
 * the latest report of each call is kept: a slow consumer sees the newest line, never a backlog.
 */
class ProgressQueue {
  private readonly pending = new Map<string, ProgressEvent>();
  /** Calls whose tool returned: a late report from one of them is not shown. */
  private readonly ended = new Set<string>();
  private wake: (() => void) | undefined;

  constructor(private readonly now: () => number) {}

  /** The `onUpdate` callback for one call's tool context. */
  reporter(call: ToolUseBlock, started: number): (update: ToolUpdate) => void {
    return (update) => {
      if (this.ended.has(call.id)) return;
      this.pending.delete(call.id);
      this.pending.set(call.id, {
        type: "tool_progress",
        id: call.id,
        name: call.name,
        elapsed_ms: this.now() - started,
        ...(update.output_tail === undefined ? {} : { output_tail: update.output_tail }),
      });
      this.wake?.();
    };
  }

  end(id: string): void {
    this.ended.add(id);
    this.pending.delete(id);
  }

  /** Yields progress while `work` runs, then returns its value (progress reported after it is dropped). */
  async *during<T>(work: Promise<T>): AsyncGenerator<AgentEvent, T> {
    // Only to know when it settled; its rejection is taken by the `await work` below.
    const settled = work.then(
      () => true,
      () => true,
    );
    for (;;) {
      // A report may come while the reader holds an event: take again until none is waiting.
      while (this.pending.size > 0) yield* this.take();
      const woken = new Promise<boolean>((resolve) => {
        this.wake = () => resolve(false);
      });
      const done = await Promise.race([settled, woken]);
      this.wake = undefined;
      if (done) break;
    }
    this.pending.clear();
    return await work;
  }

  private take(): ProgressEvent[] {
    const events = [...this.pending.values()];
    this.pending.clear();
    return events;
  }
}

async function decide(
  call: ToolUseBlock,
  input: AgentInput,
  deps: AgentDeps,
  parseError: string | undefined,
): Promise<Decision> {
  const tool = input.tools.find((t) => t.spec.name === call.name);
  if (!tool) {
    const known = input.tools.map((t) => t.spec.name).join(", ") || "none";
    return {
      run: false,
      denied: false,
      outcome: { content: `unknown tool "${call.name}" (available: ${known})`, is_error: true },
    };
  }
  if (parseError !== undefined) {
    // Running the tool with `{}` would answer with a misleading "missing argument" error.
    return {
      run: false,
      denied: false,
      outcome: { content: `invalid arguments for ${call.name}: ${parseError}`, is_error: true },
    };
  }
  const authorize = deps.authorize ?? createAuthorizer(() => input.permissionMode, deps.approve);
  const verdict = await authorize({
    id: call.id,
    name: call.name,
    input: call.input,
    readOnly: tool.readOnly,
  });
  if (verdict.allow) return { run: true, tool, input: verdict.input ?? call.input };
  return {
    run: false,
    denied: true,
    outcome: { content: verdict.reason, is_error: true, display: { denied: true } },
  };
}

async function execute(
  tool: AgentTool,
  call: ToolUseBlock,
  args: Record<string, unknown>,
  input: AgentInput,
  onUpdate: ((update: ToolUpdate) => void) | undefined,
): Promise<ToolOutcome> {
  try {
    return await tool.execute(args, {
      cwd: input.cwd,
      allow: input.workspaceAllow ?? [],
      signal: input.signal,
      ...(onUpdate ? { onUpdate } : {}),
    });
  } catch (err) {
    // A tool that throws is a bug in the tool, but the model still gets an answer it can act on.
    return {
      content: `tool ${call.name} failed: ${err instanceof Error ? err.message : String(err)}`,
      is_error: true,
    };
  }
}

/** Runs an allowed call, then lets the `afterTool` seam see (and possibly change) the outcome. */
async function settle(
  decision: Decision,
  call: ToolUseBlock,
  input: AgentInput,
  deps: AgentDeps,
  onUpdate?: (update: ToolUpdate) => void,
): Promise<ToolOutcome> {
  const outcome = decision.run
    ? await execute(decision.tool, call, decision.input, input, onUpdate)
    : decision.outcome;
  return deps.afterTool ? deps.afterTool(call, outcome) : outcome;
}

/**
 * Runs one step's tool calls: concurrently when every call is read-only, otherwise in order.
 * Returns results in call order with their call ids. Every call gets a `tool_start` and a `tool_end`,
 * and between them the `tool_progress` its tool reports while it runs.
 * `parseErrors` holds the calls whose arguments did not parse (by id): they are answered, not run.
 */
export async function* runToolBatch(
  calls: ToolUseBlock[],
  input: AgentInput,
  deps: AgentDeps,
  denials: PermissionDenial[],
  parseErrors: ReadonlyMap<string, string> = new Map(),
): AsyncGenerator<AgentEvent, ToolResultBlock[]> {
  const now = deps.now ?? Date.now;
  const results: ToolResultBlock[] = [];
  const allReadOnly = calls.every((c) => input.tools.find((t) => t.spec.name === c.name)?.readOnly === true);
  const progress = new ProgressQueue(now);

  const finish = (call: ToolUseBlock, outcome: ToolOutcome, durationMs: number): AgentEvent => {
    results.push({
      type: "tool_result",
      tool_use_id: call.id,
      content: outcome.content,
      is_error: outcome.is_error,
    });
    return {
      type: "tool_end",
      id: call.id,
      name: call.name,
      is_error: outcome.is_error,
      content: outcome.content,
      duration_ms: durationMs,
      ...(outcome.display ? { display: outcome.display } : {}),
    };
  };

  if (allReadOnly) {
    for (const call of calls) yield { type: "tool_start", id: call.id, name: call.name, input: call.input };
    const outcomes = yield* progress.during(
      Promise.all(
        calls.map(async (call) => {
          const started = now();
          if (input.signal.aborted) return { outcome: NOT_RUN, durationMs: 0 };
          const decision = await decide(call, input, deps, parseErrors.get(call.id));
          if (!decision.run && decision.denied)
            denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: call.input });
          const outcome = await settle(decision, call, input, deps, progress.reporter(call, started));
          progress.end(call.id);
          return { outcome, durationMs: now() - started };
        }),
      ),
    );
    for (const [i, call] of calls.entries())
      yield finish(call, outcomes[i]!.outcome, outcomes[i]!.durationMs);
    return results;
  }

  for (const call of calls) {
    if (input.signal.aborted) {
      yield { type: "tool_start", id: call.id, name: call.name, input: call.input };
      yield finish(call, NOT_RUN, 0);
      continue;
    }
    const decision = await decide(call, input, deps, parseErrors.get(call.id));
    if (!decision.run && decision.denied)
      denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: call.input });
    yield { type: "tool_start", id: call.id, name: call.name, input: call.input };
    // Timed from after the approval question: the duration is the tool's, not the user's.
    const started = now();
    const outcome = yield* progress.during(
      settle(decision, call, input, deps, progress.reporter(call, started)),
    );
    progress.end(call.id);
    yield finish(call, outcome, now() - started);
  }
  return results;
}
