import type { AgentEvent, RunResult } from "../agent/events.ts";
import { formatTokens } from "../util/numbers.ts";
import { safeForTerminal, TerminalTextStream } from "../util/terminal-text.ts";
import { MarkdownStream } from "./markdown.ts";
import { costText, memoryRecallLine, RetryNotes } from "./progress-notes.ts";
import type { Writer } from "./renderer.ts";
import { IDLE_LABEL, Spinner } from "./spinner.ts";
import type { Style } from "./style.ts";
import { hiddenChildEvent, STATUS_MS, ToolActivity } from "./tool-lines.ts";

/**
 * The chat's view of a turn: the same AgentEvents `run -o text` consumes, written into the terminal's
 * scrollback — the answer streamed as markdown, thinking dimmed on its own lines (when shown), one
 * line per tool call with its outcome, an edit's diff in colour, a spinner only while nothing
 * streams (under running tools: their elapsed time and latest output line), and one dim status line
 * at the end. Whatever the model or a tool wrote is made safe for the terminal (util/terminal-text.ts)
 * before ion styles it.
 */

export interface ChatRenderOptions {
  out: Writer;
  style: Style;
  color: boolean;
  /** A terminal: spinner and colours; otherwise plain lines only. */
  interactive: boolean;
  showThinking: boolean;
  /** Where progress lines go (the terminal; stderr when stdout is a pipe). */
  progress: Writer;
  /** The terminal's width, when there is one (progress lines are kept to one row). */
  columns?: () => number | undefined;
}

export interface StatusFacts {
  provider: string;
  model: string;
  contextUsed: number | undefined;
  contextWindow: number | undefined;
}

/** `openai/gpt-4o · 23% ctx · $0.0123 · 3.2s` */
export function statusLine(result: RunResult, facts: StatusFacts): string {
  const parts = [`${facts.provider}/${facts.model}`];
  if (facts.contextWindow && facts.contextUsed !== undefined)
    parts.push(`${Math.round((facts.contextUsed / facts.contextWindow) * 100)}% ctx`);
  else if (facts.contextUsed !== undefined) parts.push(`${formatTokens(facts.contextUsed)} ctx`);
  parts.push(costText(result.total_cost_usd));
  parts.push(`${(result.duration_ms / 1000).toFixed(1)}s`);
  return parts.join(" · ");
}

/** A unified diff with + lines green, - lines red and hunk headers dim; `diff` is safe for a terminal. */
export function colorDiff(diff: string, style: Style): string {
  return diff
    .split("\n")
    .map((line) => {
      if (line.startsWith("+++") || line.startsWith("---")) return style.dim(line);
      if (line.startsWith("+")) return style.green(line);
      if (line.startsWith("-")) return style.red(line);
      if (line.startsWith("@@")) return style.cyan(line);
      return line;
    })
    .join("\n");
}

export class ChatRenderer {
  private readonly spinner: Spinner | undefined;
  private markdown: MarkdownStream;
  /** The answer and the thinking made safe as they stream: a sequence may span two deltas. */
  private answer = new TerminalTextStream();
  private thinking = new TerminalTextStream();
  private thinkingOpen = false;
  private streaming = false;
  private readonly tools: ToolActivity;
  private readonly retries = new RetryNotes();

  constructor(private readonly options: ChatRenderOptions) {
    this.spinner = options.interactive ? new Spinner(options.out, undefined, this.columns) : undefined;
    this.tools = new ToolActivity(options.style);
    this.markdown = this.newMarkdown();
  }

  /** Stops the spinner and ends an open line, so a question or a notice starts clean. */
  async suspend(): Promise<void> {
    this.spinner?.stop();
    await this.finishText();
  }

