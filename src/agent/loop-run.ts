import type { Message, ProviderErrorKind, StopReason, ToolUseBlock, Usage } from "../providers/types.ts";
import { addUsage, emptyUsage } from "../providers/types.ts";
import { sandboxReport } from "../sandbox/types.ts";
import { currentTools } from "../tools/registry.ts";
import { overBudget } from "./budget.ts";
import { ChildSpending } from "./child-usage.ts";
import { runCompaction } from "./compact-run.ts";
import {
  type AgentEvent,
  buildResult,
  type CompactTrigger,
  type ErrorKind,
  modelUsageEntry,
  type PermissionDenial,
  type ResultSubtype,
  type RunResult,
} from "./events.ts";
import { type AgentDeps, type AgentInput, DEFAULT_COMPACT_THRESHOLD } from "./loop.ts";
import { runStep, type StepOutcome, textOf } from "./loop-step.ts";
import { contextEstimate } from "./tokens.ts";
import { runToolBatch } from "./tool-batch.ts";

/**
 * How a request can end after the provider took it: it may bill the tokens it read, but the stream
 * stopped before it said how many. A run with such a request has an unknown price, never a guessed $0.
 */
const CUT_SHORT: ReadonlySet<ProviderErrorKind> = new Set(["aborted", "idle_timeout", "stream_dropped"]);

function unmetered(step: StepOutcome): boolean {
  const { usage } = step;
  const tokens =
    usage.input_tokens +
    usage.output_tokens +
    usage.cache_read_input_tokens +
    usage.cache_creation_input_tokens;
  return step.error !== undefined && CUT_SHORT.has(step.error.kind) && tokens === 0;
}

/**
 * The state of one run of the agent loop and its steps: the view (a copy of the input's messages, then
 * what the loop adds), what was spent, and how it ended. `runAgent` drives it step by step.
 */
export class AgentRun {
  private readonly messages: Message[];
  private readonly denials: PermissionDenial[] = [];
  /** What child agents (run by tool calls) reported spending: part of the result and the budget. */
  private readonly children = new ChildSpending();
  private readonly errors: string[] = [];
  private usage = emptyUsage();
  /** A request was cut short before its usage arrived: what it cost is unknown. */
  private unmetered = false;
  private apiMs = 0;
  private turns = 0;
  private finalText = "";
  private lastStop: StopReason | null = null;
  private subtype: ResultSubtype = "success";
  private failure: { kind: ErrorKind; status: number | undefined } | undefined;
  /** Usage of the last completed request, and the view's length right after its answer was appended. */
  private lastUsage: Usage | undefined;
  private usageAt = 0;
  private readonly now: () => number;
  private readonly started: number;

  constructor(
    private readonly input: AgentInput,
    private readonly deps: AgentDeps,
  ) {
    this.messages = [...input.messages];
    this.now = deps.now ?? Date.now;
    this.started = this.now();
  }

  /** One model request and what follows from it; false once the run is over. */
  async *step(): AsyncGenerator<AgentEvent, boolean> {
    const { input } = this;
    if (input.signal.aborted) return this.end("error_interrupted", "interrupted");
    if (this.turns >= input.maxTurns)
      return this.end(
        "error_max_turns",
        `reached the limit of ${input.maxTurns} model requests (--max-turns)`,
      );
    // Only once the view holds an answer: a first prompt is never summarised before the model saw it
    // (if it alone overflows, the overflow path below handles it).
    if (this.compactionDue() && !(yield* this.compact("auto"))) return true; // interrupted: the check above ends the run
    this.turns++;
    let step = yield* this.request();
    // The prompt did not fit: compact once and retry the same request once (not a new turn); a second
    // overflow is an ordinary error.
    if (step.error?.kind === "context_overflow" && !input.signal.aborted && (yield* this.compact("overflow")))
      step = yield* this.request();
    const text = textOf(step.message);
    if (text) this.finalText = text;
    this.lastStop = step.error || input.signal.aborted ? null : step.stopReason;
    if (step.error || input.signal.aborted) {
      yield* this.failed(step);
      return false;
    }
    this.messages.push(step.message);
    this.lastUsage = step.usage;
    this.usageAt = this.messages.length;
    yield { type: "assistant", message: step.message, stop_reason: step.stopReason, usage: step.usage };
    const calls = step.message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
    if (calls.length === 0) return yield* this.stopped();
    // Checked only when another request would follow: an answer already given stays a success.
    const over = this.overBudget();
    // The calls are not run then: their results could never be sent.
    if (over) return this.end("error_max_budget_usd", over);
    const results = yield* runToolBatch(
      calls,
      input,
      this.deps,
      this.denials,
      step.parseErrors,
      this.children,
    );
    const resultMessage: Message = { role: "user", content: results };
    this.messages.push(resultMessage);
    yield { type: "tool_results", message: resultMessage };
    return true;
  }

