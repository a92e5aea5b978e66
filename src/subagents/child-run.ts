import { type AgentInput, runAgent } from "../agent/loop.ts";
import type { Message, UserMessage } from "../providers/types.ts";
import { currentTools } from "../tools/registry.ts";
import type { SubagentType, TaskRequest } from "../tools/task.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "../tools/types.ts";
import { BUILTIN_TYPES, builtinAllows } from "./builtin-types.ts";
import type { CustomAgent } from "./custom-agents.ts";
import type { ChildTranscript } from "./transcript.ts";

/**
 * One run of a child agent for a `task` call: the parent's model, cwd, workspace and approval, a
 * context of its own (a fresh conversation, or a resumed child's), the tools its type allows, at most
 * `maxTurns` model requests. Its events go out through the call's context (marked with the call's id),
 * its spending is reported to the parent's run, and the parent's abort signal stops it.
 */

/** The parent's tools a child of `type` may use; never `task` (a child cannot start children). */
export function childTools(type: SubagentType, parentTools: readonly AgentTool[]): AgentTool[] {
  return parentTools.filter((tool) => builtinAllows(type, tool.spec.name));
}

/**
 * A custom agent's tools: its `tools` list (all of the parent's when it names none) without its
 * `disallowedTools`, and never `task`.
 */
function customAgentTools(agent: CustomAgent, parentTools: readonly AgentTool[]): AgentTool[] {
  const allowed = agent.tools === undefined ? undefined : new Set(agent.tools);
  const denied = new Set(agent.disallowedTools);
  return parentTools.filter(
    (tool) =>
      tool.spec.name !== "task" &&
      (allowed === undefined || allowed.has(tool.spec.name)) &&
      !denied.has(tool.spec.name),
  );
}

/** Claude Code's model aliases: ion runs them on the parent's model (its providers differ). */
const CLAUDE_ALIASES = new Set(["inherit", "sonnet", "opus", "haiku"]);

/**
 * The model a child runs on, from a custom agent's `model` or `subagents.fast_model`: `<provider>/<model>`
 * of the parent's provider, or a bare model id of it; else (none, `inherit`, a Claude alias, another
 * provider) the parent's model — a child shares the parent's provider connection.
 */
export function childModel(wanted: string | undefined, providerId: string, parentModel: string): string {
  if (wanted === undefined || CLAUDE_ALIASES.has(wanted)) return parentModel;
  const slash = wanted.indexOf("/");
  if (slash === -1) return wanted;
  return wanted.slice(0, slash) === providerId ? wanted.slice(slash + 1) : parentModel;
}

function childSystem(parentSystem: string, type: string, custom?: CustomAgent): string {
  const role = custom
    ? "carry out the task as your instructions below say"
    : BUILTIN_TYPES[type as SubagentType].role;
  const instructions = custom?.prompt ? `\n\n${custom.prompt}` : "";
  return `${parentSystem}\n\nYou are a subagent (${type}) started by another agent: ${role}. Your final message is all it sees of your work: make it a complete, concise answer.${instructions}`;
}

export interface ChildRun {
  /** The call, its type resolved (a resumed child's saved type, else the call's, else explorer). */
  request: TaskRequest & { subagent_type: string };
  /** The custom agent `request.subagent_type` names; undefined for a built-in type. */
  custom?: CustomAgent | undefined;
  /** Config `subagents.fast_model`: the explorer's model when set. */
  fastModel?: string | undefined;
  /** The resumed child's conversation; empty for a new child. */
  history: Message[];
  maxTurns: number;
  ctx: ToolContext;
  /**
   * Saves the child's conversation (under this call's id) after each of its steps and once it
   * stopped: a kill mid-child keeps the steps it completed.
   */
  save(transcript: ChildTranscript): Promise<void>;
}

export async function runChild({
  request,
  custom,
  fastModel,
  history,
  maxTurns,
  ctx,
  save,
}: ChildRun): Promise<ToolOutcome> {
  const parent = ctx.parent;
  if (!parent) return { content: "task: no parent run to start a subagent from", is_error: true };
  const prompt: UserMessage = { role: "user", content: [{ type: "text", text: request.prompt }] };
  const messages: Message[] = [...history, prompt];
  const parentTools = currentTools(parent.input.tools);
  const tools = custom
    ? customAgentTools(custom, parentTools)
    : childTools(request.subagent_type as SubagentType, parentTools);
  const wanted = custom ? custom.model : request.subagent_type === "explorer" ? fastModel : undefined;
  const model = childModel(wanted, parent.input.provider.id, parent.input.model);
  // Another model than the parent's: the parent's prices, window and limits are not its own.
  const otherModel =
    model === parent.input.model
      ? {}
      : {
          model,
          modelInfo: undefined,
          price: undefined,
          contextWindow: undefined,
          maxOutputTokens: undefined,
        };
  const input: AgentInput = {
    ...parent.input,
    ...otherModel,
    system: childSystem(parent.input.system, request.subagent_type, custom),
    messages: [...messages],
    tools,
    callable: undefined,
    mcpServers: [],
    skills: [],
    maxTurns,
    maxBudgetUsd: undefined,
    responseSchema: undefined,
    signal: ctx.signal,
  };
  const { approval, log, now } = parent.deps;
  let outcome: ToolOutcome = { content: "task: the subagent ended without a result", is_error: true };
  const transcript = (): ChildTranscript => ({
    type: request.subagent_type,
    description: request.description,
    messages: [...messages],
  });
  for await (const event of runAgent(input, { stream: parent.deps.stream, approval, log, now })) {
    if (event.type === "assistant" || event.type === "tool_results" || event.type === "user_message")
      messages.push(event.message);
    // A step is complete once its tool results are in.
    if (event.type === "tool_results") await save(transcript());
    if (event.type !== "result") {
      ctx.emit?.(event);
      continue;
    }
    const { result } = event;
    ctx.reportUsage?.(result.usage, result.total_cost_usd, {
      provider: input.provider.id,
      model: input.model,
      contextWindow: input.contextWindow ?? null,
      maxOutputTokens: input.maxOutputTokens ?? null,
    });
    const footer = `task id: ${ctx.callId} (resume with resume: ${ctx.callId})`;
    const problem = result.is_error
      ? `subagent failed (${result.subtype}): ${result.errors.join("; ")}\n`
      : "";
    outcome = {
      content: `${problem}${result.result}\n\n${footer}`.trimStart(),
      is_error: result.is_error,
      metadata: {
        title: `${request.subagent_type}: ${request.description}`,
        details: { task_id: ctx.callId, num_turns: result.num_turns, usage: result.usage },
      },
    };
  }
  await save(transcript());
  return outcome;
}
