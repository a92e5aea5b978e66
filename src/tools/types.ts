// Type-only: the events a child agent emits are the session's own event type (no runtime import).
import type { AgentEvent } from "../agent/events.ts";
import type { AgentDeps, AgentInput } from "../agent/loop.ts";
import type { ToolSpec, Usage } from "../providers/types.ts";
import type { CommandSandbox } from "../sandbox/command-sandbox.ts";

/** An event of a child agent (a subagent run by a tool call); its run's `result` is reported as usage instead. */
export type ChildEvent = Exclude<AgentEvent, { type: "result" }>;

export interface ToolContext {
  /** The workspace root every file path is resolved against. */
  cwd: string;
  /** Directories outside the root that file tools may reach (config `workspace.allow`). */
  allow: string[];
  signal: AbortSignal;
  /** The session's sandbox for commands (`bash`); absent: commands run unsandboxed. */
  sandbox?: CommandSandbox;
  /** The environment commands get, without provider keys or secret-like names (tools/command-env.ts). */
  commandEnv?: Record<string, string>;
  /** This call's id (the model's tool_use id): a child agent's events name it as their parent. */
  callId: string;
  /** The session the call belongs to. */
  sessionId: string;
  /**
   * Progress while the tool runs, for a live status line (never sent to the model). Tools call it at
   * most a few times a second; the loop turns each call into a `tool_progress` event.
   */
  onUpdate?(update: ToolUpdate): void;
  /**
   * Passes an event of a child agent into the session's event stream, marked with this call's id as
   * its `parent_tool_use_id` (an event that already names a parent keeps it). Front ends show it as
   * the child's; it is never part of the parent's conversation. Events after the call returned are dropped.
   */
  emit?(event: ChildEvent): void;
  /**
   * Adds what a child agent spent to this run: its tokens to the result's `usage`, its cost to
   * `total_cost_usd` (null: its price is unknown, so the run's total is too), and, with `model`, an
   * entry of its own in `modelUsage`.
   */
  reportUsage?(usage: Usage, costUSD: number | null, model?: ChildModel): void;
  /** The run this call belongs to (its model, tools, approval): what a child agent inherits. */
  parent?: { input: AgentInput; deps: AgentDeps };
}

/** The model a child agent used, for its `modelUsage` entry. */
export interface ChildModel {
  provider: string;
  model: string;
  contextWindow?: number | null;
  maxOutputTokens?: number | null;
}

/** What a running tool reports about itself. */
export interface ToolUpdate {
  /** The latest line of its output, raw (front ends make it safe and cut it to fit). */
  output_tail?: string;
}

/** What a front end may show of an outcome besides its text (never sent to the model). */
export interface ToolMetadata {
  /** A short line saying what the call did, shown on its result line in place of the default. */
  title?: string;
  /** Facts a particular tool reports for front ends that know it (JSON-serialisable). */
  details?: Readonly<Record<string, unknown>>;
  /** An edit's unified diff. */
  diff?: string;
  /** A command's exit status (null when it was killed). */
  exitCode?: number | null;
  /** Why a command was stopped before it ended by itself: its time limit or the user. */
  stopped?: { reason: "timeout"; after_ms: number } | { reason: "cancel" };
  /** The call was not run: the permission mode, the user or an extension refused it. */
  denied?: boolean;
  /** The extension whose review refused the call (`hooks`: a PreToolUse hook); absent: the mode or the user. */
  deniedBy?: string;
}

export interface ToolOutcome {
  content: string;
  is_error: boolean;
  metadata?: ToolMetadata;
}

/**
 * Whether a call only reads: a tool that always or never does says so once; one that depends on its
 * input (a command, a query) decides per call. It is given the model's raw input; one that throws
 * counts as not read-only.
 */
export type ReadOnlyRule = boolean | ((input: Record<string, unknown>) => boolean);

/** A tool as the agent loop sees it: a spec for the model, whether a call only reads, and how to run it. */
export interface AgentTool {
  spec: ToolSpec;
  /** Read-only calls run without approval and in parallel with each other. */
  readOnly: ReadOnlyRule;
  /** Never throws for bad input: invalid arguments come back as an `is_error` outcome the model can act on. */
  execute(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
  /** Releases what the tool holds (a process, a connection); called once, when its session closes. */
  close?(): Promise<void>;
}

/** Whether this call of `tool` only reads. */
export function isReadOnly(tool: Pick<AgentTool, "readOnly">, input: Record<string, unknown>): boolean {
  if (typeof tool.readOnly !== "function") return tool.readOnly;
  try {
    return tool.readOnly(input);
  } catch {
    // A rule that cannot judge this input must not let the call skip approval: it counts as writing.
    return false;
  }
}

/**
 * A plain yes or no; or, from a program's approver (the Claude Agent SDK's canUseTool), yes with the
 * input to run the call with, or no with what the model is told.
 */
export type ApprovalDecision =
  | "allow"
  | "deny"
  | { decision: "allow"; input: Record<string, unknown> }
  | { decision: "deny"; reason: string };

/** Asked before a tool that is not read-only runs (mode `ask`); `auto` always allows, `read` never offers it. */
export type ApproveFn = (call: {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** The call asks to run outside the sandbox: asked every time, never covered by "always". */
  outsideSandbox?: boolean;
}) => Promise<ApprovalDecision>;

/** Whether a call asks to run outside the session's sandbox (`bash` with `sandbox: false`). */
export function asksOutsideSandbox(name: string, input: Record<string, unknown>): boolean {
  return name === "bash" && input.sandbox === false;
}

/** The argument that says what a call does (`bash` command, file path, search pattern, URL), if it has one. */
export function mainArgument(input: Record<string, unknown>): unknown {
  return input.command ?? input.path ?? input.pattern ?? input.url;
}
