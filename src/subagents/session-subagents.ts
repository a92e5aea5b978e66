import type { SessionExtension, SessionStartInfo } from "../agent/session-extension.ts";
import type { Env } from "../config/paths.ts";
import type { Message } from "../providers/types.ts";
import { taskTool } from "../tools/index.ts";
import type { TaskRequest, TaskRunner } from "../tools/task.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "../tools/types.ts";
import type { CustomAgent } from "./custom-agents.ts";
import type { Slots } from "./slots.ts";
import type { ChildTranscript } from "./transcript.ts";

/** The extension name child transcripts are saved under. */
export const SUBAGENTS_EXTENSION = "subagents";
/** A child's model requests at most (config `subagents.max_turns` may lower or raise it). */
const DEFAULT_CHILD_TURNS = 15;
/** Children running at once; more `task` calls wait for a free slot. */
export const MAX_PARALLEL_CHILDREN = 4;

/**
 * Subagents as a session extension: it adds the `task` tool, saves each child's conversation in the
 * session file under the call that ran it (an `extension_state` entry with `parent_tool_use_id`), and
 * finds it again for `resume: <id>` — in this process or in a resumed session. A `subagent_type` is
 * a built-in type or a custom agent (custom-agents.ts, read on the first call that names one); config
 * `subagents.max_turns` and `subagents.fast_model` come with the session's start. The child's code is
 * imported on the first `task` call.
 */
export class SessionSubagents implements SessionExtension, TaskRunner {
  readonly name = SUBAGENTS_EXTENSION;
  private save: SessionStartInfo["saveState"];
  private latest: SessionStartInfo["latestState"];
  private cwd = process.cwd();
  private env: Env = process.env;
  private maxTurns = DEFAULT_CHILD_TURNS;
  private fastModel: string | undefined;
  /** The custom agents, read on the first `task` call of a session. */
  private customAgents: Promise<CustomAgent[]> | undefined;
  /** Children run in this session, by task id: their type and latest conversation. */
  private readonly children = new Map<string, { type: string; messages: Message[] }>();
  /** Made on the first `task` call: nothing of subagents loads before the model asks for one. */
  private slots: Promise<Slots> | undefined;

  tools(): AgentTool[] {
    return [taskTool(this)];
  }

  async sessionStart(info: SessionStartInfo): Promise<void> {
    this.save = info.saveState;
    this.latest = info.latestState;
    this.children.clear();
    this.cwd = info.cwd;
    this.env = info.env ?? process.env;
    this.maxTurns = info.config?.subagents?.max_turns ?? DEFAULT_CHILD_TURNS;
    this.fastModel = info.config?.subagents?.fast_model;
    this.customAgents = undefined;
  }

  async run(request: TaskRequest, ctx: ToolContext): Promise<ToolOutcome> {
    let history: Message[] = [];
    let savedType: string | undefined;
    if (request.resume !== undefined) {
      const found = await this.transcript(request.resume);
      if ("error" in found)
        return { content: `task: ${found.error}; start a new one without resume`, is_error: true };
      history = found.messages;
      savedType = found.type;
    }
    // A resumed child keeps its type (its instructions and tools): naming another is a mistake to report.
    if (savedType !== undefined && request.subagent_type !== undefined && request.subagent_type !== savedType)
      return {
        content: `task: subagent ${request.resume} is a ${savedType}, not a ${request.subagent_type}; resume it without subagent_type, or start a new ${request.subagent_type} without resume`,
        is_error: true,
      };
    const type = savedType ?? request.subagent_type ?? "explorer";
    // Loaded already: the task tool's module, imported on its first call (it brings zod).
    const { SUBAGENT_TYPES } = await import("../tools/task.ts");
    const builtin = (SUBAGENT_TYPES as readonly string[]).includes(type);
    const custom = builtin ? undefined : await this.customAgent(type);
    if (!builtin && !custom) return { content: await this.unknownType(type, SUBAGENT_TYPES), is_error: true };
    const { runChild } = await import("./child-run.ts");
    // Set before any await: the calls of one step arrive together and must share one limit.
    this.slots ??= import("./slots.ts").then(({ Slots }) => new Slots(MAX_PARALLEL_CHILDREN));
    const release = await (await this.slots).take(ctx.signal);
    if (!release) return { content: "task: cancelled before the subagent started", is_error: true };
    try {
      return await runChild({
        request: { ...request, subagent_type: type },
        custom,
        fastModel: this.fastModel,
        history,
        maxTurns: this.maxTurns,
        ctx,
        save: async (transcript: ChildTranscript) => {
          this.children.set(ctx.callId, { type: transcript.type, messages: transcript.messages });
          await this.save?.(SUBAGENTS_EXTENSION, transcript, ctx.callId);
        },
      });
    } finally {
      release();
    }
  }

  private async customAgent(name: string): Promise<CustomAgent | undefined> {
    this.customAgents ??= import("./custom-agents.ts").then(
      ({ loadCustomAgents }) => loadCustomAgents({ cwd: this.cwd, env: this.env }).items,
    );
    return (await this.customAgents).find((agent) => agent.name === name);
  }

  /** The tool result for a type that does not exist: every type the model may name instead. */
  private async unknownType(name: string, builtin: readonly string[]): Promise<string> {
    const custom = (await this.customAgents) ?? [];
    const lines = custom.map((agent) => `- ${agent.name}: ${agent.description || "(no description)"}`);
    const customText =
      lines.length > 0 ? `\nCustom types:\n${lines.join("\n")}` : "\nNo custom types are defined.";
    return `task: no subagent type ${name}. Built-in types: ${builtin.join(", ")}.${customText}`;
  }

  /**
   * A child's conversation by its task id: run in this process, else saved in the resumed session
   * (checked: a damaged save is an error the model can act on, not a request no provider accepts).
   */
  private async transcript(id: string): Promise<{ type: string; messages: Message[] } | { error: string }> {
    const known = this.children.get(id);
    if (known) return known;
    const saved = this.latest?.(SUBAGENTS_EXTENSION, id);
    if (saved === undefined) return { error: `no subagent with id ${id} in this session` };
    const { childTranscriptOf } = await import("./transcript.ts");
    const child = childTranscriptOf(saved);
    if (!child)
      return { error: `the saved conversation of subagent ${id} cannot be read (a damaged session file)` };
    return { type: child.type, messages: child.messages };
  }
}
