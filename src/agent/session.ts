import { loadConfig } from "../config/load.ts";
import { dataDir, type Env } from "../config/paths.ts";
import { resolveThinking } from "../config/resolve.ts";
import type { Config, Keys, Layer } from "../config/schema.ts";
import type { BuiltSystemPrompt } from "../context/system-prompt.ts";
import { IonError } from "../errors.ts";
import { type LoadedSession, SessionInUseError, SessionStore } from "../history/store.ts";
import { imageRefusal } from "../providers/image.ts";
import { streamProvider } from "../providers/index.ts";
import type {
  ModelCapabilities,
  ResolvedProvider,
  ThinkingLevel,
  Usage,
  UserBlock,
  UserMessage,
} from "../providers/types.ts";
import { addUsage, emptyUsage } from "../providers/types.ts";
import type { Skill } from "../skills/types.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { AgentTool, ApproveFn } from "../tools/types.ts";
import { messageOf } from "../util/error-text.ts";
import { checkBudgetPriced } from "./budget.ts";
import { runCompaction } from "./compact-run.ts";
import { Conversation } from "./conversation.ts";
import { type AgentEvent, failedResult } from "./events.ts";
import { ModelFallback, resolveFallback } from "./fallback.ts";
import { type AgentDeps, DEFAULT_COMPACT_THRESHOLD, runAgent } from "./loop.ts";
import { offeredTools, type PermissionMode, permissionMode } from "./permissions.ts";
import {
  checkChoice,
  chooseSession,
  expireSessions,
  type OpenedSession,
  openSession,
  type SessionChoice,
  sessionTitle,
} from "./session-file.ts";
import type { SessionPrompt } from "./session-prompt.ts";
import {
  type ModelTarget,
  oversized,
  promptText,
  resolveTarget,
  saveError,
  sessionParts,
} from "./session-setup.ts";
import { type OutputSchema, SchemaCheck, schemaInstructions } from "./structured-output.ts";
import { usageTotal } from "./tokens.ts";
import type { ToolRules } from "./tool-rules.ts";

/**
 * The agent session: everything a conversation needs, prepared once — configuration, provider and
 * model, the model's facts, tools, permission mode, system prompt, the session file — and `turn()`
 * many times. `ion run` is one turn of it, `ion chat` many; model, thinking, mode and preamble can
 * change between turns. It owns the conversation (through `Conversation`), and saving is a sink
 * beside the loop: each event is on disk before it is passed on.
 */

export interface SessionOptions {
  cwd: string;
  env: Env;
  /** `-m provider/model`; otherwise a resumed session's model, else the configured one. */
  model?: string | undefined;
  thinking?: ThinkingLevel | undefined;
  /** `--system`: replaces the configured preamble. */
  system?: string | undefined;
  /** -y: permission mode auto. */
  yes: boolean;
  /** --no-tools: offer no tools. */
  noTools: boolean;
  maxTurns: number;
  choice: SessionChoice;
  /** The id a new session gets (known before it is created, so failures can name it). */
  newId: string;
  /** Approves write/execute calls in mode `ask`; absent: they are denied at once. */
  approve?: ApproveFn | undefined;
  /** One-line notices for the user (resumed or repaired sessions, config warnings). */
  notice: (line: string) => void;
  /** SDK and debug output (-v); silent when absent. */
  log?: ((line: string) => void) | undefined;
  /** With no model configured anywhere: runs the first-run flow, or throws the commands to run. */
  ensureModel?: (() => Promise<void>) | undefined;
  /** A chat skips a latest session that another ion holds (starting a new one) instead of failing. */
  skipBusyLatest?: boolean;
  /** `--skill NAME`: a skill whose instructions go into the system prompt from the first turn. */
  skill?: string | undefined;
  /** `--permission-mode`: overrides -y and the configured mode. */
  mode?: PermissionMode | undefined;
  /** Claude Code's acceptEdits: in mode ask, file edits run without asking. */
  acceptEdits?: boolean;
  /** `--allowedTools` / `--disallowedTools`: run without asking / not offered, for this session only. */
  toolRules?: ToolRules | undefined;
  /** `--add-dir`: directories the file tools may reach besides config's `workspace.allow`. */
  addDirs?: string[] | undefined;
  /** `--append-system-prompt`: text after the preamble. */
  appendSystem?: string | undefined;
  /** `--max-budget-usd`: refused when the model's prices are unknown. */
  maxBudgetUsd?: number | undefined;
  /** `--json-schema`: the final answer must be JSON valid against it. */
  outputSchema?: OutputSchema | undefined;
  /** `--fallback-model provider/model`: where a run goes on when the model is overloaded or unknown. */
  fallbackModel?: string | undefined;
}

