import type { ToolResultBlock, ToolUseBlock } from "../providers/types.ts";
import type { AgentTool, ToolOutcome } from "../tools/types.ts";
import type { AgentEvent, PermissionDenial } from "./events.ts";
import type { AgentDeps, AgentInput } from "./loop.ts";

type Decision = { run: true; tool: AgentTool } | { run: false; outcome: ToolOutcome; denied: boolean };

async function decide(call: ToolUseBlock, input: AgentInput, deps: AgentDeps): Promise<Decision> {
  const tool = input.tools.find((t) => t.spec.name === call.name);
  if (!tool) {
    const known = input.tools.map((t) => t.spec.name).join(", ") || "none";
    return {
      run: false,
      denied: false,
      outcome: { content: `unknown tool "${call.name}" (available: ${known})`, is_error: true },
    };
  }
  if (tool.readOnly || input.permissionMode === "auto") return { run: true, tool };
  if (input.permissionMode === "ask" && deps.approve) {
    const answer = await deps.approve({ id: call.id, name: call.name, input: call.input });
    if (answer === "allow") return { run: true, tool };
  }
  const why = input.permissionMode === "read" ? "permission mode is read" : "the user did not approve it";
  return {
    run: false,
    denied: true,
    outcome: { content: `permission denied: ${call.name} was not run (${why})`, is_error: true },
  };
}

async function execute(tool: AgentTool, call: ToolUseBlock, input: AgentInput): Promise<ToolOutcome> {
  try {
    return await tool.execute(call.input, { cwd: input.cwd, signal: input.signal });
  } catch (err) {
    // A tool that throws is a bug in the tool, but the model still gets an answer it can act on.
    return {
      content: `tool ${call.name} failed: ${err instanceof Error ? err.message : String(err)}`,
      is_error: true,
    };
  }
}

/**
 * Runs one step's tool calls: concurrently when every call is read-only, otherwise in order.
 * Returns results in call order with their call ids.
 */
export async function* runToolBatch(
  calls: ToolUseBlock[],
  input: AgentInput,
  deps: AgentDeps,
  denials: PermissionDenial[],
): AsyncGenerator<AgentEvent, ToolResultBlock[]> {
  const now = deps.now ?? Date.now;
  const results: ToolResultBlock[] = [];
  const allReadOnly = calls.every((c) => input.tools.find((t) => t.spec.name === c.name)?.readOnly === true);

  const finish = (call: ToolUseBlock, outcome: ToolOutcome, started: number): AgentEvent => {
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
      duration_ms: now() - started,
    };
  };

  if (allReadOnly) {
    const started = now();
    for (const call of calls) yield { type: "tool_start", id: call.id, name: call.name, input: call.input };
    const outcomes = await Promise.all(
      calls.map(async (call) => {
        const decision = await decide(call, input, deps);
        return decision.run ? execute(decision.tool, call, input) : decision.outcome;
      }),
    );
    for (const [i, call] of calls.entries()) yield finish(call, outcomes[i]!, started);
    return results;
  }

  for (const call of calls) {
    const started = now();
    if (input.signal.aborted) {
      yield finish(call, { content: "not run: the run was interrupted", is_error: true }, started);
      continue;
    }
    const decision = await decide(call, input, deps);
    if (!decision.run && decision.denied)
      denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: call.input });
    yield { type: "tool_start", id: call.id, name: call.name, input: call.input };
    yield finish(call, decision.run ? await execute(decision.tool, call, input) : decision.outcome, started);
  }
  return results;
}
