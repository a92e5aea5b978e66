import { fromClaudeMode } from "../agent/permissions.ts";
import type { AgentSession } from "../agent/session.ts";
import type { HookRun } from "../hooks/run.ts";
import type { SdkServerDefinition } from "../mcp/config.ts";
import { CLAUDE_TOOL_NAMES, claudeToolInput, ionToolInput } from "../tools/claude-names.ts";
import type { ApprovalDecision, ApproveFn } from "../tools/types.ts";
import { ControlChannel, type JsonObject } from "./channel.ts";
import { ControlMcpTransport } from "./mcp-transport.ts";

type RunCallback = (
  hook: { command: string; callbackId: string; timeoutMs: number },
  payload: string,
) => Promise<HookRun>;

/**
 * The program's side of an SDK run: the control requests it may send (`initialize`, `interrupt`,
 * `set_permission_mode`, `set_model`, `set_max_thinking_tokens`, `mcp_status`) answered against the
 * session, and ion's `can_use_tool` questions to it. Each turn gets its own abort signal, so
 * `interrupt` ends the turn in flight as SIGINT would while the run goes on reading input.
 */
export class SdkControl {
  readonly channel: ControlChannel;
  /** Set once the session is open; requests before that answer from what is known. */
  private opened: AgentSession | undefined;
  private markOpen: (session: AgentSession) => void = () => {};
  /** Requests that change the session, read before it opened, wait for it. */
  private readonly sessionOpen = new Promise<AgentSession>((resolve) => {
    this.markOpen = resolve;
  });

  get session(): AgentSession | undefined {
    return this.opened;
  }

  set session(session: AgentSession | undefined) {
    this.opened = session;
    if (session) this.markOpen(session);
  }
  /** Resolves once stdin has ended. */
  readonly reading: Promise<void>;
  private turn: AbortController | undefined;
  /** What the program's `initialize` asked for, once it came. */
  private init: JsonObject | undefined;

