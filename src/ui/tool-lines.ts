import type { AgentEvent } from "../agent/events.ts";
import { planCallSummary } from "../plan/plan.ts";
import { mainArgument } from "../tools/types.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import type { SpinnerLine } from "./spinner.ts";
import type { Style } from "./style.ts";
import { truncate } from "./table.ts";

type ToolStart = Extract<AgentEvent, { type: "tool_start" }>;
type ToolProgress = Extract<AgentEvent, { type: "tool_progress" }>;
type ToolEnd = Extract<AgentEvent, { type: "tool_end" }>;

/** How often a running tool's status line is redrawn: its timer shows tenths, a user reads no faster. */
export const STATUS_MS = 250;
/** A status line appears only once calls have run this long: a quick call shows none, nothing flickers. */
const STATUS_DELAY_MS = 500;
/** A call's main argument in a result line: enough to tell parallel calls apart. */
const LABEL_ARGUMENT_COLUMNS = 40;

/** The events of a child agent (a subagent run by a tool call) a terminal shows: its tool lines. */
const CHILD_TOOL_EVENTS: ReadonlySet<AgentEvent["type"]> = new Set([
  "tool_start",
  "tool_progress",
  "tool_end",
]);

/**
 * Whether a terminal front end passes over this event: a child agent's text, thinking, init and
 * compactions belong to the tool call that runs it (its result says what came of them).
 */
export function hiddenChildEvent(event: AgentEvent): boolean {
  return (
    event.type !== "result" && event.parent_tool_use_id !== undefined && !CHILD_TOOL_EVENTS.has(event.type)
  );
}

/** A child agent's tool lines are indented under the call that runs it. */
function indentOf(event: ToolStart | ToolEnd): string {
  return event.parent_tool_use_id === undefined ? "" : "  ";
}

/**
 * A short description of a tool call for its one progress line, safe for a terminal. A `plan` call is
 * its item counts, not its JSON.
 */
