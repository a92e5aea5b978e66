import type { CallReview, ToolCallRequest } from "../agent/permissions.ts";
import type { SessionExtension } from "../agent/session-extension.ts";
import type { UserBlock } from "../providers/types.ts";
import {
  CLAUDE_TOOL_NAMES,
  claudeToolInput as claudeInput,
  ionToolInput as ionInput,
} from "../tools/claude-names.ts";
import { commandEnvironment } from "../tools/command-env.ts";
import type { ToolOutcome } from "../tools/types.ts";
import { type HookCommand, type HookEvent, type HookTable, matchingCommands, parseHooks } from "./config.ts";
import { type HookRun, runHook } from "./run.ts";

/**
 * Claude Code–compatible command hooks as one session extension: each seam that has hooks for its
 * event runs the matching commands in parallel with Claude Code's JSON on stdin, and reads their
 * answers as Claude Code documents them (exit 2 blocks with stderr; exit 0 may print a JSON decision;
 * any other exit is one warning and the run goes on). Seams without hooks are left out: they cost nothing.
 */

export interface HooksContext {
  cwd: string;
  env: Record<string, string | undefined>;
  /** The project's root, as `CLAUDE_PROJECT_DIR` and `ION_PROJECT_DIR`. */
  projectDir: string;
  /** The session file of an id (`transcript_path`). */
  transcriptPath: (sessionId: string) => string;
  /** Claude Code's `permission_mode` name of the session's mode. */
  permissionMode: string;
  /** One line for the user (a hook that failed or timed out). */
  notice: (line: string) => void;
  /** A hook that blocked, failed or timed out, for stream-json's `hook_response` (absent: not reported). */
  onResponse?: ((response: HookResponse) => void) | undefined;
  /**
   * Runs an SDK program's hook callback with the event's payload; its answer is read as a command
   * hook's exit 0 with that JSON on stdout. Given, the sources may hold `{"type": "callback"}` hooks.
   */
  runCallback?:
    | ((hook: HookCommand & { callbackId: string }, payload: string) => Promise<HookRun>)
    | undefined;
}

/** Claude Code's stream-json `{"type":"system","subtype":"hook_response",…}` fields. */
export interface HookResponse {
  hook_name: string;
  hook_event: HookEvent;
  command: string;
  exit_code: number | null;
  outcome: "blocked" | "error" | "timeout";
  stdout: string;
  stderr: string;
  session_id: string;
}

/** A hook's stdout JSON, the fields Claude Code documents. */
interface HookAnswer {
  continue?: boolean;
  stopReason?: string;
  /** A line for the user. */
  systemMessage?: string;
  decision?: string;
  reason?: string;
  hookSpecificOutput?: {
    permissionDecision?: string;
    permissionDecisionReason?: string;
    updatedInput?: Record<string, unknown>;
    additionalContext?: string;
  };
}

interface HookResult extends HookRun {
  /** Exit 0 with a JSON object on stdout. */
  answer: HookAnswer | undefined;
}

function answerOf(run: HookRun): HookAnswer | undefined {
  const text = run.stdout.trim();
  if (run.code !== 0 || !text.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as HookAnswer)
      : undefined;
  } catch {
    // Not JSON after all: its stdout is plain text, as for any other hook.
    return undefined;
  }
}

/** Why a hook blocked: exit 2's stderr, a `decision: "block"`, or `continue: false`; undefined otherwise. */
function blockOf(result: HookResult): string | undefined {
  if (result.code === 2) return result.stderr.trim() || `blocked by hook: ${result.command}`;
  const answer = result.answer;
  if (answer?.decision === "block") return answer.reason ?? `blocked by hook: ${result.command}`;
  if (answer?.continue === false) return answer.stopReason ?? `stopped by hook: ${result.command}`;
  return undefined;
}

