import { type AgentInput, runAgent } from "../agent/loop.ts";
import type { Message, UserMessage } from "../providers/types.ts";
import { currentTools } from "../tools/registry.ts";
import type { SubagentType, TaskRequest } from "../tools/task.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "../tools/types.ts";

/**
 * One run of a child agent for a `task` call: the parent's model, cwd, workspace and approval, a
 * context of its own (a fresh conversation, or a resumed child's), the tools its type allows, at most
 * `maxTurns` model requests. Its events go out through the call's context (marked with the call's id),
 * its spending is reported to the parent's run, and the parent's abort signal stops it.
 */

/** What a child's conversation is saved as, under the call that ran it. */
export interface ChildTranscript {
  type: SubagentType;
  description: string;
  messages: Message[];
}

/** The tools a file reader needs: what explorer and designer get, and reviewer besides `bash`. */
const READ_TOOLS = new Set(["read_file", "list_files", "glob", "grep"]);

/** The parent's tools a child of `type` may use; never `task` (a child cannot start children). */
export function childTools(type: SubagentType, parentTools: readonly AgentTool[]): AgentTool[] {
  const offered = parentTools.filter((tool) => tool.spec.name !== "task");
  if (type === "general") return offered;
  const allowed = (name: string) =>
    READ_TOOLS.has(name) ||
    (type === "reviewer" && name === "bash") ||
    (type === "researcher" && name === "web_fetch");
  return offered.filter((tool) => allowed(tool.spec.name));
}

const ROLES: Record<SubagentType, string> = {
  explorer: "find and read what the task asks about; you cannot change files",
  designer: "work out a plan for the task; you cannot change files",
  reviewer: "review, build, test and analyse as the task asks; do not edit files",
  researcher: "look up what the task asks about, in the files and on the web; you cannot change files",
  general: "carry out the task",
};

function childSystem(parentSystem: string, type: SubagentType): string {
  return `${parentSystem}\n\nYou are a subagent (${type}) started by another agent: ${ROLES[type]}. Your final message is all it sees of your work: make it a complete, concise answer.`;
}

export interface ChildRun {
  request: TaskRequest;
  /** The resumed child's conversation; empty for a new child. */
  history: Message[];
  maxTurns: number;
  ctx: ToolContext;
  /** Saves the child's conversation (under this call's id) once the child stopped. */
  save(transcript: ChildTranscript): Promise<void>;
}

export async function runChild({ request, history, maxTurns, ctx, save }: ChildRun): Promise<ToolOutcome> {
  const parent = ctx.parent;
  if (!parent) return { content: "task: no parent run to start a subagent from", is_error: true };
  const prompt: UserMessage = { role: "user", content: [{ type: "text", text: request.prompt }] };
  const messages: Message[] = [...history, prompt];
  const tools = childTools(request.subagent_type, currentTools(parent.input.tools));
  const input: AgentInput = {
    ...parent.input,
    system: childSystem(parent.input.system, request.subagent_type),
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
  for await (const event of runAgent(input, { stream: parent.deps.stream, approval, log, now })) {
    if (event.type === "assistant" || event.type === "tool_results" || event.type === "user_message")
      messages.push(event.message);
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
  await save({ type: request.subagent_type, description: request.description, messages });
  return outcome;
}
