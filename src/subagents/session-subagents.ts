import type { SessionExtension, SessionStartInfo } from "../agent/session-extension.ts";
import type { Message } from "../providers/types.ts";
import { taskTool } from "../tools/index.ts";
import type { TaskRequest, TaskRunner } from "../tools/task.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "../tools/types.ts";
import type { ChildTranscript } from "./child-run.ts";

/** The extension name child transcripts are saved under. */
export const SUBAGENTS_EXTENSION = "subagents";
/** A child's model requests at most (config `subagents.max_turns` may lower or raise it). */
export const DEFAULT_CHILD_TURNS = 15;

/**
 * Subagents as a session extension: it adds the `task` tool, saves each child's conversation in the
 * session file under the call that ran it (an `extension_state` entry with `parent_tool_use_id`), and
 * finds it again for `resume: <id>` — in this process or in a resumed session. The child's code is
 * imported on the first `task` call.
 */
export class SessionSubagents implements SessionExtension, TaskRunner {
  readonly name = SUBAGENTS_EXTENSION;
  private save: SessionStartInfo["saveState"];
  private latest: SessionStartInfo["latestState"];
  /** Children run in this session, by task id: their latest conversation. */
  private readonly children = new Map<string, Message[]>();

  constructor(private readonly maxTurns = DEFAULT_CHILD_TURNS) {}

  tools(): AgentTool[] {
    return [taskTool(this)];
  }

  async sessionStart(info: SessionStartInfo): Promise<void> {
    this.save = info.saveState;
    this.latest = info.latestState;
    this.children.clear();
  }

  async run(request: TaskRequest, ctx: ToolContext): Promise<ToolOutcome> {
    let history: Message[] = [];
    if (request.resume !== undefined) {
      const found = this.transcript(request.resume);
      if (!found)
        return {
          content: `task: no subagent with id ${request.resume} in this session; start a new one without resume`,
          is_error: true,
        };
      history = found;
    }
    const { runChild } = await import("./child-run.ts");
    return runChild({
      request,
      history,
      maxTurns: this.maxTurns,
      ctx,
      save: async (transcript: ChildTranscript) => {
        this.children.set(ctx.callId, transcript.messages);
        await this.save?.(SUBAGENTS_EXTENSION, transcript, ctx.callId);
      },
    });
  }

  /** A child's conversation by its task id: run in this process, else saved in the resumed session. */
  private transcript(id: string): Message[] | undefined {
    const known = this.children.get(id);
    if (known) return known;
    const saved = this.latest?.(SUBAGENTS_EXTENSION, id);
    if (typeof saved !== "object" || saved === null || !("messages" in saved)) return undefined;
    return Array.isArray(saved.messages) ? (saved.messages as Message[]) : undefined;
  }
}