  constructor(
    write: (line: JsonObject) => void,
    warn: (line: string) => void,
    stdin: AsyncIterable<Uint8Array | string>,
  ) {
    this.channel = new ControlChannel(write, warn);
    this.channel
      .on("initialize", (request) => {
        this.init = request;
        return this.initialize();
      })
      .on("interrupt", () => {
        this.interruptTurn();
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

  /**
   * Whether the program itself interrupted the last turn (`interrupt`, or a canUseTool answer with
   * `interrupt: true`): that turn's interrupted result is what it asked for, not a failure of the run.
   */
  interruptedByProgram = false;

  /** A signal for one turn: aborted by `interrupt`, by a can_use_tool answer that interrupts, or with the run. */
  turnSignal(run: AbortSignal): AbortSignal {
    this.interruptedByProgram = false;
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
            input: claudeToolInput(call.name, call.input),
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
          ? { decision: "allow", input: ionToolInput(call.name, input as Record<string, unknown>) }
          : "allow";
      }
      if (answer.interrupt === true) this.interruptTurn();
      const message =
        typeof answer.message === "string" && answer.message !== "" ? answer.message : undefined;
      return {
        decision: "deny",
        reason: message ?? `permission denied: ${call.name} was not run: the program refused it`,
      };
    };
  }

  /** Settles once the program's first line (its `initialize`) has been read, or stdin ended. */
  get started(): Promise<void> {
    return this.channel.firstLine;
  }

  /**
   * The program's system prompt: a non-empty `systemPrompt` replaces ion's preamble (the SDK's
   * default, an empty one, keeps it), `appendSystemPrompt` is added after it.
   */
  systemPrompt(): { system?: string; append?: string } {
    const parts = this.init?.systemPrompt;
    const system = (Array.isArray(parts) ? parts : [parts])
      .filter((part): part is string => typeof part === "string")
      .join("\n\n");
    const append = this.init?.appendSystemPrompt;
    return {
      ...(system.trim() !== "" ? { system } : {}),
      ...(typeof append === "string" && append.trim() !== "" ? { append } : {}),
    };
  }

  /**
   * The program's hooks in the shape of configured ones — `{Event: [{matcher, hooks: [{type:
   * "callback", id, timeout}]}]}` — from initialize's `{Event: [{matcher, hookCallbackIds, timeout}]}`,
   * and how to run one: a `hook_callback` request whose answer is read as a command hook's JSON.
   */
  programHooks(): { hooks: Record<string, unknown>; runCallback: RunCallback } {
    const hooks: Record<string, unknown> = {};
    const given = this.init?.hooks;
    if (typeof given === "object" && given !== null)
      for (const [event, matchers] of Object.entries(given as Record<string, unknown>)) {
        if (!Array.isArray(matchers)) continue;
        hooks[event] = matchers.map((entry: JsonObject) => ({
          matcher: entry.matcher,
          hooks: (Array.isArray(entry.hookCallbackIds) ? entry.hookCallbackIds : []).map((id: unknown) => ({
            type: "callback",
            id,
            ...(entry.timeout !== undefined ? { timeout: entry.timeout } : {}),
          })),
        }));
      }
    return { hooks, runCallback: (hook, payload) => this.runCallback(hook, payload) };
  }

  private async runCallback(
    hook: { command: string; callbackId: string; timeoutMs: number },
    payload: string,
  ) {
    const input = JSON.parse(payload) as JsonObject;
    const timeout = AbortSignal.timeout(hook.timeoutMs);
    try {
      const answer = await this.channel.request(
        { subtype: "hook_callback", callback_id: hook.callbackId, input, tool_use_id: input.tool_use_id },
        timeout,
      );
      return { command: hook.command, code: 0, stdout: JSON.stringify(answer), stderr: "", timedOut: false };
    } catch (err) {
      const stderr = err instanceof Error ? err.message : String(err);
      return { command: hook.command, code: null, stdout: "", stderr, timedOut: timeout.aborted };
    }
  }

  private interruptTurn(): void {
    if (!this.turn || this.turn.signal.aborted) return;
    this.interruptedByProgram = true;
    this.turn.abort();
  }

  /** The program's in-process MCP servers (initialize's `sdkMcpServers`, and `--mcp-config`'s of type sdk). */
  programMcpServers(fromFlags: readonly string[]): SdkServerDefinition[] {
    const named = this.init?.sdkMcpServers;
    const names = new Set([
      ...fromFlags,
      ...(Array.isArray(named) ? named.filter((name): name is string => typeof name === "string") : []),
    ]);
    return [...names].map((name) => ({
      name,
      type: "sdk",
      transport: () => new ControlMcpTransport(this.channel, name),
    }));
  }

  /** What ion has, as the SDK's types allow: the session's model (it waits for the session to open). */
  private async initialize(): Promise<JsonObject> {
    const session = await this.sessionOpen;
    return {
      commands: [],
      agents: [],
      output_style: "default",
      available_output_styles: ["default"],
      models: [
        {
          value: `${session.provider.id}/${session.model}`,
          displayName: session.model,
          description: `${session.model} on ${session.provider.id}`,
        },
      ],
      account: {},
    };
  }

  private async setPermissionMode(request: JsonObject): Promise<JsonObject> {
    const mode = fromClaudeMode(String(request.mode));
    if (!mode) throw new Error(`unknown permission mode: ${String(request.mode)}`);
    (await this.sessionOpen).mode = mode.mode;
    return {};
  }

  private async setModel(request: JsonObject): Promise<JsonObject> {
    const session = await this.sessionOpen;
    if (typeof request.model === "string" && request.model !== "") await session.setModel(request.model);
    return {};
  }

  private async mcpStatus(): Promise<JsonObject> {
    const overview = await (await this.sessionOpen).mcpServers();
    const servers = (overview?.servers ?? []).map((server) => ({ name: server.name, status: server.status }));
    return { mcpServers: servers };
  }
}
