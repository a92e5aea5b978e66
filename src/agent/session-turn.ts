import type { Config } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import { streamProvider } from "../providers/index.ts";
import type { Message, ThinkingLevel, Usage, UserBlock } from "../providers/types.ts";
import type { CommandSandbox } from "../sandbox/command-sandbox.ts";
import type { AgentTool, ChildEvent } from "../tools/types.ts";
import { ChildSpending } from "./child-usage.ts";
import { type CompactionRequest, runCompaction } from "./compact-run.ts";
import type { Conversation } from "./conversation.ts";
import { type AgentEvent, failedResult, type RunResult } from "./events.ts";
import { ModelFallback } from "./fallback.ts";
import { type AgentDeps, type AgentInput, DEFAULT_COMPACT_THRESHOLD, runAgent } from "./loop.ts";
import type { PermissionMode } from "./permissions.ts";
import type { SessionSeams } from "./session-extension.ts";
import { addToTotals, type SessionOptions, type SessionTotals } from "./session-options.ts";
import { type ModelTarget, saveError } from "./session-setup.ts";
import { SchemaCheck, schemaInstructions } from "./structured-output.ts";

/**
 * One turn of an agent session, once its prompt is saved: the loop's input and seams built from the
 * session's state, the events saved as they pass, and the result finished (fallback, schema check).
 */

/** The session's state a turn is built from. */
export interface TurnSetup {
  sessionId: string;
  options: SessionOptions;
  config: Config;
  target: ModelTarget;
  fallbackTarget: ModelTarget | undefined;
  system: string;
  /** Asked before every request: the registry can change during the turn. */
  tools: () => AgentTool[];
  /** A deferred tool the model calls by name. */
  callable: (name: string) => AgentTool | undefined;
  mcpServers: { name: string; status: string }[];
  skills: string[];
  /** Read per call: a chat can change the mode while the turn runs. */
  mode: () => PermissionMode;
  thinking: ThinkingLevel;
  messages: Message[];
  seams: SessionSeams;
  /** The turn's prompt (for the extensions' work before its first request). */
  prompt?: readonly UserBlock[];
  /** What the extensions tell the front ends about the turn's context: passed on right after its init. */
  contextEvents?: readonly AgentEvent[];
  /** Where `bash` commands run. */
  sandbox?: CommandSandbox;
  /** The environment commands get (tools/command-env.ts). */
  commandEnv?: Record<string, string>;
}

export interface TurnPlan {
  input: AgentInput;
  deps: AgentDeps;
  /** The loop's result as the session reports it: after a fallback, and checked against --json-schema. */
  finish(result: RunResult): RunResult;
}

function planTurn(setup: TurnSetup, signal: AbortSignal): TurnPlan {
  const { options, config, target, seams } = setup;
  const { outputSchema } = options;
  const schemaCheck = outputSchema ? new SchemaCheck(outputSchema) : undefined;
  const fallback = setup.fallbackTarget
    ? new ModelFallback(target, setup.fallbackTarget, streamProvider, options.notice)
    : undefined;
  const mode = setup.mode();
  const input: AgentInput = {
    sessionId: setup.sessionId,
    cwd: options.cwd,
    provider: target.provider,
    model: target.model,
    system: outputSchema ? `${setup.system}\n\n${schemaInstructions(outputSchema)}` : setup.system,
    messages: setup.messages,
    contextWindow: target.facts.contextWindow,
    price: fallback?.price ?? target.facts.price,
    maxOutputTokens: target.facts.maxOutput,
    maxBudgetUsd: options.maxBudgetUsd,
    responseSchema: outputSchema && { name: outputSchema.name, schema: outputSchema.schema },
    compactThreshold: config.history?.compact_threshold ?? DEFAULT_COMPACT_THRESHOLD,
    thinking: setup.thinking,
    ...(target.facts.capabilities ? { modelInfo: target.facts.capabilities } : {}),
    tools: setup.tools,
    callable: setup.callable,
    mcpServers: setup.mcpServers,
    permissionMode: mode,
    workspaceAllow: [...(config.workspace?.allow ?? []), ...(options.addDirs ?? [])],
    ...(setup.sandbox ? { sandbox: setup.sandbox } : {}),
    ...(setup.commandEnv ? { commandEnv: setup.commandEnv } : {}),
    maxTurns: options.maxTurns,
    signal,
    skills: setup.skills,
    acceptEdits: options.acceptEdits === true && mode === "ask",
  };
  const deps: AgentDeps = {
    stream: fallback?.stream ?? streamProvider,
    approval: {
      mode: setup.mode,
      acceptEdits: options.acceptEdits,
      toolRules: options.toolRules,
      approve: options.approve,
      reviewers: seams.reviewers(),
      escalation: () =>
        setup.sandbox?.current.allowEscalation ? "allow" : (options.escalationInAuto ?? "deny"),
    },
    ...seams.loopSeams(schemaCheck ? [schemaCheck.beforeStop] : []),
    ...(options.log ? { log: options.log } : {}),
  };
  const finish = (result: RunResult) => {
    const answered = fallback ? fallback.finish(result) : result;
    return schemaCheck ? schemaCheck.finish(answered) : answered;
  };
  return { input, deps, finish };
}

/**
 * The loop's events as the session passes them on, each saved before it is shown (a step the user
 * sees as complete is already on disk); a child agent's events (a subagent run by a tool call) are
 * shown, never part of this conversation. A failed save stops the turn (`stop`), and the result says why.
 */
