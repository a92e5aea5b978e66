import type { AgentEvent, RunResult } from "../agent/events.ts";
import { formatTokens } from "../util/numbers.ts";
import { safeForTerminal, TerminalTextStream } from "../util/terminal-text.ts";
import { costText, memoryRecallLine, RetryNotes } from "./progress-notes.ts";
import type { Renderer, RenderOptions } from "./renderer.ts";
import { IDLE_LABEL, Spinner } from "./spinner.ts";
import { createStyle } from "./style.ts";
import { hiddenChildEvent, STATUS_MS, ToolActivity } from "./tool-lines.ts";

/**
 * `-o text`: the answer on stdout (streamed live when stdout is a terminal, otherwise printed once at
 * the end, and only on success); progress on stderr when it is a TTY (or with --verbose) and not
 * --quiet: tool lines, a status line under running tools (elapsed time, latest output line) on a
 * terminal only, retries and compactions; --verbose adds each tool's result.
 */
export function textRenderer(options: RenderOptions): Renderer {
  const style = createStyle(options.color);
  // -v asks for the tool lines and results wherever stderr goes (a log file, a CI job).
  const progress = !options.quiet && (options.stderrIsTTY || options.verbose === true);
  // With -v, SDK log lines are written to stderr at any moment; a spinner would garble them.
  const columns = options.columns ?? (() => process.stderr.columns);
  const spinner =
    options.stderrIsTTY && !options.quiet && !options.verbose
      ? new Spinner(options.stderr, undefined, columns)
      : undefined;
  const tools = new ToolActivity(style);
  const retries = new RetryNotes();
  let endsWithNewline = true;
  let wroteText = false;
  let thinkingOpen = false;
  let contextWindow: number | null = null;
  let contextUsed = 0;
  // The model's text is made safe for the terminal as it streams (a sequence may span two deltas).
  let answer = new TerminalTextStream();
  let thinking = new TerminalTextStream();
  const writeAnswer = (text: string) => {
    if (text === "") return;
    options.stdout.write(text);
    wroteText = true;
    endsWithNewline = text.endsWith("\n");
  };
  const writeThinking = (text: string) => {
    if (text === "") return;
    options.stderr.write(style.dim(text));
    thinkingOpen = !text.endsWith("\n");
  };
  /** Thinking (stderr) and the answer (stdout) share a terminal: end thinking on its own line. */
  const closeThinking = () => {
    writeThinking(thinking.end());
    thinking = new TerminalTextStream();
    if (thinkingOpen) options.stderr.write("\n");
    thinkingOpen = false;
  };
  const note = (line: string) => {
    spinner?.stop();
    closeThinking();
    // The answer so far and this line share the terminal: `Let me look.` ends its line first.
    if (options.stdoutIsTTY && wroteText && !endsWithNewline) writeAnswer("\n");
    options.stderr.write(`${line}\n`);
  };

  const handle = (event: AgentEvent) => {
    if (hiddenChildEvent(event)) return;
    switch (event.type) {
      case "init":
        contextWindow = event.context_window;
        spinner?.start();
        break;
      case "assistant": {
        if (options.stdoutIsTTY) writeAnswer(answer.end());
        answer = new TerminalTextStream();
        // What the last request put in the window: its whole input plus what the model wrote.
        const u = event.usage;
        contextUsed =
          u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens;
        break;
      }
      case "text_delta":
        spinner?.stop();
        closeThinking();
        if (options.stdoutIsTTY) writeAnswer(answer.push(event.text));
        break;
      case "thinking_delta":
        if (options.verbose) {
          spinner?.stop();
          writeThinking(thinking.push(event.text));
        }
        break;
      case "tool_start": {
        const line = tools.start(event);
        if (!progress) break;
        note(line);
        // While calls run: their elapsed time and latest output line instead of the spinner's label.
        spinner?.start(tools.statusLine, STATUS_MS, tools.statusDelay());
        break;
      }
      case "tool_progress":
        tools.progress(event);
        spinner?.refresh();
        break;
      case "tool_end": {
        const line = tools.end(event, options.stderrIsTTY ? columns() : undefined);
        if (!progress) break;
        note(line);
        if (options.verbose) note(style.dim(safeForTerminal(event.content)));
        if (tools.active) spinner?.start(tools.statusLine, STATUS_MS, tools.statusDelay());
        else spinner?.start(IDLE_LABEL);
        break;
      }
      case "api_retry":
        if (progress) {
          note(style.dim(retries.line(event)));
          spinner?.start();
        }
        break;
      case "memory_recall":
        if (options.verbose) {
          note(style.dim(memoryRecallLine(event)));
          spinner?.start();
        }
        break;
      case "compact_boundary":
        if (progress) {
          const how = event.method === "dropped" ? ", summary failed: oldest messages dropped" : "";
          note(
            style.dim(
              `compacted: ${formatTokens(event.pre_tokens)} → ${formatTokens(event.post_tokens)} tokens (${event.trigger}${how})`,
            ),
          );
          spinner?.start();
        }
        break;
      case "result": {
        spinner?.stop();
        closeThinking();
        const { result } = event;
        if (options.stdoutIsTTY) {
          writeAnswer(answer.end());
          if (wroteText && !endsWithNewline) options.stdout.write("\n");
        } else if (result.subtype === "success" && result.result) {
          // Also for a pipe or a file: people `cat` an answer later.
          const text = safeForTerminal(result.result);
          options.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
        }
        if (options.verbose)
          options.stderr.write(style.dim(`${summaryLine(result, contextUsed, contextWindow)}\n`));
        break;
      }
      default:
        break;
    }
  };
  return {
    onEvent: handle,
    suspend: () => {
      spinner?.stop();
      closeThinking();
    },
    close: () => spinner?.stop(),
  };
}

/** `openai/gpt-4o · 2 turns · in 1200 (+800 cached) · out 95 · $0.0042 · 23% ctx · 3.2s` */
export function summaryLine(result: RunResult, contextUsed: number, contextWindow: number | null): string {
  const u = result.usage;
  const parts = [
    `${result.provider}/${result.model}`,
    `${result.num_turns} turn${result.num_turns === 1 ? "" : "s"}`,
    `in ${u.input_tokens} (+${u.cache_read_input_tokens} cached)`,
    `out ${u.output_tokens}`,
    costText(result.total_cost_usd),
  ];
  if (contextWindow) parts.push(`${Math.round((contextUsed / contextWindow) * 100)}% ctx`);
  parts.push(`${(result.duration_ms / 1000).toFixed(1)}s`);
  return parts.join(" · ");
}
