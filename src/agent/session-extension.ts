import type { Env } from "../config/paths.ts";
import type { Config, Keys } from "../config/schema.ts";
import type { Message, TextBlock, ToolUseBlock, UserBlock, UserMessage } from "../providers/types.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "../tools/types.ts";
import { messageOf } from "../util/error-text.ts";
import type { AgentEvent, CompactTrigger, RunResult } from "./events.ts";
import type { AgentDeps } from "./loop.ts";
import type { CallReview, CallReviewer, ToolCallRequest } from "./permissions.ts";

/**
 * The seams of an agent session that extensions plug into (hooks, memory recall, a plan): one object
 * per extension, passed in `SessionOptions.extensions`; several are called in the order given. Neither
 * the session nor the loop knows what an extension does.
 *
 *   sessionStart / sessionEnd   once each per session (a /clear or /resume ends one and starts another)
 *   userPromptSubmit            before a turn's prompt is saved or sent: may refuse it, or add context
 *   turnContext                 per-turn context: computed once, saved as its own user-role message
 *                               before the prompt — a stable prefix for the provider's prompt cache
 *   requestContext              per-request context: recomputed before each model request, placed
 *                               after the conversation, never saved
 *   beforeTurn                  once the prompt is saved, before the turn's first request: may run a
 *                               child agent on the turn's model (the plan's designer)
 *   turnEnd                     after the turn's result was passed on (shown, printed): what the turn
 *                               said and did, e.g. for memory to learn from, off the answer's path
 *   authorize, afterTool, beforeStop, beforeCompact   the loop's seams (see AgentDeps, CallReview)
 */

/** Why a session ended: its work finished, the user or a signal stopped it, or it failed. */
export type SessionEndReason = "done" | "interrupted" | "error";

export interface SessionStartInfo {
  sessionId: string;
  /** An existing session continued (`-c`, `-r`, `/resume`), not a new one. */
  resumed: boolean;
  cwd: string;
  /** The session's environment and configuration (user config with the project's allowed keys). */
  env?: Env;
  /** What commands the session starts inherit (tools/command-env.ts): a hook's environment. */
  commandEnv?: Readonly<Record<string, string>>;
  config?: Config;
  /**
   * Saves an extension's state in the session file (an `extension_state` entry), under the tool call
   * `parentToolUseId` when given (a subagent's transcript); nothing with --no-session.
   */
  saveState?(extension: string, data: unknown, parentToolUseId?: string): Promise<void>;
  /** The latest state `extension` saved in a resumed session (its `data`), or under a tool call; undefined when none. */
  latestState?(extension: string, parentToolUseId?: string): unknown;
  /** One line for the user (stderr for `ion run`, the chat's transcript). */
  notice?(text: string): void;
  /** Values never to be stored or shown: the keys of keys.json, the config's and the provider's keys. */
  secrets?: readonly string[];
  /** keys.json, for an extension that calls a provider of its own (memory's embeddings). */
  keys?: Keys;
}

export interface PromptInfo {
  sessionId: string;
  content: readonly UserBlock[];
  /** The conversation before this prompt, as the model will see it. */
  messages: readonly Message[];
  /** Tokens the model can take, when known. */
  contextWindow?: number | undefined;
}

/**
 * Per-turn context with what the front ends are told about it (memory: how many memories were
 * recalled): the events follow the turn's `init`, they are not saved.
 */
export interface TurnContextPart {
  text: string;
  events?: AgentEvent[];
}

/** A turn that ended: its prompt (the user's blocks, no context), its events (no streaming pieces) and result. */
export interface TurnEndInfo {
  sessionId: string;
  prompt: readonly UserBlock[];
  events: readonly AgentEvent[];
  result: RunResult;
}

/**
 * A turn about to make its first request. `ctx` is a tool call's context for work done before it (a
 * child agent's events carry `ctx.callId` as their parent, its spending rolls into the turn's result).
 */