export function summarizeInput(input: Record<string, unknown>, toolName?: string): string {
  const first =
    (toolName === "plan" ? planCallSummary(input) : undefined) ??
    mainArgument(input) ??
    Object.values(input)[0];
  const text = typeof first === "string" ? first : first === undefined ? "" : JSON.stringify(first);
  const [head = "", ...rest] = safeForTerminal(text).trimEnd().split("\n");
  // A second line (of a command, or in a file's name) is marked, so the line never passes for the whole.
  const line = rest.length > 0 ? `${head} …` : head;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** `1 s`, `1.5 s`, `300 ms`: a time limit as the user would have written it. */
function formatLimit(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * `0.8s`, `Read 12 lines · 0.8s` (a title), `exit 1 · 0.3s`, `killed · 0.3s`, `timed out after 120 s`,
 * `denied`, `blocked by hook`, or an error's first line.
 */
function outcomeDetail(event: ToolEnd): string {
  const seconds = `${(event.duration_ms / 1000).toFixed(1)}s`;
  const metadata = event.metadata;
  if (!event.is_error) {
    const title = (safeForTerminal(metadata?.title ?? "").split("\n")[0] ?? "").trim();
    return title ? `${title} · ${seconds}` : seconds;
  }
  // What the model is told (why, and what to do instead) is for the model; the user made the call.
  if (metadata?.denied)
    return metadata.deniedBy === undefined ? "denied" : `blocked by ${deniedName(metadata.deniedBy)}`;
  const stopped = metadata?.stopped;
  if (stopped?.reason === "timeout") return `timed out after ${formatLimit(stopped.after_ms)}`;
  const exitCode = metadata?.exitCode;
  if (exitCode === null) return `killed · ${seconds}`;
  if (exitCode !== undefined) return `exit ${exitCode} · ${seconds}`;
  return (safeForTerminal(event.content).split("\n")[0] ?? "").trim() || seconds;
}

/** Who refused a call, for its result line: a PreToolUse hook is "hook". */
function deniedName(extension: string): string {
  return extension === "hooks" ? "hook" : safeForTerminal(extension);
}

interface Running {
  started: number;
  tail?: string;
}

/**
 * What the terminal front ends show of tool calls, shared by the chat and `run -o text`: the line a
 * call starts with, a status line while calls run (elapsed time, the latest output line dimmed), and
 * the line each ends with. A call that ends after other calls started (a parallel batch) names itself
 * in its end line, so every ✓ and ✗ is attributable. Everything from a tool is made safe here.
 */
export class ToolActivity {
  private readonly running = new Map<string, Running>();
  /**
   * Calls started since none was running, per agent (the session's own: ""; a child's: its parent call's
   * id); more than one means their end lines must say whose they are.
   */
  private readonly batches = new Map<string, number>();
  private readonly labels = new Map<string, string>();
  private latest: string | undefined;

  constructor(
    private readonly style: Style,
    private readonly now: () => number = Date.now,
  ) {}

  get active(): boolean {
    return this.running.size > 0;
  }

  /** `● bash  ls -la` */
  start(event: ToolStart): string {
    if (this.running.size === 0) {
      this.batches.clear();
      this.labels.clear();
      this.latest = undefined;
    }
    const agent = event.parent_tool_use_id ?? "";
    this.batches.set(agent, (this.batches.get(agent) ?? 0) + 1);
    this.running.set(event.id, { started: this.now() });
    const summary = summarizeInput(event.input, event.name);
    const name = safeForTerminal(event.name);
    this.labels.set(event.id, summary ? `${name} ${truncate(summary, LABEL_ARGUMENT_COLUMNS)}` : name);
    // A call without an argument to show ends at its name: no trailing spaces.
    const argument = summary ? `  ${this.style.dim(summary)}` : "";
    return `${indentOf(event)}${this.style.cyan("●")} ${name}${argument}`;
  }

  progress(event: ToolProgress): void {
    const call = this.running.get(event.id);
    if (!call || event.output_tail === undefined) return;
    // One row: tabs become spaces, controls are removed.
    call.tail = safeForTerminal(event.output_tail).replace(/\s+/g, " ").trim();
    this.latest = event.id;
  }

  /** `  ✓ 0.8s`, or `  ✗ read_file missing.txt · no such file: missing.txt` in a parallel batch. */
  end(event: ToolEnd, width: number | undefined): string {
    this.running.delete(event.id);
    const batch = this.batches.get(event.parent_tool_use_id ?? "") ?? 0;
    const label = batch > 1 ? `${this.labels.get(event.id) ?? safeForTerminal(event.name)} · ` : "";
    const text = `${event.is_error ? "✗" : "✓"} ${label}${outcomeDetail(event)}`;
    const indent = `  ${indentOf(event)}`;
    // One row on the terminal, indent included.
    const fitted = truncate(text, Math.max(20, (width ?? 100) - indent.length));
    return `${indent}${event.is_error ? this.style.red(fitted) : this.style.green(fitted)}`;
  }

  /** How long the status line is still held back (calls that end quickly never show one). */
  statusDelay(): number {
    return Math.max(0, STATUS_DELAY_MS - this.elapsed());
  }

  /** Since the first running call started. */
  private elapsed(): number {
    const first = Math.min(...[...this.running.values()].map((call) => call.started));
    return Number.isFinite(first) ? this.now() - first : 0;
  }

  /** The status line while calls run: `  ⠋ 3.2s · step-2` (the output line dim), for the spinner. */
  readonly statusLine: SpinnerLine = (frame, width) => {
    const elapsed = `${(this.elapsed() / 1000).toFixed(1)}s`;
    const count = this.running.size > 1 ? `${this.running.size} calls · ` : "";
    const head = `  ${frame} ${count}${elapsed}`;
    const tail = this.latest === undefined ? undefined : this.running.get(this.latest)?.tail;
    if (!tail) return width === undefined ? head : truncate(head, width);
    const room = (width ?? 100) - Bun.stringWidth(head) - 3;
    if (room < 4) return width === undefined ? head : truncate(head, width);
    return `${head} · ${this.style.dim(truncate(tail, room))}`;
  };
}
