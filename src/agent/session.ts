import type { Env } from "../config/paths.ts";
import { resolveThinking } from "../config/resolve.ts";
import type { Config, Keys } from "../config/schema.ts";
import type { BuiltSystemPrompt } from "../context/system-prompt.ts";
import type { LoadedSession } from "../history/store.ts";
import { imageRefusal } from "../providers/image.ts";
import type {
  ModelCapabilities,
  ResolvedProvider,
  ThinkingLevel,
  Usage,
  UserBlock,
  UserMessage,
} from "../providers/types.ts";
import type { CommandSandbox } from "../sandbox/command-sandbox.ts";
import type { Skill } from "../skills/types.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { AgentTool } from "../tools/types.ts";
import { messageOf } from "../util/error-text.ts";
import type { AgentEvent } from "./events.ts";
import { offeredTools, type PermissionMode, permissionMode } from "./permissions.ts";
import {
  endReasonOf,
  type SessionEndReason,
  type SessionExtension,
  SessionSeams,
} from "./session-extension.ts";
import type { OpenedSession } from "./session-file.ts";
import type { McpOverview, SessionMcp } from "./session-mcp.ts";
import { openBasis, type SessionBasis } from "./session-open.ts";
import {
  addToTotals,
  emptyTotals,
  type ProjectTrust,
  type SessionOptions,
  type SessionTotals,
} from "./session-options.ts";
import type { SessionPrompt } from "./session-prompt.ts";
import { SessionRecord } from "./session-record.ts";
import { type ModelTarget, oversized, resolveTarget, saveError } from "./session-setup.ts";
import { compactNow, runTurn, type TurnSetup } from "./session-turn.ts";
import { usageTotal } from "./tokens.ts";

export type { SessionOptions, SessionTotals } from "./session-options.ts";

/** Events that are pieces of a step still streaming: the step's own event carries them whole. */
const STREAMING_PIECES = new Set<AgentEvent["type"]>([
  "text_delta",
  "thinking_delta",
  "tool_use_delta",
  "tool_progress",
]);

/**
 * The agent session: everything a conversation needs, prepared once — configuration, provider and
 * model, the model's facts, tools, permission mode, system prompt, the session file — and `turn()`
 * many times. `ion run` is one turn of it, `ion chat` many; model, thinking, mode and preamble can
 * change between turns. It owns the conversation (through `Conversation`), and saving is a sink
 * beside the loop: each event is on disk before it is passed on. Extensions plug into its seams
 * (session-extension.ts).
 */
export class AgentSession {
  /** Configuration, where each setting came from, and the keys. */
  private readonly loaded: SessionBasis["loaded"];
  private target: ModelTarget;
  /** Which session this is now, its conversation and its file. */
  private readonly record: SessionRecord;
  private lastUsage: Usage | undefined;
  /** The session's tools, asked before every request; closed with the session. */
  readonly registry: ToolRegistry;
  private readonly prompt: SessionPrompt;
  private readonly seams: SessionSeams;
  /** The session the end seam was called for (once each). */
  private endedId: string | undefined;
  /** How the last turn ended: why the session ends, unless its front end knows better. */
  private outcome: SessionEndReason = "done";
  readonly totals: SessionTotals = emptyTotals();
  thinking: ThinkingLevel;
  mode: PermissionMode;
  /** The configured preamble, or `--system` / a chat's override. */
  preamble: string | undefined;
  readonly resumed: OpenedSession | undefined;
  /** Provider notices already said to the user. */
  private readonly noticesTold = new Set<string>();
  /** `--fallback-model`, resolved when the session opened. */
  private readonly fallbackTarget: ModelTarget | undefined;
  /** The MCP servers (session-mcp.ts); undefined when none is configured. */
  private readonly mcp: SessionMcp | undefined;
  /** Where `bash` commands run; a chat's `/sandbox` changes its mode for the next command. */
  readonly sandbox: CommandSandbox;
  /** What commands inherit (bash, hooks, MCP stdio servers): no provider key, no secret-like name. */
  private readonly commandEnv: Record<string, string>;