async function* savedEvents(
  events: AsyncIterable<AgentEvent>,
  conversation: Conversation,
  stop: AbortController,
): AsyncGenerator<AgentEvent> {
  let saveFailure: IonError | undefined;
  for await (const event of events) {
    const child = event.type !== "result" && event.parent_tool_use_id !== undefined;
    if (!saveFailure && !child) {
      try {
        await conversation.record(event);
      } catch (err) {
        saveFailure = saveError(err);
        stop.abort();
      }
    }
    if (event.type === "result" && saveFailure)
      yield { type: "result", result: failedResult(event.result, [saveFailure.message]) };
    else yield event;
  }
}

/** What the session keeps of a turn's events besides passing them on. */
export interface TurnObserver {
  /** A provider's note (a thinking level mapped or ignored): told by the session, not passed on. */
  note(text: string): void;
  spent(result: RunResult): void;
  /** The usage of this conversation's last request; undefined after a compaction. */
  contextUsage(usage: Usage | undefined): void;
}

/**
 * The extensions' work before the turn's first request (the plan's designer), as a tool call of its
 * own would do it: its child events are shown (not saved in this conversation), its spending is the turn's.
 */
async function* beforeTurn(
  setup: TurnSetup,
  turn: TurnPlan,
  content: readonly UserBlock[],
  spending: ChildSpending,
): AsyncGenerator<AgentEvent> {
  const callId = `before_turn_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const events: ChildEvent[] = [];
  await setup.seams.beforeTurn({
    content,
    config: setup.config,
    notice: setup.options.notice,
    ctx: {
      cwd: turn.input.cwd,
      allow: turn.input.workspaceAllow ?? [],
      ...(turn.input.commandEnv ? { commandEnv: turn.input.commandEnv } : {}),
      signal: turn.input.signal,
      callId,
      sessionId: setup.sessionId,
      emit: (event) => events.push({ ...event, parent_tool_use_id: event.parent_tool_use_id ?? callId }),
      reportUsage: (usage, cost, model) => spending.report(usage, cost, model),
      parent: { input: turn.input, deps: turn.deps },
    },
  });
  yield* events;
}

/** Runs a turn whose prompt is saved: the loop's events, saved as they pass, the result finished. */
export async function* runTurn(
  setup: TurnSetup,
  conversation: Conversation,
  signal: AbortSignal,
  observer: TurnObserver,
): AsyncGenerator<AgentEvent> {
  const stop = new AbortController();
  const turn = planTurn(setup, AbortSignal.any([signal, stop.signal]));
  const before = new ChildSpending();
  let pending = setup.seams.hasBeforeTurn();
  let announced = false;
  for await (const event of savedEvents(runAgent(turn.input, turn.deps), conversation, stop)) {
    // Right after the turn's init, before its first request (the loop waits for the next pull).
    if (event.type === "init" && event.parent_tool_use_id === undefined && !announced) {
      announced = true;
      yield event;
      yield* setup.contextEvents ?? [];
      if (pending) yield* beforeTurn(setup, turn, setup.prompt ?? [], before);
      pending = false;
      continue;
    }
    if (event.type === "result") {
      const result = before.addTo(turn.finish(event.result));
      observer.spent(result);
      yield { type: "result", result };
      continue;
    }
    if (event.type === "notice") {
      observer.note(event.text);
      continue;
    }
    // A child agent's requests say nothing about this conversation's context.
    if (event.parent_tool_use_id === undefined) {
      if (event.type === "assistant") observer.contextUsage(event.usage);
      if (event.type === "compact_boundary") observer.contextUsage(undefined);
    }
    yield event;
  }
}

/** `/compact [focus]`: the compaction request, from the state a turn would be built from. */
function manualCompaction(
  setup: TurnSetup,
  focus: string | undefined,
  tokensBefore: number | undefined,
  signal: AbortSignal,
): CompactionRequest {
  const { target } = setup;
  const seams = setup.seams.loopSeams();
  return {
    messages: setup.messages,
    system: setup.system,
    tools: setup.tools().map((t) => t.spec),
    provider: target.provider,
    model: target.model,
    stream: streamProvider,
    signal,
    window: target.facts.contextWindow,
    trigger: "manual",
    focus,
    tokensBefore,
    beforeCompact: seams.beforeCompact,
    droppedContext: seams.droppedOnCompact,
    price: (usage) => target.facts.price(usage),
    log: setup.options.log,
  };
}

/**
 * `/compact [focus]`: compacts now and adds what it cost to `totals` (the summary requests cost money
 * even when the compaction is not applied). The boundary to record, when it was applied; throws
 * IonError when there is nothing to compact yet.
 */
export async function compactNow(
  setup: TurnSetup,
  focus: string | undefined,
  tokensBefore: number | undefined,
  signal: AbortSignal,
  totals: SessionTotals,
) {
  if (!setup.messages.some((m) => m.role === "assistant"))
    throw new IonError("usage", "nothing to compact yet: the conversation has no answer");
  const done = await runCompaction(manualCompaction(setup, focus, tokensBefore, signal));
  addToTotals(totals, {
    usage: done.usage,
    total_cost_usd: done.costUSD,
    num_turns: 0,
    duration_api_ms: done.apiMs,
  });
  return done.boundary;
}
