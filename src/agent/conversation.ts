import type { SessionWriter } from "../history/store.ts";
import { dropDanglingToolUse, type ModelView, summaryMessage } from "../history/view.ts";
import type { Message, StopReason, Usage, UserMessage } from "../providers/types.ts";
import { emptyUsage } from "../providers/types.ts";
import type { AgentEvent } from "./events.ts";
import type { PromptRefusal, TurnContext } from "./session-extension.ts";

/** The `extension_state` name under which a refused prompt is kept: `data` is `{ by, reason, message }`. */
const REFUSED_PROMPT = "refused_prompt";

/**
 * The conversation of an agent session, as the model sees it, and its one owner. A turn starts with
 * its context messages and the user's prompt (`addTurn`); the loop reports the messages it adds
 * (`assistant`, `tool_results`) and compactions (naming the first kept message); the
 * conversation appends them and, when the session has a file, saves each before it is shown — saving
 * is a sink beside the loop, not a wrapper around it.
 *
 * Each save is written at once, so it survives the process being killed; the disk sync that makes it
 * survive a crash of the machine starts with the user's message (while the model answers) and is
 * waited for once per turn, when its end (`result`) is recorded, and after a compaction.
 */

interface ViewEntry {
  message: Message;
  /** The entry number in the session file; -1 for a compaction summary, undefined when nothing is saved. */
  n: number | undefined;
}

export class Conversation {
  private view: ViewEntry[];
  private readonly origin = new WeakMap<Message, ViewEntry>();
  /** Saved with the next user message when the session now uses another model than it last did. */
  private pendingModelChange: { provider: string; model: string } | undefined;

  constructor(
    private writer: SessionWriter | undefined,
    initial: ModelView = { messages: [], ns: [], compaction: undefined },
  ) {
    this.view = initial.messages.map((message, i) => ({ message, n: initial.ns[i] }));
  }

  get saving(): boolean {
    return this.writer !== undefined;
  }

  /** Binds a file created after the conversation began (a new session's file is made on its first turn). */
  attach(writer: SessionWriter): void {
    this.writer = writer;
  }

  /** The messages to send, without tool calls that lost their results to an interrupt (providers reject them). */
  messages(): Message[] {
    const indices = this.view.map((_, i) => i);
    const sent = dropDanglingToolUse(
      this.view.map((e) => e.message),
      indices,
    );
    // A trimmed message is a copy: remember where it came from, so a compaction that keeps it is placed.
    for (const [j, message] of sent.entries()) this.origin.set(message, this.view[indices[j]!]!);
    return sent;
  }

  get length(): number {
    return this.view.length;
  }

  modelChanged(provider: string, model: string): void {
    this.pendingModelChange = { provider, model };
  }

  /**
   * Saves the user's message before any model request — what the user typed is never lost — after
   * this turn's context messages (each its own user-role message, so later requests keep them as a
   * stable prefix).
   */
  async addTurn(message: UserMessage, contexts: readonly TurnContext[] = []): Promise<void> {
    const change = this.pendingModelChange;
    if (!this.writer) {
      for (const context of contexts) this.view.push({ message: context.message, n: undefined });
      this.view.push({ message, n: undefined });
      this.pendingModelChange = undefined;
      return;
    }
    const saved = await this.writer.append([
      ...(change ? [{ type: "model_change" as const, ...change }] : []),
      ...contexts.map((c) => ({ type: "context_message" as const, source: c.source, message: c.message })),
      { type: "message", message },
    ]);
    this.pendingModelChange = undefined;
    const messages = [...contexts.map((c) => c.message), message];
    const ns = saved.slice(saved.length - messages.length).map((entry) => entry.n);
    for (const [i, m] of messages.entries()) this.view.push({ message: m, n: ns[i] });
    // Synced while the request is in flight; a failure is reported by the turn's own sync, which
    // waits for this one.
    this.writer.sync().catch(() => undefined);
  }