  private constructor(
    private readonly options: SessionOptions,
    basis: SessionBasis,
  ) {
    const { loaded, opened } = basis;
    this.loaded = loaded;
    this.target = basis.target;
    this.fallbackTarget = basis.fallback;
    this.resumed = opened;
    this.record = new SessionRecord(basis.store, opened, options.newId, options.cwd);
    this.thinking = resolveThinking(loaded.config, options.thinking);
    this.mode = options.mode ?? permissionMode(options.yes, loaded.config.permissions?.mode);
    const preamble = options.system ?? loaded.config.preamble;
    this.preamble = options.appendSystem
      ? [preamble, options.appendSystem].filter(Boolean).join("\n\n")
      : preamble;
    this.seams = new SessionSeams(options.extensions);
    this.registry = new ToolRegistry([...basis.parts.builtins, ...this.seams.tools()]);
    this.prompt = basis.parts.prompt;
    this.mcp = basis.mcp;
    this.sandbox = basis.sandbox;
    this.commandEnv = basis.commandEnv;
  }

  /**
   * Loads config, picks and opens the session file, resolves the model, then tells the extensions the
   * session started. Throws IonError for what the user must fix.
   */
  static async open(options: SessionOptions): Promise<AgentSession> {
    const basis = await openBasis(options);
    const session = new AgentSession(options, basis);
    try {
      if (options.skill !== undefined) await session.activateSkill(options.skill);
      await session.started(basis.opened);
      return session;
    } catch (err) {
      await basis.opened?.writer.close();
      await basis.mcp?.close();
      throw err;
    }
  }

  get id(): string {
    return this.record.id;
  }

  get provider(): ResolvedProvider {
    return this.target.provider;
  }

  get model(): string {
    return this.target.model;
  }

  get contextWindow(): number | undefined {
    return this.target.facts.contextWindow;
  }

  /** What the catalogue says the model can do; undefined when it does not know the model. */
  get modelCapabilities(): ModelCapabilities | undefined {
    return this.target.facts.capabilities;
  }

  get cwd(): string {
    return this.options.cwd;
  }

  get configuration(): Config {
    return this.loaded.config;
  }

  /**
   * Whether the project is trusted and what it would run; undefined when it has nothing that needs
   * trust (or the front end did not ask): then it is untrusted.
   */
  get projectTrust(): ProjectTrust | undefined {
    return this.options.projectTrust;
  }

  /** Whether this session saves anything (`--no-session` does not). */
  get saving(): boolean {
    return this.record.saving;
  }

  /** Tokens the next request starts from: the last request's whole input and output, when reported. */
  get contextUsed(): number | undefined {
    return this.lastUsage && usageTotal(this.lastUsage) > 0 ? usageTotal(this.lastUsage) : undefined;
  }

  /** The messages the model sees now. */
  messages() {
    return this.record.conversation.messages();
  }

  /** The tools offered now; given `from`, those of them the mode and the disabled or denied tools allow. */
  tools(from: AgentTool[] = this.registry.offered()): AgentTool[] {
    if (this.options.noTools) return [];
    return offeredTools(from, this.mode, this.loaded.config.tools?.disabled ?? [], this.options.toolRules);
  }

  /** The MCP servers once started, with their status and tools (`/mcp`); undefined when none is configured. */
  async mcpServers(): Promise<McpOverview | undefined> {
    await this.mcp?.join(this.registry, this.contextWindow, new AbortController().signal);
    return this.mcp && { servers: this.mcp.states, offered: this.mcp.offered };
  }

  /**
   * The system prompt for the next request, with what went into it; byte-identical between turns
   * unless an input changed. A problem with an instruction file is told once.
   */
  buildPrompt(): BuiltSystemPrompt {
    return this.prompt.build({
      cwd: this.options.cwd,
      env: this.options.env,
      preamble: this.preamble,
      tools: this.tools().map((t) => t.spec.name),
      contextWindow: this.contextWindow,
    });
  }

  systemPrompt(): string {
    return this.buildPrompt().text;
  }

  /** What fills the context window now, part by part (`/context`, `ion run -v`). */
  async contextBreakdown() {
    await this.mcp?.join(this.registry, this.contextWindow, new AbortController().signal);
    const { contextBreakdown } = await import("../context/breakdown.ts");
    return contextBreakdown({
      prompt: this.buildPrompt(),
      tools: this.tools().map((t) => t.spec),
      messages: this.messages(),
      contextWindow: this.contextWindow,
      mcpSearch: this.mcp?.offered && {
        deferredTools: this.mcp.offered.deferred,
        tokensSaved: this.mcp.offered.tokensSaved,
      },
    });
  }