/** Context a hook adds: `additionalContext`, or plain stdout on exit 0. */
function contextOf(result: HookResult): string | undefined {
  if (result.answer) return result.answer.hookSpecificOutput?.additionalContext;
  return result.code === 0 && result.stdout.trim() !== "" ? result.stdout.trim() : undefined;
}

function promptText(content: readonly UserBlock[]): string {
  return content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}

const joinTexts = (texts: (string | undefined)[]): string | undefined => {
  const kept = texts.filter((text): text is string => text !== undefined && text.trim() !== "");
  return kept.length > 0 ? kept.join("\n\n") : undefined;
};

/** The hooks extension, with Claude Code's Notification event for a front end's approval question. */
export interface HooksExtension extends SessionExtension {
  /** Runs the Notification hooks (an approval is waiting); undefined when there are none. */
  approvalWaiting?(toolName: string): Promise<void>;
}

export function hooksExtension(
  sources: readonly Record<string, unknown>[],
  ctx: HooksContext,
): HooksExtension {
  const table: HookTable = parseHooks(
    sources,
    (line) => ctx.notice(`warning: ${line}`),
    ctx.runCallback !== undefined,
  );
  const has = (event: HookEvent) => (table.get(event)?.length ?? 0) > 0;
  const projectDirs = { CLAUDE_PROJECT_DIR: ctx.projectDir, ION_PROJECT_DIR: ctx.projectDir };
  // What every command ion starts inherits: the session's (its config's keep/exclude) from its start.
  let env: Record<string, string> = { ...commandEnvironment({ env: ctx.env }), ...projectDirs };
  let sessionId = "";
  let startContext: string | undefined;
  let stopHookActive = false;

  /** Runs the event's matching hooks in parallel; warns once per hook that failed or timed out. */
  async function fire(
    event: HookEvent,
    fields: Record<string, unknown>,
    toolName?: string,
  ): Promise<HookResult[]> {
    const commands = matchingCommands(table, event, toolName);
    if (commands.length === 0) return [];
    const payload = JSON.stringify({
      session_id: sessionId,
      transcript_path: sessionId ? ctx.transcriptPath(sessionId) : "",
      cwd: ctx.cwd,
      permission_mode: ctx.permissionMode,
      hook_event_name: event,
      ...fields,
    });
    const runs = await Promise.all(
      commands.map((hook) =>
        hook.callbackId !== undefined && ctx.runCallback
          ? ctx.runCallback({ ...hook, callbackId: hook.callbackId }, payload)
          : runHook(hook, payload, { cwd: ctx.cwd, env }),
      ),
    );
    return runs.map((run) => {
      const outcome = run.timedOut
        ? "timeout"
        : run.code === 2
          ? "blocked"
          : run.code !== 0
            ? "error"
            : undefined;
      if (outcome)
        ctx.onResponse?.({
          hook_name: toolName === undefined ? event : `${event}:${CLAUDE_TOOL_NAMES[toolName] ?? toolName}`,
          hook_event: event,
          command: run.command,
          exit_code: run.code,
          outcome,
          stdout: run.stdout,
          stderr: run.stderr,
          session_id: sessionId,
        });
      if (run.timedOut) ctx.notice(`warning: ${event} hook timed out and was killed: ${run.command}`);
      else if (run.code !== 0 && run.code !== 2) {
        const why = run.stderr.trim().split("\n")[0] ?? "";
        const how = run.code === null ? "failed" : `exited with ${run.code}`;
        ctx.notice(`warning: ${event} hook ${how}: ${run.command}${why ? ` (${why})` : ""}`);
      }
      const answer = answerOf(run);
      if (typeof answer?.systemMessage === "string") ctx.notice(`${event} hook: ${answer.systemMessage}`);
      return { ...run, answer };
    });
  }

  const extension: HooksExtension = { name: "hooks" };
  // Always: every hook's payload names the session.
  extension.sessionStart = async (info) => {
    sessionId = info.sessionId;
    if (info.commandEnv) env = { ...info.commandEnv, ...projectDirs };
    if (!has("SessionStart")) return;
    const results = await fire("SessionStart", { source: info.resumed ? "resume" : "startup" });
    startContext = joinTexts(results.map(contextOf));
  };
  if (has("SessionStart"))
    // SessionStart's context enters with the first prompt, as a saved context message.
    extension.turnContext = async () => {
      const text = startContext;
      startContext = undefined;
      return text;
    };
  if (has("SessionEnd"))
    extension.sessionEnd = async (info) => {
      await fire("SessionEnd", { reason: info.reason });
    };
  if (has("UserPromptSubmit"))
    extension.userPromptSubmit = async (prompt) => {
      stopHookActive = false;
      const results = await fire("UserPromptSubmit", { prompt: promptText(prompt.content) });
      const refusal = joinTexts(results.map(blockOf));
      if (refusal !== undefined) return { refuse: refusal };
      const context = joinTexts(results.map(contextOf));
      return context === undefined ? undefined : { context };
    };
  if (has("PreToolUse"))
    extension.authorize = async (call: ToolCallRequest): Promise<CallReview | undefined> => {
      const results = await fire(
        "PreToolUse",
        {
          tool_name: CLAUDE_TOOL_NAMES[call.name] ?? call.name,
          tool_input: claudeInput(call.name, call.input),
          tool_use_id: call.id,
        },
        call.name,
      );
      const review: CallReview = {};
      for (const result of results) {
        const said = result.answer?.hookSpecificOutput;
        const blocked = blockOf(result);
        if (blocked !== undefined || said?.permissionDecision === "deny")
          return {
            decision: "deny",
            reason: blocked ?? said?.permissionDecisionReason ?? `denied by hook: ${result.command}`,
          };
        if (said?.updatedInput) review.input = ionInput(call.name, said.updatedInput);
        if (said?.permissionDecision === "allow" || result.answer?.decision === "approve")
          review.decision = "allow";
      }
      return review.decision || review.input ? review : undefined;
    };
  if (has("PostToolUse") || has("PostToolUseFailure"))
    extension.afterTool = async (call, outcome): Promise<ToolOutcome> => {
      if (outcome.metadata?.denied) return outcome;
      const failed = outcome.is_error;
      const base = {
        tool_name: CLAUDE_TOOL_NAMES[call.name] ?? call.name,
        tool_input: claudeInput(call.name, call.input),
        tool_use_id: call.id,
      };
      const results = failed
        ? await fire("PostToolUseFailure", { ...base, error: outcome.content }, call.name)
        : await fire("PostToolUse", { ...base, tool_response: outcome.content }, call.name);
      // The call already ran: what a hook says goes to the model beside its result.
      const said = joinTexts(
        results.map((r) => blockOf(r) ?? r.answer?.hookSpecificOutput?.additionalContext),
      );
      return said === undefined ? outcome : { ...outcome, content: `${outcome.content}\n\n[hook] ${said}` };
    };
  if (has("Stop"))
    extension.beforeStop = async (finalText) => {
      const results = await fire("Stop", {
        stop_hook_active: stopHookActive,
        last_assistant_message: finalText,
      });
      const goOn = joinTexts(
        results.map((r) => (r.code === 2 || r.answer?.decision === "block" ? blockOf(r) : undefined)),
      );
      stopHookActive = goOn !== undefined;
      return goOn;
    };
  if (has("Notification"))
    extension.approvalWaiting = async (toolName) => {
      const name = CLAUDE_TOOL_NAMES[toolName] ?? toolName;
      await fire("Notification", {
        message: `ion needs your permission to use ${name}`,
        notification_type: "permission_prompt",
      });
    };
  if (has("PreCompact"))
    extension.beforeCompact = async (trigger) => {
      await fire("PreCompact", {
        trigger: trigger === "manual" ? "manual" : "auto",
        custom_instructions: null,
      });
      return undefined;
    };
  return extension;
}