export interface TurnStartInfo {
  content: readonly UserBlock[];
  /** The session's configuration (user config with the project's allowed keys). */
  config: Config;
  ctx: ToolContext;
  /** One line for the user (stderr for `ion run`, the chat's transcript). */
  notice(text: string): void;
}

/** What `userPromptSubmit` decides: refuse the prompt (the reason is shown to the user), or add context. */
export type PromptVerdict = { refuse: string } | { context: string };

export interface SessionExtension {
  /** Names it: the `source` of the context it adds, and who refused or denied. */
  readonly name: string;
  /**
   * Its per-turn context comes back by itself when needed (recalled memories): a compaction leaves
   * those messages out of the summary instead of turning them into facts of this conversation.
   */
  readonly contextDroppedOnCompact?: boolean;
  /** Tools it adds to the session (registered when the session opens, closed with it). */
  tools?(): AgentTool[];
  sessionStart?(info: SessionStartInfo): Promise<void>;
  sessionEnd?(info: { sessionId: string; reason: SessionEndReason }): Promise<void>;
  userPromptSubmit?(prompt: PromptInfo): Promise<PromptVerdict | undefined>;
  turnContext?(prompt: PromptInfo): Promise<string | TurnContextPart | undefined>;
  requestContext?(messages: readonly Message[]): Promise<string | undefined>;
  beforeTurn?(turn: TurnStartInfo): Promise<void>;
  authorize?(call: ToolCallRequest): Promise<CallReview | undefined>;
  afterTool?(call: ToolUseBlock, outcome: ToolOutcome): Promise<ToolOutcome>;
  beforeStop?(finalText: string): Promise<string | undefined>;
  beforeCompact?(trigger: CompactTrigger): Promise<string | undefined>;
  /** Must return quickly: longer work goes on in the background and is awaited by `sessionEnd`. */
  turnEnd?(turn: TurnEndInfo): Promise<void>;
}

/** A prompt an extension refused: the turn does not happen. */
export interface PromptRefusal {
  by: string;
  reason: string;
}

/** A per-turn context message and the extension it came from. */
export interface TurnContext {
  source: string;
  message: UserMessage;
}

/** How a turn with this result ended, as a reason for the session's end. */
export function endReasonOf(result: RunResult): SessionEndReason {
  if (result.subtype === "error_interrupted") return "interrupted";
  return result.is_error ? "error" : "done";
}

/** The extensions of one session, called in order. */
export class SessionSeams {
  constructor(private readonly extensions: readonly SessionExtension[] = []) {}

  /** The tools the extensions add. */
  tools(): AgentTool[] {
    return this.extensions.flatMap((extension) => extension.tools?.() ?? []);
  }

  async started(info: SessionStartInfo): Promise<void> {
    for (const extension of this.extensions) await extension.sessionStart?.(info);
  }