  get skills(): readonly Skill[] {
    return this.prompt.skills;
  }

  /** The skill whose instructions are last in the system prompt (`--skill`, `/skill`); undefined: none. */
  get activeSkill(): Skill | undefined {
    return this.prompt.active;
  }

  set activeSkill(skill: Skill | undefined) {
    this.prompt.active = skill;
  }

  /** `--skill` / `/skill NAME`: throws IonError for an unknown or unavailable skill. */
  activateSkill(name: string): Promise<Skill> {
    return this.prompt.activate(name);
  }

  /** Names of the skills the model can read. */
  availableSkills(): string[] {
    return this.prompt.available();
  }

  /** Switches provider/model for the next turns (`/model`); throws IonError for an unknown one. */
  async setModel(spec: string): Promise<void> {
    this.target = await resolveTarget(this.loaded, spec, this.options.env, true);
    for (const warning of this.target.facts.warnings ?? []) this.options.notice(`warning: ${warning}`);
    this.lastUsage = undefined;
  }

  /**
   * One user message and everything the agent does about it, as events; always ends with one
   * `result`. A prompt that cannot fit, that the model cannot read, or that an extension refuses
   * throws (nothing was sent); so does failing to save it. Failing to save later stops the turn, and
   * the result says why.
   */
  async *turn(content: UserBlock[], signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const message: UserMessage = { role: "user", content };
    // The first request waits for the MCP servers (each bounded by its start-up timeout).
    await this.mcp?.join(this.registry, this.contextWindow, signal);
    const label = `${this.provider.id}/${this.model}`;
    const tools = this.tools().map((t) => t.spec);
    const window = this.contextWindow;
    const refusal =
      oversized(message, { system: this.systemPrompt(), tools, window, label }) ??
      imageRefusal(content, this.modelCapabilities, label);
    if (refusal) throw refusal;
    // The extensions' say: a refused prompt is kept in the session file (outside the model's view).
    const verdict = await this.seams.submit({
      sessionId: this.id,
      content,
      messages: this.messages(),
      contextWindow: window,
    });
    if ("refusal" in verdict) throw await this.record.refuse(message, verdict.refusal, this.fileModelNow());
    // Saved before any request: failing to is an error, and nothing is sent.
    await this.record.saveTurn(message, verdict.contexts, this.fileModelNow()).catch((err: unknown) => {
      throw saveError(err);
    });

    const setup = { ...this.turnSetup(), prompt: content, contextEvents: verdict.events };
    const events = runTurn(setup, this.record.conversation, signal, {
      note: (text) => {
        // Worth saying once a session.
        if (!this.noticesTold.has(text)) this.options.notice(`note: ${text}`);
        this.noticesTold.add(text);
      },
      spent: (result) => {
        addToTotals(this.totals, result);
        this.outcome = endReasonOf(result);
      },
      contextUsage: (usage) => {
        this.lastUsage = usage;
      },
    });
    if (!this.seams.hasTurnEnd()) return yield* events;
    const kept: AgentEvent[] = [];
    for await (const event of events) {
      yield event;
      if (!STREAMING_PIECES.has(event.type)) kept.push(event);
      // Reached once the consumer asks for more after the result: the answer is shown and printed.
      if (event.type === "result")
        await this.seams.turnEnded(
          { sessionId: this.id, prompt: content, events: kept, result: event.result },
          this.options.notice,
        );
    }
  }

  private turnSetup(): TurnSetup {
    return {
      sessionId: this.id,
      options: this.options,
      config: this.loaded.config,
      target: this.target,
      fallbackTarget: this.fallbackTarget,
      system: this.systemPrompt(),
      tools: () => this.tools(),
      // A deferred MCP tool is not listed, but the model may call it by the name mcp_search gave.
      callable: (name) => this.tools([this.registry.get(name)].filter((tool) => tool !== undefined))[0],
      mcpServers: (this.mcp?.states ?? []).map(({ name, status }) => ({ name, status })),
      skills: this.tools().some((t) => t.spec.name === "skill") ? this.availableSkills() : [],
      mode: () => this.mode,
      thinking: this.thinking,
      messages: this.messages(),
      seams: this.seams,
      sandbox: this.sandbox,
      commandEnv: this.commandEnv,
    };
  }

