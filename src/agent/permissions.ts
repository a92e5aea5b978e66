import type { AgentTool, ApproveFn } from "../tools/types.ts";

/**
 * Permission modes: `read` offers only read-only tools; `ask` (the default) runs read-only tools freely
 * and asks before anything that writes or executes; `auto` (-y) runs everything.
 */
export type PermissionMode = "read" | "ask" | "auto";
export const PERMISSION_MODES: readonly PermissionMode[] = ["read", "ask", "auto"];

export function permissionMode(yes: boolean, configured: PermissionMode | undefined): PermissionMode {
  return yes ? "auto" : (configured ?? "ask");
}

/** The tools offered to the model: minus disabled ones, and only read-only ones in mode `read`. */
export function offeredTools(all: AgentTool[], mode: PermissionMode, disabled: string[] = []): AgentTool[] {
  return all.filter((tool) => !disabled.includes(tool.spec.name) && (mode !== "read" || tool.readOnly));
}

/** A tool call as `authorize` sees it. */
export interface ToolCallRequest {
  id: string;
  name: string;
  input: Record<string, unknown>;
  readOnly: boolean;
}

/** Allowed (with the input to run it with, when a seam rewrote it), or denied with what the model is told. */
export type Authorization =
  | { allow: true; input?: Record<string, unknown> }
  | { allow: false; reason: string };

export type AuthorizeFn = (call: ToolCallRequest) => Promise<Authorization>;

/**
 * The permission mode's decision: read-only tools run; in `auto` everything runs; in `ask` the
 * approver decides (no approver: denied at once, so a headless run never waits). `mode` is read per
 * call because a chat can change it between turns.
 */
export function createAuthorizer(
  mode: () => PermissionMode,
  approve?: ApproveFn,
  preapproved?: (call: ToolCallRequest) => boolean,
): AuthorizeFn {
  return async (call) => {
    const current = mode();
    if (call.readOnly || current === "auto") return { allow: true };
    if (current === "ask" && preapproved?.(call)) return { allow: true };
    if (current === "ask" && approve) {
      const answer = await approve({ id: call.id, name: call.name, input: call.input });
      if (answer === "allow") return { allow: true };
    }
    // Tell the model plainly so it stops retrying and reports what it wanted to do instead.
    const why =
      current === "read"
        ? "the permission mode is read, so only read-only tools may run"
        : "write and execute tools need the user's approval, and it was not given";
    return {
      allow: false,
      reason: `permission denied: ${call.name} was not run: ${why}. Do not retry it; tell the user what you wanted to do.`,
    };
  };
}

/** The file tools Claude Code's `acceptEdits` mode lets through without asking. */
export const EDIT_TOOLS: readonly string[] = ["edit_file", "write_file"];

/**
 * Claude Code's `--permission-mode` values in ion's terms: plan → read, default → ask,
 * bypassPermissions → auto, acceptEdits → ask with file edits allowed. ion's own names are accepted too.
 */
export function fromClaudeMode(value: string): { mode: PermissionMode; acceptEdits: boolean } | undefined {
  switch (value) {
    case "read":
    case "plan":
      return { mode: "read", acceptEdits: false };
    case "ask":
    case "default":
      return { mode: "ask", acceptEdits: false };
    case "auto":
    case "bypassPermissions":
      return { mode: "auto", acceptEdits: false };
    case "acceptEdits":
      return { mode: "ask", acceptEdits: true };
    default:
      return undefined;
  }
}