/** What a session has spent in this process, for `/cost` and the status line. */
export interface SessionTotals {
  usage: Usage;
  /** null once any turn's price was unknown. */
  costUSD: number | null;
  /** The turns whose price was known, summed; `unpriced` counts the others (a price can be learned mid-chat). */
  pricedUSD: number;
  unpriced: number;
  turns: number;
  apiMs: number;
}

export class AgentSession {
  private config: Config;
  private sources: Record<string, Layer>;
  private keys: Keys;
  private target: ModelTarget;
  private conversation: Conversation;
  /** The provider/model the session file last recorded; a turn with another records a model change. */
  private fileModel: { provider: string; model: string } | undefined;
  private sessionId: string;
  private lastUsage: Usage | undefined;
  /** The session's tools, asked before every request; closed with the session. */
  readonly registry: ToolRegistry;
  private readonly prompt: SessionPrompt;
  readonly totals: SessionTotals = {
    usage: emptyUsage(),
    costUSD: 0,
    pricedUSD: 0,
    unpriced: 0,
    turns: 0,
    apiMs: 0,
  };
  thinking: ThinkingLevel;
  mode: PermissionMode;
  /** The configured preamble, or `--system` / a chat's override. */
  preamble: string | undefined;
  readonly resumed: OpenedSession | undefined;
  /** Provider notices already said to the user. */
  private readonly noticesTold = new Set<string>();
  /** `--fallback-model`, resolved when the session opened. */
  private fallbackTarget: ModelTarget | undefined;

  private constructor(
    private readonly options: SessionOptions,
    loaded: { config: Config; sources: Record<string, Layer>; keys: Keys },
    target: ModelTarget,
    private readonly store: SessionStore | undefined,
    opened: OpenedSession | undefined,
    parts: { builtins: AgentTool[]; prompt: SessionPrompt },
  ) {
    this.config = loaded.config;
    this.sources = loaded.sources;
    this.keys = loaded.keys;
    this.target = target;
    this.resumed = opened;
    this.sessionId = opened?.id ?? options.newId;
    this.conversation = new Conversation(opened?.writer, opened?.view);
    this.fileModel = opened?.lastModel;
    this.thinking = resolveThinking(loaded.config, options.thinking);
    this.mode = options.mode ?? permissionMode(options.yes, loaded.config.permissions?.mode);
    const preamble = options.system ?? loaded.config.preamble;
    this.preamble = options.appendSystem
      ? [preamble, options.appendSystem].filter(Boolean).join("\n\n")
      : preamble;
    this.registry = new ToolRegistry(parts.builtins);
    this.prompt = parts.prompt;
  }

