import type { AgentTool, ApproveFn } from "../tools/types.ts";
import { allowedByRules, deniedByRules, type ToolRules } from "./tool-rules.ts";

/**
 * Permission modes: `read` offers only read-only tools; `ask` (the default) runs read-only tools freely
 * and asks before anything that writes or executes; `auto` (-y) runs everything.
 */
export type PermissionMode = "read" | "ask" | "auto";
export const PERMISSION_MODES: readonly PermissionMode[] = ["read", "ask", "auto"];

export function permissionMode(yes: boolean, configured: PermissionMode | undefined): PermissionMode {
  return yes ? "auto" : (configured ?? "ask");
}

/**
 * The tools offered to the model: minus disabled ones (config) and those `--disallowedTools` names, and
 * only read-only ones in mode `read`.
 */
export function offeredTools(
  all: AgentTool[],
  mode: PermissionMode,
  disabled: string[] = [],
  rules?: ToolRules,
): AgentTool[] {
  return all.filter(
    (tool) =>
      !disabled.includes(tool.spec.name) &&
      !(rules && deniedByRules(rules, tool.spec.name)) &&
      (mode !== "read" || tool.readOnly),
  );
}

/** A tool call as the approval decision sees it. */
export interface ToolCallRequest {
  id: string;
  name: string;
  input: Record<string, unknown>;
  readOnly: boolean;
  /** It asks to run outside the session's sandbox (`bash` with `sandbox: false`, the sandbox on). */
  outsideSandbox?: boolean;
}

/** Allowed (with the input to run it with, when a review rewrote it), or denied with what the model is told. */
export type Authorization =
  | { allow: true; input?: Record<string, unknown> }
  | { allow: false; reason: string };

/**
 * An extension's say on a call before the permission mode decides (a PreToolUse hook): "deny" stops
 * it (`reason` is what the model is told), "allow" lets it run without the approval question in mode
 * ask; `input` runs it with other arguments (later reviews and the approver see those). Undefined: no say.
 */
export interface CallReview {
  decision?: "allow" | "deny";
  reason?: string;
  input?: Record<string, unknown>;
}

export interface CallReviewer {
  /** Named in a denial that gives no reason. */
  name: string;
  review: (call: ToolCallRequest) => Promise<CallReview | undefined>;
}

/** Everything that decides whether a tool call runs; `authorizeCall` is the one place that applies it. */
export interface ApprovalPolicy {
  /** Read per call: a chat can change the mode while a turn runs (Shift+Tab). */
  mode: () => PermissionMode;
  /** Claude Code's acceptEdits: in mode ask, file edits run without asking. */
  acceptEdits?: boolean | undefined;
  /** `--allowedTools`: in mode ask, these calls run without asking. */
  toolRules?: ToolRules | undefined;
  /** Asked in mode ask about a write/execute call nothing else allowed; absent: denied at once. */
  approve?: ApproveFn | undefined;
  /** Extensions asked first, in order. */
  reviewers?: readonly CallReviewer[] | undefined;
  /**
   * In mode auto, a call that asks to run outside the sandbox: runs (`sandbox.allow_escalation`), is
   * asked about (a chat), or is denied (a run); default deny. In mode ask it is always asked about.
   */
  escalation?: (() => "allow" | "ask" | "deny") | undefined;
}

/** The file tools Claude Code's `acceptEdits` mode lets through without asking. */
const EDIT_TOOLS: readonly string[] = ["edit_file", "write_file"];

/**
 * The decision on one call: the extensions' reviews (a denial ends it), then the mode — read-only
 * calls run; `auto` runs everything; `read` runs nothing else; `ask` runs what a review, acceptEdits
 * or a tool rule allowed, and asks the approver about the rest (none: denied at once, so a headless
 * run never waits).
 */
export async function authorizeCall(policy: ApprovalPolicy, call: ToolCallRequest): Promise<Authorization> {
  let input = call.input;
  let allowedByReview = false;
  for (const reviewer of policy.reviewers ?? []) {
    const said = await reviewer.review({ ...call, input });
    if (said?.input) input = said.input;
    if (said?.decision === "deny")
      return { allow: false, reason: said.reason ?? `denied by ${reviewer.name}: ${call.name} was not run` };
    if (said?.decision === "allow") allowedByReview = true;
  }
  const allowed: Authorization = input === call.input ? { allow: true } : { allow: true, input };
  const mode = policy.mode();
  if (call.outsideSandbox) return authorizeOutsideSandbox(policy, { ...call, input }, mode, allowed);
  if (call.readOnly || mode === "auto") return allowed;
  if (mode === "ask") {
    const request = { ...call, input };
    if (allowedByReview || preapproved(policy, request)) return allowed;
    const answer = policy.approve ? await policy.approve({ id: call.id, name: call.name, input }) : "deny";
    const verdict = answered(answer, allowed);
    if (verdict) return verdict;
  }
  // Tell the model plainly so it stops retrying and reports what it wanted to do instead.
  const why =
    mode === "read"
      ? "the permission mode is read, so only read-only tools may run"
      : call.name === "web_fetch"
        ? "network tools need the user's approval, and it was not given"
        : "write and execute tools need the user's approval, and it was not given";
  return {
    allow: false,
    reason: `permission denied: ${call.name} was not run: ${why}. Do not retry it; tell the user what you wanted to do.`,
  };
}

/**
 * What an approver's answer decides: "allow" runs the call as it is, an object (a program's
 * `canUseTool`) allows with its input or denies with its message; undefined for a plain "deny", which
 * gets ion's own wording.
 */
function answered(answer: Awaited<ReturnType<ApproveFn>>, allowed: Authorization): Authorization | undefined {
  if (answer === "allow") return allowed;
  if (typeof answer !== "object") return undefined;
  return answer.decision === "allow"
    ? { allow: true, input: answer.input }
    : { allow: false, reason: answer.reason };
}

/**
 * A call that asks to leave the sandbox is never preapproved — not by a hook, `--allowedTools` or an
 * earlier "always" — only the user's yes (or, in mode auto, `sandbox.allow_escalation`) lets it run.
 */
async function authorizeOutsideSandbox(
  policy: ApprovalPolicy,
  call: ToolCallRequest,
  mode: PermissionMode,
  allowed: Authorization,
): Promise<Authorization> {
  const inAuto = mode === "auto" ? (policy.escalation?.() ?? "deny") : undefined;
  if (inAuto === "allow") return allowed;
  const ask = mode === "ask" || inAuto === "ask";
  if (ask && policy.approve) {
    const answer = await policy.approve({
      id: call.id,
      name: call.name,
      input: call.input,
      outsideSandbox: true,
    });
    const verdict = answered(answer, allowed);
    if (verdict) return verdict;
  }
  const why =
    mode === "read"
      ? "the permission mode is read"
      : inAuto === "deny"
        ? "running outside the sandbox in mode auto needs sandbox.allow_escalation: true"
        : "running outside the sandbox needs the user's approval, and it was not given";
  return {
    allow: false,
    reason: `permission denied: ${call.name} was not run outside the sandbox: ${why}. Run it inside the sandbox (without sandbox: false) or tell the user what you wanted to do.`,
  };
}

/** Allowed in mode ask without a question: an edit under acceptEdits, or a call `--allowedTools` names. */
function preapproved(policy: ApprovalPolicy, call: ToolCallRequest): boolean {
  if (policy.acceptEdits === true && EDIT_TOOLS.includes(call.name)) return true;
  return policy.toolRules !== undefined && allowedByRules(policy.toolRules, call);
}

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