  async onEvent(event: AgentEvent): Promise<void> {
    const { style } = this.options;
    if (hiddenChildEvent(event)) return;
    switch (event.type) {
      case "init":
        this.spinner?.start();
        break;
      case "text_delta":
        this.spinner?.stop();
        this.closeThinking();
        this.streaming = true;
        this.markdown.push(this.answer.push(event.text));
        break;
      case "thinking_delta":
        if (!this.options.showThinking) break;
        this.spinner?.stop();
        if (this.streaming) await this.finishText();
        this.writeThinking(this.thinking.push(event.text));
        break;
      case "assistant":
        await this.finishText();
        break;
      case "tool_start":
        await this.suspend();
        this.line(this.tools.start(event));
        // While calls run: their elapsed time and latest output line instead of the spinner's label.
        this.spinner?.start(this.tools.statusLine, STATUS_MS, this.tools.statusDelay());
        break;
      case "tool_progress":
        this.tools.progress(event);
        this.spinner?.refresh();
        break;
      case "tool_end":
        // Parallel calls end while the status line is up: take it down before each result line.
        this.spinner?.stop();
        this.line(this.tools.end(event, this.columns()));
        if (event.metadata?.diff && !event.is_error) {
          const indent = event.parent_tool_use_id === undefined ? "    " : "      ";
          this.line(colorDiff(safeForTerminal(event.metadata.diff).trimEnd(), style).replace(/^/gm, indent));
        }
        // The plan tool's new plan, as a checklist.
        for (const item of planLines(event)) this.line(`    ${safeForTerminal(item)}`);
        if (this.tools.active)
          this.spinner?.start(this.tools.statusLine, STATUS_MS, this.tools.statusDelay());
        else this.spinner?.start(IDLE_LABEL);
        break;
      case "api_retry":
        await this.suspend();
        this.line(style.dim(this.retries.line(event)));
        this.spinner?.start();
        break;
      case "memory_recall":
        await this.suspend();
        this.line(style.dim(memoryRecallLine(event)));
        this.spinner?.start();
        break;
      case "compact_boundary": {
        await this.suspend();
        const how = event.method === "dropped" ? ", summary failed: oldest messages dropped" : "";
        this.line(
          style.dim(
            `compacted: ${formatTokens(event.pre_tokens)} → ${formatTokens(event.post_tokens)} tokens (${event.trigger}${how})`,
          ),
        );
        break;
      }
      case "result":
        await this.suspend();
        break;
      default:
        break;
    }
  }

  /** After the result: what went wrong (if anything), then the dim status line. */
  async finish(result: RunResult, facts: StatusFacts): Promise<void> {
    await this.suspend();
    const { style } = this.options;
    if (result.subtype === "error_interrupted") this.line(style.dim("(interrupted)"));
    else if (result.subtype !== "success")
      for (const error of result.errors) this.line(style.red(`ion: ${safeForTerminal(error)}`));
    this.line(style.dim(statusLine(result, facts)));
  }

  private readonly columns = (): number | undefined => this.options.columns?.();

  private line(text: string): void {
    this.options.progress.write(`${text}\n`);
  }

  private writeThinking(text: string): void {
    if (text === "") return;
    this.options.out.write(this.options.style.dim(text));
    this.thinkingOpen = !text.endsWith("\n");
  }

  private closeThinking(): void {
    this.writeThinking(this.thinking.end());
    this.thinking = new TerminalTextStream();
    if (this.thinkingOpen) this.options.out.write("\n");
    this.thinkingOpen = false;
  }

  private async finishText(): Promise<void> {
    this.closeThinking();
    if (!this.streaming) return;
    this.streaming = false;
    this.markdown.push(this.answer.end());
    this.answer = new TerminalTextStream();
    await this.markdown.end();
    if (this.markdown.openLine) this.options.out.write("\n");
    this.markdown = this.newMarkdown();
  }

  private newMarkdown(): MarkdownStream {
    return new MarkdownStream((text) => this.options.out.write(text), this.options.style, this.options.color);
  }
}

/** The checklist lines of a `plan` call that changed the plan; none for any other call. */
export function planLines(event: Extract<AgentEvent, { type: "tool_end" }>): string[] {
  const checklist = event.metadata?.details?.checklist;
  if (event.name !== "plan" || event.is_error || !Array.isArray(checklist)) return [];
  return checklist.filter((line): line is string => typeof line === "string");
}
