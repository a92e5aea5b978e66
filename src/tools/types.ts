import type { ToolSpec } from "../providers/types.ts";

export interface ToolContext {
  /** The workspace root every file path is resolved against. */
  cwd: string;
  /** Directories outside the root that file tools may reach (config `workspace.allow`). */
  allow: string[];
  signal: AbortSignal;
  /**
   * Progress while the tool runs, for a live status line (never sent to the model). Tools call it at
   * most a few times a second; the loop turns each call into a `tool_progress` event.
   */
  onUpdate?(update: ToolUpdate): void;
}

/** What a running tool reports about itself. */
export interface ToolUpdate {
  /** The latest line of its output, raw (front ends make it safe and cut it to fit). */
  output_tail?: string;
}

/** What a front end may show of an outcome besides its text (never sent to the model). */
export interface ToolDisplay {
  /** An edit's unified diff. */
  diff?: string;
  /** A command's exit status (null when it was killed). */
  exitCode?: number | null;
  /** Why a command was stopped before it ended by itself: its time limit or the user. */
  stopped?: { reason: "timeout"; after_ms: number } | { reason: "cancel" };
  /** The call was not run: the permission mode or the user refused it. */
  denied?: boolean;
}

export interface ToolOutcome {
  content: string;
  is_error: boolean;
  display?: ToolDisplay;
}

/** A tool as the agent loop sees it: a spec for the model, whether it only reads, and how to run it. */
export interface AgentTool {
  spec: ToolSpec;
  /** Read-only tools run without approval and in parallel with each other. */
  readOnly: boolean;
  /** Never throws for bad input: invalid arguments come back as an `is_error` outcome the model can act on. */
  execute(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
}

export type ApprovalDecision = "allow" | "deny";

/** Asked before a tool that is not read-only runs (mode `ask`); `auto` always allows, `read` never offers it. */
export type ApproveFn = (call: {
  id: string;
  name: string;
  input: Record<string, unknown>;
}) => Promise<ApprovalDecision>;

/** The argument that says what a call does (`bash` command, file path, search pattern), if it has one. */
export function mainArgument(input: Record<string, unknown>): unknown {
  return input.command ?? input.path ?? input.pattern;
}
