import type { NewEntry } from "../history/schema.ts";
import type { SessionWriter } from "../history/store.ts";
import type { UserMessage } from "../providers/types.ts";
import type { AgentEvent } from "./events.ts";

/**
 * Saves a run into its session as it happens: another consumer of the AgentEvent stream. Each append
 * is durable before the caller moves on, so a step is on disk before it is reported complete.
 */
export class SessionRecorder {
  /** `n` of each message in the model's current view (-1 for a compaction summary), to map compactions. */
  private readonly viewNs: number[];
  /** Saved with the next user message when the run uses another model than the session last did. */
  pendingModelChange: { provider: string; model: string } | undefined;

  constructor(
    private readonly writer: SessionWriter,
    initialViewNs: number[],
  ) {
    this.viewNs = [...initialViewNs];
  }

  get sessionId(): string {
    return this.writer.id;
  }

  /** Saves the user's message before any model request: what the user typed is never lost. */
  async begin(message: UserMessage): Promise<void> {
    const entries: NewEntry[] = [];
    if (this.pendingModelChange) entries.push({ type: "model_change", ...this.pendingModelChange });
    this.pendingModelChange = undefined;
    entries.push({ type: "message", message });
    const saved = await this.writer.append(entries);
    this.viewNs.push(saved[saved.length - 1]!.n);
  }

  async record(event: AgentEvent): Promise<void> {
    switch (event.type) {
      case "assistant":
        await this.appendMessage({
          type: "message",
          message: event.message,
          stop_reason: event.stop_reason,
          usage: event.usage,
        });
        break;
      case "tool_results":
        await this.appendMessage({ type: "message", message: event.message });
        break;
      case "compact_boundary": {
        // kept = 0 summarises everything: the first kept entry is whatever comes next.
        const firstKept =
          event.kept === 0 ? this.writer.nextN : (this.viewNs[this.viewNs.length - event.kept] ?? 0);
        await this.writer.append([
          {
            type: "compaction",
            trigger: event.trigger,
            summary: event.summary,
            first_kept: Math.max(0, firstKept),
            tokens_before: event.pre_tokens,
            tokens_after: event.post_tokens,
            method: event.method,
          },
        ]);
        this.viewNs.splice(
          0,
          this.viewNs.length,
          -1,
          ...(event.kept === 0 ? [] : this.viewNs.slice(-event.kept)),
        );
        break;
      }
      case "result": {
        const { result } = event;
        await this.writer.append([
          {
            type: "run_end",
            subtype: result.subtype,
            num_turns: result.num_turns,
            usage: result.usage,
            total_cost_usd: result.total_cost_usd,
            errors: result.errors,
          },
        ]);
        break;
      }
      default:
        break;
    }
  }

  close(): Promise<void> {
    return this.writer.close();
  }

  private async appendMessage(entry: NewEntry): Promise<void> {
    const [saved] = await this.writer.append([entry]);
    this.viewNs.push(saved!.n);
  }
}
