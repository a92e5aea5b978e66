import type { ToolResultBlock, ToolUseBlock } from "../providers/types.ts";
import { currentTools } from "../tools/registry.ts";
import { type AgentTool, asksOutsideSandbox, isReadOnly, type ToolOutcome } from "../tools/types.ts";
import { messageOf } from "../util/error-text.ts";
import { CallEvents } from "./call-events.ts";
import { ChildSpending } from "./child-usage.ts";
import type { AgentEvent, PermissionDenial } from "./events.ts";
import type { AgentDeps, AgentInput } from "./loop.ts";
import { type ApprovalPolicy, authorizeCall, type CallReviewer } from "./permissions.ts";

type Decision =
  | { run: true; tool: AgentTool; input: Record<string, unknown> }
  | { run: false; outcome: ToolOutcome; denied: boolean };

const NOT_RUN: ToolOutcome = { content: "not run: the run was interrupted", is_error: true };

/** The tool a call names: one offered now, else one callable by name only (a deferred MCP tool). */
function toolFor(name: string, tools: readonly AgentTool[], input: AgentInput): AgentTool | undefined {
  return tools.find((t) => t.spec.name === name) ?? input.callable?.(name);
}

/**
 * The policy with each reviewer's denial noted: a call a hook blocked is shown as blocked by it, not
 * as refused by the permission mode or the user.
 */
function noticingRefusals(policy: ApprovalPolicy): { policy: ApprovalPolicy; refusedBy: { name?: string } } {
  const refusedBy: { name?: string } = {};
  if (!policy.reviewers?.length) return { policy, refusedBy };
  const reviewers: CallReviewer[] = policy.reviewers.map((reviewer) => ({
    name: reviewer.name,
    review: async (call) => {
      const said = await reviewer.review(call);
      if (said?.decision === "deny") refusedBy.name = reviewer.name;
      return said;
    },
  }));
  return { policy: { ...policy, reviewers }, refusedBy };
}

async function decide(
  call: ToolUseBlock,
  tools: readonly AgentTool[],
  input: AgentInput,
  deps: AgentDeps,
  parseError: string | undefined,
): Promise<Decision> {
  const tool = toolFor(call.name, tools, input);
  if (!tool) {
    const known = tools.map((t) => t.spec.name).join(", ") || "none";
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
  // Every call is decided by the one approval function; without a policy, by the mode alone.
  const { policy, refusedBy } = noticingRefusals(deps.approval ?? { mode: () => input.permissionMode });
  const verdict = await authorizeCall(policy, {
    id: call.id,
    name: call.name,
    input: call.input,
    readOnly: isReadOnly(tool, call.input),
    outsideSandbox: input.sandbox?.enforced === true && asksOutsideSandbox(call.name, call.input),
  });
  if (verdict.allow) return { run: true, tool, input: verdict.input ?? call.input };
  return {
    run: false,
    denied: true,
    outcome: {
      content: verdict.reason,
      is_error: true,
      metadata: refusedBy.name === undefined ? { denied: true } : { denied: true, deniedBy: refusedBy.name },
    },
  };
}

/** How a running call reaches the run: its progress, its child agent's events and spending. */
interface CallChannels {
  events: CallEvents;
  spending: ChildSpending;
  started: number;
}

async function execute(
  tool: AgentTool,
  call: ToolUseBlock,
  args: Record<string, unknown>,
  input: AgentInput,
  deps: AgentDeps,
  channels: CallChannels,
): Promise<ToolOutcome> {
  try {
    return await tool.execute(args, {
      cwd: input.cwd,
      allow: input.workspaceAllow ?? [],
      ...(input.sandbox ? { sandbox: input.sandbox } : {}),
      ...(input.commandEnv ? { commandEnv: input.commandEnv } : {}),
      signal: input.signal,
      callId: call.id,
      sessionId: input.sessionId,
      onUpdate: channels.events.reporter(call, channels.started),
      emit: channels.events.emitter(call),
      reportUsage: (usage, costUSD, model) => channels.spending.report(usage, costUSD, model),
      parent: { input, deps },
    });
  } catch (err) {
    // A tool that throws is a bug in the tool, but the model still gets an answer it can act on.
    return {
      content: `tool ${call.name} failed: ${messageOf(err)}`,
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
  channels: CallChannels,
): Promise<ToolOutcome> {
  const outcome = decision.run
    ? await execute(decision.tool, call, decision.input, input, deps, channels)
    : decision.outcome;
  return deps.afterTool ? deps.afterTool(call, outcome) : outcome;
}

/**
 * Runs one step's tool calls: concurrently when every call is read-only, otherwise in order.
 * Returns results in call order with their call ids. Every call gets a `tool_start` and a `tool_end`,
 * and between them the `tool_progress` its tool reports while it runs and the events of a child agent
 * it runs. The tools are those offered now (a tool removed since the request is unknown).
 * `parseErrors` holds the calls whose arguments did not parse (by id): they are answered, not run.
 * `spending` collects what child agents report spending.
 */
export async function* runToolBatch(
  calls: ToolUseBlock[],
  input: AgentInput,
  deps: AgentDeps,
  denials: PermissionDenial[],
  parseErrors: ReadonlyMap<string, string> = new Map(),
  spending: ChildSpending = new ChildSpending(),
): AsyncGenerator<AgentEvent, ToolResultBlock[]> {
  const now = deps.now ?? Date.now;
  const results: ToolResultBlock[] = [];
  const tools = currentTools(input.tools);
  const allReadOnly = calls.every((c) => {
    const tool = toolFor(c.name, tools, input);
    return tool !== undefined && isReadOnly(tool, c.input);
  });
  const reported = new CallEvents(now);
  const channels = (started: number): CallChannels => ({ events: reported, spending, started });

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
      ...(outcome.metadata ? { metadata: outcome.metadata } : {}),
    };
  };

  if (allReadOnly) {
    for (const call of calls) yield { type: "tool_start", id: call.id, name: call.name, input: call.input };
    const outcomes = yield* reported.during(
      Promise.all(
        calls.map(async (call) => {
          const started = now();
          if (input.signal.aborted) return { outcome: NOT_RUN, durationMs: 0 };
          const decision = await decide(call, tools, input, deps, parseErrors.get(call.id));
          if (!decision.run && decision.denied)
            denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: call.input });
          const outcome = await settle(decision, call, input, deps, channels(started));
          reported.end(call.id);
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
    const decision = await decide(call, tools, input, deps, parseErrors.get(call.id));
    if (!decision.run && decision.denied)
      denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: call.input });
    yield { type: "tool_start", id: call.id, name: call.name, input: call.input };
    // Timed from after the approval question: the duration is the tool's, not the user's.
    const started = now();
    const outcome = yield* reported.during(settle(decision, call, input, deps, channels(started)));
    reported.end(call.id);
    yield finish(call, outcome, now() - started);
  }
  return results;
}