  /** Loads config, picks and opens the session file, resolves the model. Throws IonError for what the user must fix. */
  static async open(options: SessionOptions): Promise<AgentSession> {
    checkChoice(options.choice);
    const { cwd, env, notice } = options;
    let loaded = await loadConfig({ cwd, env });
    for (const warning of loaded.warnings) notice(`warning: ${warning}`);

    const store = options.choice.noSession ? undefined : SessionStore.forDataDir(dataDir(env));
    if (store) await expireSessions(store, dataDir(env), loaded.config.history?.retention_days ?? 30, notice);
    let opened: OpenedSession | undefined;
    try {
      const id = store && (await chooseSession(store, options.choice, cwd, notice, options.skipBusyLatest));
      if (store && id) opened = await openSession(store, id, notice);
    } catch (err) {
      // A chat opening the latest session that another ion still holds starts a new one instead.
      if (
        !(options.skipBusyLatest && options.choice.resume === undefined && err instanceof SessionInUseError)
      )
        throw err;
      notice(`${err.message}; starting a new session`);
    }
    try {
      // A resumed session keeps the model it was held with unless -m says otherwise.
      const spec =
        options.model ??
        // A session saved by a run that failed before it had a model records none ("").
        (opened?.lastModel.provider ? `${opened.lastModel.provider}/${opened.lastModel.model}` : undefined);
      if (spec === undefined && !loaded.config.model && options.ensureModel) {
        await options.ensureModel();
        loaded = await loadConfig({ cwd, env });
      }
      const target = await resolveTarget(loaded, spec, env, options.model !== undefined);
      for (const warning of target.facts.warnings ?? []) notice(`warning: ${warning}`);
      const parts = await sessionParts(options, loaded.config);
      const fallback =
        options.fallbackModel === undefined
          ? undefined
          : await resolveFallback(loaded, options.fallbackModel, env, target);
      if (options.maxBudgetUsd !== undefined)
        for (const t of fallback ? [target, fallback] : [target])
          checkBudgetPriced(t.facts.price, `${t.provider.id}/${t.model}`);
      const session = new AgentSession(options, loaded, target, store, opened, parts);
      session.fallbackTarget = fallback;
      if (options.skill !== undefined) await session.activateSkill(options.skill);
      return session;
    } catch (err) {
      await opened?.writer.close();
      throw err;
    }
  }

  get id(): string {
    return this.sessionId;
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
    return this.config;
  }

  /** Whether this session saves anything (`--no-session` does not). */
  get saving(): boolean {
    return this.store !== undefined;
  }

  /** Tokens the next request starts from: the last request's whole input and output, when reported. */
  get contextUsed(): number | undefined {
    return this.lastUsage && usageTotal(this.lastUsage) > 0 ? usageTotal(this.lastUsage) : undefined;
  }

  /** The messages the model sees now. */
  messages() {
    return this.conversation.messages();
  }

