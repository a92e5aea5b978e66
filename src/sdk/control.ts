import { fromClaudeMode } from "../agent/permissions.ts";
import type { AgentSession } from "../agent/session.ts";
import { CLAUDE_TOOL_NAMES } from "../tools/claude-names.ts";
import type { ApprovalDecision, ApproveFn } from "../tools/types.ts";
import { ControlChannel, type JsonObject } from "./channel.ts";

/**
 * The program's side of an SDK run: the control requests it may send (`initialize`, `interrupt`,
 * `set_permission_mode`, `set_model`, `set_max_thinking_tokens`, `mcp_status`) answered against the
 * session, and ion's `can_use_tool` questions to it. Each turn gets its own abort signal, so
 * `interrupt` ends the turn in flight as SIGINT would while the run goes on reading input.
 */
export class SdkControl {
  readonly channel: ControlChannel;
  /** Set once the session is open; requests before that answer from what is known. */
  session: AgentSession | undefined;
  /** Resolves once stdin has ended. */
  readonly reading: Promise<void>;
  private turn: AbortController | undefined;

  constructor(
    write: (line: JsonObject) => void,
    warn: (line: string) => void,
    stdin: AsyncIterable<Uint8Array | string>,
  ) {
    this.channel = new ControlChannel(write, warn);
    this.channel
      .on("initialize", () => this.initialize())
      .on("interrupt", () => {
        this.turn?.abort();
        return {};
      })
      .on("set_permission_mode", (request) => this.setPermissionMode(request))
      .on("set_model", (request) => this.setModel(request))
      // ion's thinking is a level per model, not a token budget: accepted, nothing changes.
      .on("set_max_thinking_tokens", () => ({}))
      .on("mcp_status", () => this.mcpStatus());
    // Never rejects: a read failure comes out of the user messages.
    this.reading = this.channel.pump(stdin);
  }

  /** A signal for one turn: aborted by `interrupt`, by a can_use_tool answer that interrupts, or with the run. */
  turnSignal(run: AbortSignal): AbortSignal {
    this.turn = new AbortController();
    return AbortSignal.any([run, this.turn.signal]);
  }

  /** `--permission-prompt-tool stdio`: the program's canUseTool decides what ion would ask the user. */
  approver(): ApproveFn {
    return async (call): Promise<ApprovalDecision> => {
      const signal = this.turn?.signal;
      let answer: JsonObject;
      try {
        answer = await this.channel.request(
          {
            subtype: "can_use_tool",
            tool_name: CLAUDE_TOOL_NAMES[call.name] ?? call.name,
            input: call.input,
            tool_use_id: call.id,
            permission_suggestions: [],
          },
          signal,
        );
      } catch (err) {
        return {
          decision: "deny",
          reason: `permission denied: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
      if (answer.behavior === "allow") {
        const input = answer.updatedInput;
        return typeof input === "object" && input !== null && !Array.isArray(input)
          ? { decision: "allow", input: input as Record<string, unknown> }
          : "allow";
      }
      if (answer.interrupt === true) this.turn?.abort();
      const message =
        typeof answer.message === "string" && answer.message !== "" ? answer.message : undefined;
      return {
        decision: "deny",
        reason: message ?? `permission denied: ${call.name} was not run: the program refused it`,
      };
    };
  }

  private initialize(): JsonObject {
    const session = this.session;
    return {
      commands: [],
      agents: [],
      output_style: "default",
      available_output_styles: ["default"],
      models: session
        ? [{ value: `${session.provider.id}/${session.model}`, displayName: session.model, description: "" }]
        : [],
      account: {},
    };
  }

  private setPermissionMode(request: JsonObject): JsonObject {
    const mode = fromClaudeMode(String(request.mode));
    if (!mode) throw new Error(`unknown permission mode: ${String(request.mode)}`);
    if (!this.session) throw new Error("the session is not open yet");
    this.session.mode = mode.mode;
    return {};
  }

  private async setModel(request: JsonObject): Promise<JsonObject> {
    if (!this.session) throw new Error("the session is not open yet");
    if (typeof request.model === "string" && request.model !== "") await this.session.setModel(request.model);
    return {};
  }

  private async mcpStatus(): Promise<JsonObject> {
    const overview = await this.session?.mcpServers();
    const servers = (overview?.servers ?? []).map((server) => ({ name: server.name, status: server.status }));
    return { mcpServers: servers };
  }
}
