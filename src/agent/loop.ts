import type {
  Message,
  ModelCapabilities,
  ResolvedProvider,
  ResponseSchema,
  StreamFn,
  TextBlock,
  ThinkingLevel,
  ToolUseBlock,
  Usage,
} from "../providers/types.ts";
import type { CommandSandbox } from "../sandbox/command-sandbox.ts";
import { sandboxReport } from "../sandbox/types.ts";
import { currentTools, type ToolSource } from "../tools/registry.ts";
import type { AgentTool, ToolOutcome } from "../tools/types.ts";
import type { AgentEvent, CompactTrigger } from "./events.ts";
import { AgentRun } from "./loop-run.ts";
import type { ApprovalPolicy } from "./permissions.ts";

export interface AgentInput {
  sessionId: string;
  cwd: string;
  provider: ResolvedProvider;
  model: string;
  system: string;
  /** Prior conversation plus the new user message; the loop appends to a copy. */
  messages: Message[];
  thinking: ThinkingLevel;
  /** What the model catalogue knows of the model, passed to the wire (per-model rules). */
  modelInfo?: ModelCapabilities;
  /** The tools offered: a fixed list, or the session's registry asked before every request. */
  tools: ToolSource;
  /** A tool not offered but callable by name (a deferred MCP tool); undefined: none. */
  callable?: (name: string) => AgentTool | undefined;
  /** The MCP servers and whether each connected (stream-json's `init.mcp_servers`). */
  mcpServers?: { name: string; status: string }[];
  permissionMode: "read" | "ask" | "auto";
  /** Directories outside cwd that file tools may reach (config `workspace.allow`). */
  workspaceAllow?: string[];
  /** Where `bash` commands run (absent: unsandboxed, as with `sandbox.mode: off`). */
  sandbox?: CommandSandbox;
  /** The environment commands get (tools/command-env.ts); absent: the tool filters ion's own. */
  commandEnv?: Record<string, string>;
  maxTurns: number;
  signal: AbortSignal;
  /** Names of the skills the model can read (stream-json's `init.skills`). */
  skills?: string[];
  /** Slash commands of the front end (stream-json's `init.slash_commands`). */
  slashCommands?: string[];
  /** Mode ask with file edits allowed (Claude Code's acceptEdits), for `init`. */
  acceptEdits?: boolean;
  /**
   * The model's context window in tokens (config `context_window` › the provider's default). Undefined
   * means unknown: no automatic compaction, only after a context_overflow error.
   */
  contextWindow?: number;
  /** Prices a usage in US dollars; null when the model's prices are unknown (never a guessed 0). */
  price?: (usage: Usage) => number | null;
  /** Share of the window at which the view is compacted before a request (default 0.8). */
  compactThreshold?: number;
  /** The model's output limit in tokens, when known (for `modelUsage`). */
  maxOutputTokens?: number | undefined;
  /** `--max-budget-usd`: no further request once the run's cost (by `price`) has passed it. */
  maxBudgetUsd?: number | undefined;
  /** `--json-schema`: sent with every request of the loop (not with compaction summaries). */
  responseSchema?: ResponseSchema | undefined;
}

export const DEFAULT_COMPACT_THRESHOLD = 0.8;

/**
 * What the loop is given rather than knows: the stream, and the seams extensions plug into (hooks,
 * memory, plan) without the loop's body knowing they exist.
 */
export interface AgentDeps {
  stream: StreamFn;
  /**
   * Decides every call of a known tool with valid arguments (through `authorizeCall`). Default: the
   * input's permission mode alone, with no approver (write/execute calls denied in mode ask).
   */
  approval?: ApprovalPolicy;
  /** After a tool ran (or was refused): may replace or annotate the outcome the model gets. */
  afterTool?: (call: ToolUseBlock, outcome: ToolOutcome) => Promise<ToolOutcome>;
  /**
   * When the model has stopped (no tool calls): text returned here is sent to the model as a user
   * message and the loop goes on (a Stop hook that blocks); undefined lets it stop.
   */
  beforeStop?: (finalText: string) => Promise<string | undefined>;
  /** Before the view is compacted; may add what the summary should focus on. */
  beforeCompact?: (trigger: CompactTrigger) => Promise<string | undefined>;
  /** Sources of context messages a compaction leaves out of its summary (see SessionExtension). */
  droppedOnCompact?: ReadonlySet<string>;
  /**
   * Context for the next request only (the plan): text blocks added after the conversation in that
   * request, never saved as part of it.
   */
  contextBlocks?: (messages: readonly Message[]) => Promise<TextBlock[]>;
  now?: () => number;
  log?: (line: string) => void;
}

/**
 * The agent loop: send context → stream → run tool calls → append results → repeat, until the model
 * stops, --max-turns is reached or the signal fires. Always ends with exactly one `result` event.
 */
export async function* runAgent(input: AgentInput, deps: AgentDeps): AsyncGenerator<AgentEvent> {
  const run = new AgentRun(input, deps);
  yield {
    type: "init",
    session_id: input.sessionId,
    cwd: input.cwd,
    provider: input.provider.id,
    model: input.model,
    tools: currentTools(input.tools).map((t) => t.spec.name),
    mcp_servers: input.mcpServers ?? [],
    skills: input.skills ?? [],
    permission_mode: input.permissionMode,
    slash_commands: input.slashCommands ?? [],
    ...(input.acceptEdits ? { accept_edits: true } : {}),
    key_source: input.provider.keySource.replace(/^env /, ""),
    ...(input.sandbox ? { sandbox: sandboxReport(input.sandbox.current) } : {}),
    context_window: input.contextWindow ?? null,
  };
  while (yield* run.step()) {
    // Each step is one model request and what follows from it.
  }
  yield { type: "result", result: run.result() };
}