  /**
   * `/compact [focus]`: summarises the older part of the conversation now. Yields the
   * compact_boundary (recorded first); throws IonError when there is nothing to compact yet.
   */
  async *compact(focus: string | undefined, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const boundary = await compactNow(this.turnSetup(), focus, this.contextUsed, signal, this.totals);
    if (!boundary) return;
    await this.record.conversation.record(boundary);
    this.lastUsage = undefined;
    yield boundary;
  }

  /** `/clear`: a new, empty session from the next turn on; the old one stays saved. */
  async clear(): Promise<void> {
    await this.end("done");
    await this.record.clear();
    this.lastUsage = undefined;
    await this.started(undefined);
  }

  /**
   * `/resume ID`: continues another saved session (id or unique prefix) with the model it was held
   * with. Returns how many messages it has. The current session is released only once the other opened.
   */
  async resume(prefix: string): Promise<OpenedSession> {
    const opened = await this.record.open(prefix, this.options.notice, this.options.log);
    try {
      const { provider, model } = opened.lastModel;
      await this.setModel(`${provider}/${model}`).catch((err: unknown) => {
        const why = messageOf(err);
        this.options.notice(`keeping ${this.provider.id}/${this.model}: ${why}`);
      });
      await this.end("done");
    } finally {
      await this.record.switchTo(opened);
    }
    this.lastUsage = undefined;
    await this.started(opened);
    return opened;
  }

  /** The session's extension of that name (`/memory` finds memory's); undefined when it has none. */
  extension(name: string): SessionExtension | undefined {
    return this.seams.named(name);
  }

  /** The current session as saved (read-only, no lock); undefined before its first turn or with --no-session. */
  load(): Promise<LoadedSession | undefined> {
    return this.record.load();
  }

  /** What the model catalogue needs to list this configuration's models. */
  catalogInputs(): { config: Config; keys: Keys; env: Env } {
    return { config: this.loaded.config, keys: this.loaded.keys, env: this.options.env };
  }

  /** Saved sessions, newest first (for `/sessions` and the `/resume` picker). */
  listSessions(onlyHere = false) {
    return this.record.list(onlyHere);
  }

  /**
   * Ends the session: the extensions hear why (once, however often it is closed) — `reason`, else how
   * its last turn ended — the session file's lock is released and the tools are closed (a tool that
   * fails to close is told, not thrown).
   */
  async close(reason?: SessionEndReason): Promise<void> {
    try {
      await this.end(reason ?? this.outcome);
    } finally {
      await this.release();
    }
  }

  private async release(): Promise<void> {
    try {
      await this.record.conversation.close();
    } finally {
      for (const { name, error } of await this.registry.close())
        this.options.notice(`warning: the tool ${name} did not close: ${messageOf(error)}`);
      await this.mcp?.close();
      await this.sandbox.close();
    }
  }

  private started(opened: OpenedSession | undefined): Promise<void> {
    const info = this.record.startInfo(opened);
    const { env, notice } = this.options;
    const { config, keys } = this.loaded;
    const { commandEnv } = this;
    return this.seams.started({ ...info, env, commandEnv, config, keys, notice, secrets: this.secrets() });
  }

  /** The keys this session knows of (keys.json, the config's, the provider's in use): never to be stored. */
  private secrets(): string[] {
    const { config, keys } = this.loaded;
    const configured = Object.values(config.providers ?? {}).flatMap((p) => [
      p.api_key,
      ...Object.values(p.headers ?? {}),
    ]);
    const all = [...Object.values(keys), config.api_key, this.provider.apiKey, ...configured];
    return all.filter((value): value is string => typeof value === "string" && value !== "");
  }

  /** The end seam of the current session, called once. */
  private async end(reason: SessionEndReason): Promise<void> {
    if (this.endedId === this.id) return;
    this.endedId = this.id;
    await this.seams.ended(this.id, reason);
  }

  private fileModelNow() {
    return { provider: this.provider.id, model: this.model };
  }
}