  /**
   * A prompt an extension refused: kept in the file — the user's words are never lost — but outside
   * the model's view (an `extension_state` entry), with a failed run end saying who refused it and why.
   */
  async refused(message: UserMessage, refusal: PromptRefusal, error: string): Promise<void> {
    if (!this.writer) return;
    await this.writer.append([
      { type: "extension_state", extension: REFUSED_PROMPT, data: { ...refusal, message } },
      {
        type: "run_end",
        subtype: "error_during_execution",
        num_turns: 0,
        usage: emptyUsage(),
        total_cost_usd: 0,
        errors: [error],
        error_kind: "usage",
      },
    ]);
    await this.writer.sync();
  }

  /** Saves an extension's state (never part of the model's view); nothing before the file exists or with --no-session. */
  async saveState(extension: string, data: unknown, parentToolUseId?: string): Promise<void> {
    const parent = parentToolUseId === undefined ? {} : { parent_tool_use_id: parentToolUseId };
    await this.writer?.append([{ type: "extension_state", extension, data, ...parent }]);
  }

  /** Records what an event adds to the conversation; resolves once it is written (and synced, for a turn's end). */
  async record(event: AgentEvent): Promise<void> {
    switch (event.type) {
      case "assistant":
        await this.addMessage(event.message, event.stop_reason, event.usage);
        break;
      case "tool_results":
      case "user_message":
        await this.addMessage(event.message);
        break;
      case "compact_boundary":
        await this.applyCompaction(event);
        break;
      case "result": {
        const { result } = event;
        await this.writer?.append([
          {
            type: "run_end",
            subtype: result.subtype,
            num_turns: result.num_turns,
            usage: result.usage,
            total_cost_usd: result.total_cost_usd,
            errors: result.errors,
            // Why it failed, as the result said: `sessions show` and scripts read it from the file too.
            ...(result.error_kind ? { error_kind: result.error_kind } : {}),
            ...(result.api_error_status !== undefined ? { api_error_status: result.api_error_status } : {}),
          },
        ]);
        // The turn is reported complete only once all of it is on the disk.
        await this.writer?.sync();
        break;
      }
      default:
        break;
    }
  }

  close(): Promise<void> {
    return this.writer?.close() ?? Promise.resolve();
  }

  private async addMessage(message: Message, stopReason?: StopReason | null, usage?: Usage): Promise<void> {
    if (!this.writer) {
      this.view.push({ message, n: undefined });
      return;
    }
    const [saved] = await this.writer.append([
      {
        type: "message",
        message,
        ...(stopReason !== undefined ? { stop_reason: stopReason } : {}),
        ...(usage ? { usage } : {}),
      },
    ]);
    this.view.push({ message, n: saved!.n });
  }

  /**
   * From here on the model sees the summary, then the view from the first kept message on. The record
   * names that message's entry; with nothing kept, whatever entry comes next.
   */
  private async applyCompaction(event: Extract<AgentEvent, { type: "compact_boundary" }>): Promise<void> {
    const first = event.first_kept;
    const entry = first && (this.origin.get(first) ?? this.view.find((e) => e.message === first));
    // The loop compacts the very messages it was given and reported, so a kept one is always found.
    const at = entry ? this.view.indexOf(entry) : -1;
    const start = at >= 0 ? at : this.view.length;
    const kept = this.view.slice(start);
    const firstKept = kept.find((e) => e.n !== undefined && e.n >= 0)?.n ?? this.writer?.nextN ?? 0;
    await this.writer?.append([
      {
        type: "compaction",
        trigger: event.trigger,
        summary: event.summary,
        first_kept: firstKept,
        tokens_before: event.pre_tokens,
        tokens_after: event.post_tokens,
        method: event.method,
      },
    ]);
    await this.writer?.sync();
    this.view = [{ message: summaryMessage(event.summary), n: -1 }, ...kept];
  }
}