  /** The model stopped: done, unless `beforeStop` sends it on with a user message. */
  private async *stopped(): AsyncGenerator<AgentEvent, boolean> {
    const more = await this.deps.beforeStop?.(this.finalText);
    if (more === undefined || this.input.signal.aborted) return false;
    const over = this.overBudget();
    if (over) return this.end("error_max_budget_usd", over);
    const nudge: Message = { role: "user", content: [{ type: "text", text: more }] };
    this.messages.push(nudge);
    yield { type: "user_message", message: nudge };
    return true;
  }

  /** A request that failed or was interrupted: what was said before is kept, with no stop reason. */
  private async *failed(step: StepOutcome): AsyncGenerator<AgentEvent, void> {
    if (step.message.content.length > 0) {
      this.messages.push(step.message);
      yield { type: "assistant", message: step.message, stop_reason: null, usage: step.usage };
    }
    if (this.input.signal.aborted || step.error?.kind === "aborted") {
      this.end("error_interrupted", "interrupted");
      return;
    }
    this.end("error_during_execution", step.error?.message ?? "the model request failed");
    // Machine-readable: the provider's kind and HTTP status, so a script need not parse the line.
    if (step.error) this.failure = { kind: step.error.kind, status: step.error.status };
  }

  private end(subtype: ResultSubtype, error: string): false {
    this.subtype = subtype;
    this.errors.push(error);
    return false;
  }

  private overBudget(): string | undefined {
    return overBudget(this.children.plus(this.input.price?.(this.usage) ?? null), this.input.maxBudgetUsd);
  }

  private estimate(): number {
    return contextEstimate(this.lastUsage, this.messages.slice(this.usageAt), {
      messages: this.messages,
      system: this.input.system,
      tools: currentTools(this.input.tools).map((t) => t.spec),
    });
  }

  private compactionDue(): boolean {
    const window = this.input.contextWindow;
    return (
      window !== undefined &&
      this.messages.some((m) => m.role === "assistant") &&
      this.estimate() >= (this.input.compactThreshold ?? DEFAULT_COMPACT_THRESHOLD) * window
    );
  }

  private async *request(): AsyncGenerator<AgentEvent, StepOutcome> {
    const started = this.now();
    const step = yield* runStep(this.input, this.messages, this.deps);
    this.apiMs += this.now() - started;
    this.usage = addUsage(this.usage, step.usage);
    if (unmetered(step)) this.unmetered = true;
    return step;
  }

  /**
   * Replaces the view with a summary + its newest part. Summary requests are not turns (num_turns
   * counts the loop's own requests), but they cost money: their usage and time are added to the run's.
   * An interrupted compaction is not applied (returns false): the run ends.
   */
  private async *compact(trigger: CompactTrigger): AsyncGenerator<AgentEvent, boolean> {
    // With no model reply yet there is nothing older to summarise: only the user's own request,
    // which must reach the model whole. An overflow then is reported as it is.
    if (!this.messages.some((m) => m.role === "assistant")) return false;
    const { input, deps } = this;
    const done = await runCompaction({
      messages: this.messages,
      system: input.system,
      tools: currentTools(input.tools).map((t) => t.spec),
      provider: input.provider,
      model: input.model,
      stream: deps.stream,
      signal: input.signal,
      window: input.contextWindow,
      trigger,
      tokensBefore: this.estimate(),
      beforeCompact: deps.beforeCompact,
      droppedContext: deps.droppedOnCompact,
      now: this.now,
      log: deps.log,
    });
    this.apiMs += done.apiMs;
    this.usage = addUsage(this.usage, done.usage);
    if (!done.boundary) return false;
    this.messages.splice(0, this.messages.length, ...done.messages);
    // The last request's usage measured the old view; until the next one, estimate the new view.
    this.lastUsage = undefined;
    this.usageAt = 0;
    yield done.boundary;
    return true;
  }

  result(): RunResult {
    const { input, usage } = this;
    const cost = input.price && !this.unmetered ? input.price(usage) : null;
    const own = buildResult({
      subtype: this.subtype,
      result: this.finalText,
      session_id: input.sessionId,
      provider: input.provider.id,
      model: input.model,
      num_turns: this.turns,
      duration_ms: this.now() - this.started,
      duration_api_ms: this.apiMs,
      usage,
      total_cost_usd: cost,
      permission_denials: this.denials,
      errors: this.errors,
      ...(this.failure ? { error_kind: this.failure.kind } : {}),
      ...(this.failure?.status !== undefined ? { api_error_status: this.failure.status } : {}),
      stop_reason: this.lastStop,
      modelUsage: {
        [input.model]: modelUsageEntry(usage, cost, {
          provider: input.provider.id,
          contextWindow: input.contextWindow,
          maxOutputTokens: input.maxOutputTokens,
        }),
      },
      ...(input.sandbox ? { sandbox: sandboxReport(input.sandbox.current) } : {}),
    });
    // What child agents spent, on top of the run's own (the same result when they reported nothing).
    return this.children.addTo(own);
  }
}