  /** Every extension hears of the end, even when one before it fails; the first failure is thrown after. */
  async ended(sessionId: string, reason: SessionEndReason): Promise<void> {
    let failure: { error: unknown } | undefined;
    for (const extension of this.extensions) {
      try {
        await extension.sessionEnd?.({ sessionId, reason });
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /**
   * Asks each extension about a prompt, then gathers this turn's context: a refusal stops at once (later
   * extensions are not asked); otherwise one context message per extension that added any.
   */
  async submit(
    prompt: PromptInfo,
  ): Promise<{ refusal: PromptRefusal } | { contexts: TurnContext[]; events: AgentEvent[] }> {
    const texts = new Map<string, string[]>();
    const add = (source: string, text: string | undefined) => {
      if (text?.trim()) texts.set(source, [...(texts.get(source) ?? []), text]);
    };
    for (const extension of this.extensions) {
      const verdict = await extension.userPromptSubmit?.(prompt);
      if (verdict && "refuse" in verdict) return { refusal: { by: extension.name, reason: verdict.refuse } };
      if (verdict) add(extension.name, verdict.context);
    }
    const events: AgentEvent[] = [];
    for (const extension of this.extensions) {
      const part = await extension.turnContext?.(prompt);
      if (typeof part === "object") events.push(...(part.events ?? []));
      add(extension.name, typeof part === "object" ? part.text : part);
    }
    const contexts = [...texts].map(([source, parts]): TurnContext => {
      const content: TextBlock[] = parts.map((text) => ({ type: "text", text }));
      return { source, message: { role: "user", content, context: { source } } };
    });
    return { contexts, events };
  }

  /** The extension of that name, if the session has one (a front end's command for it: `/memory off`). */
  named(name: string): SessionExtension | undefined {
    return this.extensions.find((extension) => extension.name === name);
  }

  /** Whether any extension wants to hear how turns ended. */
  hasTurnEnd(): boolean {
    return this.extensions.some((extension) => extension.turnEnd);
  }

  /** Tells each extension of a turn that ended; a failure is the extension's to report, so it is told and dropped. */
  async turnEnded(turn: TurnEndInfo, notice: (text: string) => void): Promise<void> {
    for (const extension of this.extensions) {
      try {
        await extension.turnEnd?.(turn);
      } catch (error) {
        notice(`warning: ${extension.name}: ${messageOf(error)}`);
      }
    }
  }

  /** Whether any extension works before a turn's first request. */
  hasBeforeTurn(): boolean {
    return this.extensions.some((extension) => extension.beforeTurn);
  }

  async beforeTurn(turn: TurnStartInfo): Promise<void> {
    for (const extension of this.extensions) await extension.beforeTurn?.(turn);
  }

  /** The approval policy's reviewers: the extensions that have a say on tool calls. */
  reviewers(): CallReviewer[] {
    return this.extensions.flatMap((extension) => {
      const { authorize } = extension;
      return authorize ? [{ name: extension.name, review: (call) => authorize.call(extension, call) }] : [];
    });
  }

  /** The loop's seams, each calling every extension that has it (with `stopChecks` first for beforeStop). */
  loopSeams(
    stopChecks: readonly ((finalText: string) => Promise<string | undefined>)[] = [],
  ): Pick<AgentDeps, "afterTool" | "beforeStop" | "beforeCompact" | "contextBlocks" | "droppedOnCompact"> {
    const all = this.extensions;
    const beforeStop = [...stopChecks, ...all.flatMap((e) => (e.beforeStop ? [e.beforeStop.bind(e)] : []))];
    const seams: Pick<
      AgentDeps,
      "afterTool" | "beforeStop" | "beforeCompact" | "contextBlocks" | "droppedOnCompact"
    > = {};
    const dropped = all.filter((e) => e.contextDroppedOnCompact).map((e) => e.name);
    if (dropped.length > 0) seams.droppedOnCompact = new Set(dropped);
    if (beforeStop.length > 0)
      seams.beforeStop = (text) => joined(beforeStop.map((check) => () => check(text)));
    if (all.some((e) => e.afterTool))
      seams.afterTool = async (call, outcome) => {
        let current = outcome;
        for (const e of all) if (e.afterTool) current = await e.afterTool(call, current);
        return current;
      };
    if (all.some((e) => e.beforeCompact))
      seams.beforeCompact = (trigger) => joined(all.map((e) => async () => e.beforeCompact?.(trigger)));
    if (all.some((e) => e.requestContext))
      seams.contextBlocks = async (messages) => {
        const blocks: TextBlock[] = [];
        for (const e of all) {
          const text = await e.requestContext?.(messages);
          if (text?.trim()) blocks.push({ type: "text", text });
        }
        return blocks;
      };
    return seams;
  }
}

/** The texts the calls return, in order, one paragraph each; undefined when none returned any. */
async function joined(calls: (() => Promise<string | undefined>)[]): Promise<string | undefined> {
  const texts: string[] = [];
  for (const call of calls) {
    const text = await call();
    if (text !== undefined) texts.push(text);
  }
  return texts.length > 0 ? texts.join("\n\n") : undefined;
}
