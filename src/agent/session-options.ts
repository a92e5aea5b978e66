import type { Env } from "../config/paths.ts";
import type { TrustDecision } from "../config/trust.ts";
import type { SdkServerDefinition } from "../mcp/config.ts";
import type { ThinkingLevel, Usage } from "../providers/types.ts";
import { addUsage, emptyUsage } from "../providers/types.ts";
import type { SandboxMode } from "../sandbox/types.ts";
import type { ApproveFn } from "../tools/types.ts";
import type { PermissionMode } from "./permissions.ts";
import type { SessionExtension } from "./session-extension.ts";
import type { SessionChoice } from "./session-file.ts";
import type { OutputSchema } from "./structured-output.ts";
import type { ToolRules } from "./tool-rules.ts";

/** Whether the project is trusted, and what it would run (its `.mcp.json` servers as read, for the MCP client). */
export type ProjectTrust = Pick<TrustDecision, "trusted" | "project">;

/** What an agent session is opened with: the front end's flags and callbacks. */
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
  /** A Claude Agent SDK program's in-process MCP servers (`createSdkMcpServer`). */
  programMcpServers?: readonly SdkServerDefinition[] | undefined;
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
  /** `--sandbox MODE`: overrides config `sandbox.mode` for this session. */
  sandboxMode?: SandboxMode | undefined;
  /**
   * In mode auto, a call asking to run outside the sandbox when `sandbox.allow_escalation` is not true:
   * asked about (a chat) or denied (a run, the default).
   */
  escalationInAuto?: "ask" | "deny";
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
  /** Hooks, memory, a plan…: called at the session's seams, in this order (see session-extension.ts). */
  extensions?: readonly SessionExtension[] | undefined;
  /**
   * The project trust gate's decision (config/trust.ts): when trusted, the project's config may set
   * what needs trust, and its MCP servers and hooks load. Absent: untrusted, and the config's warning
   * names what needs trust.
   */
  projectTrust?: ProjectTrust | undefined;
}

/** What a session has spent in this process, for `/cost` and the status line. */
export interface SessionTotals {
  usage: Usage;
  /** null once any turn's price was unknown. */
  costUSD: number | null;
  /** The turns whose price was known, summed; `unpriced` counts the others (a price can be learned mid-chat). */
  pricedUSD: number;
  /** How many turns had a known price. */
  priced: number;
  unpriced: number;
  turns: number;
  apiMs: number;
}

export function emptyTotals(): SessionTotals {
  return { usage: emptyUsage(), costUSD: 0, pricedUSD: 0, priced: 0, unpriced: 0, turns: 0, apiMs: 0 };
}

/** Adds a turn's (or a compaction's) spending to the session's totals. */
export function addToTotals(
  totals: SessionTotals,
  spent: { usage: Usage; total_cost_usd: number | null; num_turns: number; duration_api_ms: number },
): void {
  totals.usage = addUsage(totals.usage, spent.usage);
  totals.costUSD =
    totals.costUSD === null || spent.total_cost_usd === null ? null : totals.costUSD + spent.total_cost_usd;
  if (spent.total_cost_usd === null) totals.unpriced++;
  else {
    totals.pricedUSD += spent.total_cost_usd;
    totals.priced++;
  }
  totals.turns += spent.num_turns;
  totals.apiMs += spent.duration_api_ms;
}