  tools(): AgentTool[] {
    if (this.options.noTools) return [];
    const denied = [...(this.options.toolRules?.deny ?? [])];
    const disabled = [...(this.config.tools?.disabled ?? []), ...denied];
    return offeredTools(this.registry.offered(), this.mode, disabled);
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
    const { contextBreakdown } = await import("../context/breakdown.ts");
    return contextBreakdown({
      prompt: this.buildPrompt(),
      tools: this.tools().map((t) => t.spec),
      messages: this.messages(),
      contextWindow: this.contextWindow,
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
    this.target = await resolveTarget(
      { config: this.config, sources: this.sources, keys: this.keys },
      spec,
      this.options.env,
      true,
    );
    for (const warning of this.target.facts.warnings ?? []) this.options.notice(`warning: ${warning}`);
    this.lastUsage = undefined;
  }

  /**
   * One user message and everything the agent does about it, as events; always ends with one
   * `result`. Failing to save the user's message throws (nothing was sent); failing to save later
   * stops the turn, and the result says why.
   */
  async *turn(content: UserBlock[], signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const message: UserMessage = { role: "user", content };
    const tooLarge = oversized(message, {
      system: this.systemPrompt(),
      tools: this.tools().map((t) => t.spec),
      window: this.contextWindow,
      label: `${this.provider.id}/${this.model}`,
    });
    if (tooLarge) throw tooLarge;
    const blind = imageRefusal(content, this.modelCapabilities, `${this.provider.id}/${this.model}`);
    if (blind) throw blind;
    try {
      await this.ensureFile(promptText(content));
      const { provider, model } = this;
      if (this.fileModel && (this.fileModel.provider !== provider.id || this.fileModel.model !== model))
        this.conversation.modelChanged(provider.id, model);
      await this.conversation.addUser(message);
      if (this.conversation.saving) this.fileModel = { provider: provider.id, model };
    } catch (err) {
      throw saveError(err);
    }

    const stop = new AbortController();
    let saveFailure: IonError | undefined;
    const { outputSchema } = this.options;
    const schemaCheck = outputSchema ? new SchemaCheck(outputSchema) : undefined;
    const fallback = this.fallbackTarget
      ? new ModelFallback(this.target, this.fallbackTarget, streamProvider, this.options.notice)
      : undefined;
    const events = runAgent(
      {
        sessionId: this.id,
        cwd: this.options.cwd,
        provider: this.provider,
        model: this.model,
        system: outputSchema
          ? `${this.systemPrompt()}\n\n${schemaInstructions(outputSchema)}`
          : this.systemPrompt(),
        messages: this.conversation.messages(),
        contextWindow: this.contextWindow,
        price: fallback?.price ?? this.target.facts.price,
        maxOutputTokens: this.target.facts.maxOutput,
        maxBudgetUsd: this.options.maxBudgetUsd,
        responseSchema: outputSchema && { name: outputSchema.name, schema: outputSchema.schema },
        compactThreshold: this.config.history?.compact_threshold ?? DEFAULT_COMPACT_THRESHOLD,
        thinking: this.thinking,
        ...(this.target.facts.capabilities ? { modelInfo: this.target.facts.capabilities } : {}),
        tools: () => this.tools(),
        permissionMode: this.mode,
        workspaceAllow: [...(this.config.workspace?.allow ?? []), ...(this.options.addDirs ?? [])],
        maxTurns: this.options.maxTurns,
        signal: AbortSignal.any([signal, stop.signal]),
        skills: this.tools().some((t) => t.spec.name === "skill") ? this.availableSkills() : [],
        acceptEdits: this.options.acceptEdits === true && this.mode === "ask",
      },
      this.deps(fallback?.stream, schemaCheck?.beforeStop),
    );
    for await (const event of events) {
      // A child agent's events (a subagent run by a tool call) are shown, never part of this conversation.
      const child = event.type !== "result" && event.parent_tool_use_id !== undefined;
      if (!saveFailure && !child) {
        try {
          // Saved before it is shown: a step the user sees as complete is already on disk.
          await this.conversation.record(event);
        } catch (err) {
          saveFailure = saveError(err);
          stop.abort();
        }
      }
      if (event.type === "result") {
        let result = saveFailure ? failedResult(event.result, [saveFailure.message]) : event.result;
        if (fallback) result = fallback.finish(result);
        if (schemaCheck) result = schemaCheck.finish(result);
        this.count(result);
        yield { type: "result", result };
        continue;
      }
      if (event.type === "notice") {
        // A provider's note (a thinking level mapped or ignored) is worth saying once a session.
        if (!this.noticesTold.has(event.text)) this.options.notice(`note: ${event.text}`);
        this.noticesTold.add(event.text);
        continue;
      }
      if (event.type === "assistant" && !child) this.lastUsage = event.usage;
      if (event.type === "compact_boundary" && !child) this.lastUsage = undefined;
      yield event;
    }
  }

  /**
   * `/compact [focus]`: summarises the older part of the conversation now. Yields the
   * compact_boundary (recorded first); throws IonError when there is nothing to compact yet.
   */
  async *compact(focus: string | undefined, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const messages = this.conversation.messages();
    if (!messages.some((m) => m.role === "assistant"))
      throw new IonError("usage", "nothing to compact yet: the conversation has no answer");
    const done = await runCompaction({
      messages,
      system: this.systemPrompt(),
      tools: this.tools().map((t) => t.spec),
      provider: this.provider,
      model: this.model,
      stream: streamProvider,
      signal,
      window: this.contextWindow,
      trigger: "manual",
      focus,
      tokensBefore: this.contextUsed,
      price: (usage) => this.target.facts.price(usage),
      log: this.options.log,
    });
    // The summary requests cost money even when the compaction is not applied.
    this.count({
      usage: done.usage,
      total_cost_usd: done.costUSD,
      num_turns: 0,
      duration_api_ms: done.apiMs,
    });
    if (!done.boundary) return;
    await this.conversation.record(done.boundary);
    this.lastUsage = undefined;
    yield done.boundary;
  }

  /** `/clear`: a new, empty session from the next turn on; the old one stays saved. */
  async clear(): Promise<void> {
    await this.conversation.close();
    this.conversation = new Conversation(undefined);
    this.sessionId = Bun.randomUUIDv7();
    this.fileModel = undefined;
    this.lastUsage = undefined;
  }

  /**
   * `/resume ID`: continues another saved session (id or unique prefix) with the model it was held
   * with. Returns how many messages it has. The current session is released only once the other opened.
   */
  async resume(prefix: string): Promise<OpenedSession> {
    if (!this.store) throw new IonError("usage", "this chat saves nothing (--no-session): nothing to resume");
    const id = await this.store.resolveId(prefix);
    if (id === this.sessionId) throw new IonError("usage", `session ${id} is the current one`);
    const opened = await openSession(this.store, id, this.options.notice);
    if (!opened) throw new IonError("io", `session ${id} could not be read`);
    try {
      const { provider, model } = opened.lastModel;
      await this.setModel(`${provider}/${model}`).catch((err: unknown) => {
        const why = messageOf(err);
        this.options.notice(`keeping ${this.provider.id}/${this.model}: ${why}`);
      });
    } finally {
      await this.conversation.close();
    }
    this.conversation = new Conversation(opened.writer, opened.view);
    this.sessionId = opened.id;
    this.fileModel = opened.lastModel;
    this.lastUsage = undefined;
    return opened;
  }

  /** The current session as saved (read-only, no lock); undefined before its first turn or with --no-session. */
  async load(): Promise<LoadedSession | undefined> {
    if (!this.store || !this.conversation.saving) return undefined;
    return this.store.load(this.sessionId);
  }

  /** What the model catalogue needs to list this configuration's models. */
  catalogInputs(): { config: Config; keys: Keys; env: Env } {
    return { config: this.config, keys: this.keys, env: this.options.env };
  }

  /** Saved sessions, newest first (for `/sessions` and the `/resume` picker). */
  async listSessions(onlyHere = false) {
    if (!this.store) return [];
    return this.store.list(onlyHere ? { cwd: this.options.cwd } : {});
  }

  /** Releases the session file's lock and closes the tools (a tool that fails to close is told, not thrown). */
  async close(): Promise<void> {
    try {
      await this.conversation.close();
    } finally {
      for (const { name, error } of await this.registry.close())
        this.options.notice(`warning: the tool ${name} did not close: ${messageOf(error)}`);
    }
  }

  /** `stream` and `beforeStop` of this turn: the fallback's stream, the schema check. */
  private deps(
    stream: AgentDeps["stream"] = streamProvider,
    beforeStop?: AgentDeps["beforeStop"],
  ): AgentDeps {
    return {
      stream,
      ...(beforeStop ? { beforeStop } : {}),
      approval: {
        mode: () => this.mode,
        acceptEdits: this.options.acceptEdits,
        toolRules: this.options.toolRules,
        approve: this.options.approve,
      },
      ...(this.options.log ? { log: this.options.log } : {}),
    };
  }

  private count(result: {
    usage: Usage;
    total_cost_usd: number | null;
    num_turns: number;
    duration_api_ms: number;
  }) {
    const totals = this.totals;
    totals.usage = addUsage(totals.usage, result.usage);
    totals.costUSD =
      totals.costUSD === null || result.total_cost_usd === null
        ? null
        : totals.costUSD + result.total_cost_usd;
    if (result.total_cost_usd === null) totals.unpriced++;
    else totals.pricedUSD += result.total_cost_usd;
    totals.turns += result.num_turns;
    totals.apiMs += result.duration_api_ms;
  }

  /** A new session's file is created with its first turn (an empty chat leaves nothing behind). */
  private async ensureFile(prompt: string): Promise<void> {
    if (!this.store || this.conversation.saving) return;
    const writer = await this.store.create({
      id: this.sessionId,
      cwd: this.options.cwd,
      provider: this.provider.id,
      model: this.model,
      title: sessionTitle(prompt),
    });
    this.conversation.attach(writer);
    this.fileModel = { provider: this.provider.id, model: this.model };
  }
}
