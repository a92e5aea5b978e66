/**
 * What a user sees of running and finished tool calls on a terminal: the status line under a running
 * call (elapsed time, its latest output line dimmed, one row), "timed out after N s", and result lines
 * of a parallel batch that each name their call with no spinner left among them. Output is replayed
 * through a tiny terminal model (`\r` returns, text overwrites) so the assertions read the screen.
 */
import { describe, expect, test } from "bun:test";
import type { AgentEvent, RunResult } from "../../src/agent/events.ts";
import { ChatRenderer } from "../../src/ui/chat-render.ts";
import { createRenderer, type RenderOptions } from "../../src/ui/renderer.ts";
import { Spinner } from "../../src/ui/spinner.ts";
import { createStyle } from "../../src/ui/style.ts";
import { ToolActivity } from "../../src/ui/tool-lines.ts";

const ESC = "\x1b";
const FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

/** The rows a terminal shows after `written`: `\r` goes to column 0, text overwrites, colours dropped. */
function screen(written: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: dropping colour sequences is the point
  const text = written.replace(/\x1b\[[0-9;]*m/g, "");
  const rows: string[][] = [[]];
  let col = 0;
  for (const char of text) {
    const row = rows[rows.length - 1]!;
    if (char === "\n") {
      rows.push([]);
      col = 0;
    } else if (char === "\r") col = 0;
    else row[col++] = char;
  }
  return rows.map((row) =>
    Array.from(row, (c) => c ?? " ")
      .join("")
      .trimEnd(),
  );
}

/** Polls until `check` holds (the status line appears after a delay, on a timer). */
async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the condition");
    await Bun.sleep(20);
  }
}

function sink() {
  const chunks: string[] = [];
  return { write: (text: string) => void chunks.push(text), text: () => chunks.join("") };
}

type ToolStart = Extract<AgentEvent, { type: "tool_start" }>;
type ToolEnd = Extract<AgentEvent, { type: "tool_end" }>;

const start = (id: string, name: string, input: Record<string, unknown>): ToolStart => ({
  type: "tool_start",
  id,
  name,
  input,
});

function end(id: string, name: string, fields: Partial<ToolEnd> = {}): ToolEnd {
  return {
    type: "tool_end",
    id,
    name,
    is_error: false,
    content: "ok",
    duration_ms: 12,
    ...fields,
  };
}

const RESULT: RunResult = {
  type: "result",
  schema_version: 2,
  subtype: "success",
  is_error: false,
  result: "",
  session_id: "s",
  provider: "openai",
  model: "m",
  num_turns: 1,
  duration_ms: 10,
  duration_api_ms: 5,
  usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  total_cost_usd: null,
  permission_denials: [],
  errors: [],
  stop_reason: "end_turn",
  modelUsage: {},
};

/** Three parallel read_file calls, the second of a missing file, all started before any ends. */
const PARALLEL_STARTS: ToolStart[] = [
  start("c1", "read_file", { path: "alpha.txt" }),
  start("c2", "read_file", { path: "missing.txt" }),
  start("c3", "read_file", { path: "gamma.txt" }),
];
const PARALLEL_ENDS: ToolEnd[] = [
  end("c1", "read_file"),
  end("c2", "read_file", { is_error: true, content: "no such file: missing.txt" }),
  end("c3", "read_file"),
];
const PARALLEL: AgentEvent[] = [...PARALLEL_STARTS, ...PARALLEL_ENDS];

function chat(columns = 60) {
  const out = sink();
  const renderer = new ChatRenderer({
    out,
    progress: out,
    style: createStyle(false),
    color: false,
    interactive: true,
    showThinking: false,
    columns: () => columns,
  });
  return { out, renderer };
}

describe("ToolActivity", () => {
  const style = createStyle(false);

  test("a single call's end line is bare; a parallel batch's lines name tool and argument", () => {
    const single = new ToolActivity(style);
    single.start(start("a", "bash", { command: "ls" }));
    expect(single.end(end("a", "bash"), 80)).toBe("  ✓ 0.0s");

    const batch = new ToolActivity(style);
    for (const event of PARALLEL_STARTS) batch.start(event);
    const lines = PARALLEL_ENDS.map((event) => batch.end(event, 80));
    expect(lines).toEqual([
      "  ✓ read_file alpha.txt · 0.0s",
      "  ✗ read_file missing.txt · no such file: missing.txt",
      "  ✓ read_file gamma.txt · 0.0s",
    ]);
    // The next batch starts afresh: a lone call is bare again.
    batch.start(start("d", "bash", { command: "pwd" }));
    expect(batch.end(end("d", "bash"), 80)).toBe("  ✓ 0.0s");
  });

  test("a plan call's line is its item counts, not its JSON; a call without an argument ends at its name", () => {
    const activity = new ToolActivity(style);
    const items = [
      { content: "read", status: "completed" },
      { content: "fix", status: "in_progress" },
      { content: "test", status: "pending" },
    ];
    expect(activity.start(start("a", "plan", { items }))).toBe("● plan  3 items, 1 completed, 1 in progress");
    expect(activity.start(start("b", "plan", { items: [] }))).toBe("● plan  0 items");
    expect(activity.start(start("c", "mcp__files__list_allowed_directories", {}))).toBe(
      "● mcp__files__list_allowed_directories",
    );
    // Another tool's `items` argument is not taken for a plan.
    expect(activity.start(start("d", "other", { items: [1] }))).toBe("● other  [1]");
  });

  test("a call a hook blocked says so; one the mode or the user refused is denied", () => {
    const activity = new ToolActivity(style);
    activity.start(start("a", "bash", { command: "rm -rf x" }));
    const blocked = end("a", "bash", { is_error: true, metadata: { denied: true, deniedBy: "hooks" } });
    expect(activity.end(blocked, 80)).toBe("  ✗ blocked by hook");
    activity.start(start("b", "bash", { command: "rm -rf y" }));
    expect(activity.end(end("b", "bash", { is_error: true, metadata: { denied: true } }), 80)).toBe(
      "  ✗ denied",
    );
  });

  test("a long argument is shortened and the line fits the terminal", () => {
    const activity = new ToolActivity(style);
    const long = `src/${"deep/".repeat(30)}file.ts`;
    activity.start(start("a", "read_file", { path: long }));
    activity.start(start("b", "read_file", { path: "b.ts" }));
    const line = activity.end(end("a", "read_file"), 50);
    expect(Bun.stringWidth(line)).toBeLessThanOrEqual(50);
    expect(line).toStartWith("  ✓ read_file src/deep/");
    expect(line).toContain("…");
  });

  test("a timeout says so with the limit; a cancel is killed; an exit code is shown", () => {
    const activity = new ToolActivity(style);
    const timedOut = end("a", "bash", {
      is_error: true,
      duration_ms: 1_040,
      metadata: { exitCode: null, stopped: { reason: "timeout", after_ms: 1000 } },
    });
    expect(activity.end(timedOut, 80)).toBe("  ✗ timed out after 1 s");
    const long = end("a", "bash", {
      is_error: true,
      metadata: { exitCode: null, stopped: { reason: "timeout", after_ms: 120_000 } },
    });
    expect(activity.end(long, 80)).toBe("  ✗ timed out after 120 s");
    const cancelled = end("a", "bash", {
      is_error: true,
      duration_ms: 300,
      metadata: { exitCode: null, stopped: { reason: "cancel" } },
    });
    expect(activity.end(cancelled, 80)).toBe("  ✗ killed · 0.3s");
    const failed = end("a", "bash", { is_error: true, duration_ms: 300, metadata: { exitCode: 2 } });
    expect(activity.end(failed, 80)).toBe("  ✗ exit 2 · 0.3s");
  });

  test("the status line: elapsed time, then the latest output line dimmed, safe and cut to the width", () => {
    let now = 1_000;
    const colored = createStyle(true);
    const activity = new ToolActivity(colored, () => now);
    activity.start(start("a", "bash", { command: "make" }));
    now += 3_250;
    expect(activity.statusLine("⠋", 60)).toBe("  ⠋ 3.3s");
    activity.progress({
      type: "tool_progress",
      id: "a",
      name: "bash",
      elapsed_ms: 3_250,
      output_tail: `building\tthe ${ESC}[2J${ESC}]0;evil\x07${"long ".repeat(40)}`,
    });
    const line = activity.statusLine("⠋", 60);
    expect(line).toStartWith("  ⠋ 3.3s · \x1b[2mbuilding the long long");
    expect(line).toEndWith("…\x1b[22m");
    expect(Bun.stringWidth(line)).toBeLessThanOrEqual(60);
    expect(line.replaceAll(`${ESC}[2m`, "").replaceAll(`${ESC}[22m`, "")).not.toContain(ESC);
  });
});

describe("Spinner", () => {
  test("a shorter line blanks what the longer one left; a line never passes the terminal's width", () => {
    const out = sink();
    let label = "a long label here";
    const spinner = new Spinner(out, "x", () => 10);
    const widths: (number | undefined)[] = [];
    spinner.start((frame, width) => {
      widths.push(width);
      return `${frame} ${label}`.slice(0, width);
    }, 10_000);
    label = "ab";
    spinner.refresh();
    expect(widths).toEqual([9, 9]);
    expect(out.text()).toBe("\r⠋ a long \r⠋ ab     ");
    spinner.stop();
    expect(screen(out.text())).toEqual([""]);
  });
});

describe("chat: running tools", () => {
  test("a running call shows a status line under it; its end line replaces it", async () => {
    const { out, renderer } = chat();
    await renderer.onEvent(start("b", "bash", { command: "for i in 1 2 3; do echo step-$i; done" }));
    await renderer.onEvent({
      type: "tool_progress",
      id: "b",
      name: "bash",
      elapsed_ms: 1200,
      output_tail: "step-2",
    });
    // Held back at first: a quick call shows no status line at all.
    expect(screen(out.text())).toEqual(["● bash  for i in 1 2 3; do echo step-$i; done", ""]);
    await until(() => screen(out.text())[1] !== "");
    let rows = screen(out.text());
    expect(rows[0]).toBe("● bash  for i in 1 2 3; do echo step-$i; done");
    expect(rows[1]).toMatch(/^ {2}⠋ 0\.\ds · step-2$/);
    await renderer.onEvent(end("b", "bash", { duration_ms: 3100 }));
    await renderer.onEvent({ type: "result", result: RESULT });
    rows = screen(out.text());
    expect(rows.slice(0, 2)).toEqual(["● bash  for i in 1 2 3; do echo step-$i; done", "  ✓ 3.1s"]);
    expect(rows.join("\n")).not.toMatch(FRAME);
    expect(rows.join("\n")).not.toContain("step-2");
  });

  test("parallel calls: one result line per call, each named, and no spinner left among them", async () => {
    const { out, renderer } = chat();
    for (const event of PARALLEL) await renderer.onEvent(event);
    await renderer.onEvent({ type: "result", result: RESULT });
    expect(screen(out.text()).filter((row) => row !== "")).toEqual([
      "● read_file  alpha.txt",
      "● read_file  missing.txt",
      "● read_file  gamma.txt",
      "  ✓ read_file alpha.txt · 0.0s",
      "  ✗ read_file missing.txt · no such file: missing.txt",
      "  ✓ read_file gamma.txt · 0.0s",
    ]);
  });
});

describe("run -o text on a terminal: running tools", () => {
  const options = (err: { write(text: string): void }): RenderOptions => ({
    stdout: sink(),
    stderr: err,
    stdoutIsTTY: false,
    stderrIsTTY: true,
    quiet: false,
    verbose: false,
    partial: false,
    color: false,
    columns: () => 60,
  });

  test("the status line and the timed-out end line on stderr; json ignores progress", async () => {
    const err = sink();
    const renderer = await createRenderer("text", options(err));
    renderer.onEvent(start("b", "bash", { command: "sleep 5" }));
    renderer.onEvent({
      type: "tool_progress",
      id: "b",
      name: "bash",
      elapsed_ms: 500,
      output_tail: "waiting",
    });
    await until(() => screen(err.text()).at(-1) !== "");
    expect(screen(err.text()).at(-1)).toMatch(/^ {2}⠋ \d+\.\ds · waiting$/);
    renderer.onEvent(
      end("b", "bash", {
        is_error: true,
        duration_ms: 1_030,
        metadata: { exitCode: null, stopped: { reason: "timeout", after_ms: 1000 } },
      }),
    );
    renderer.onEvent({ type: "result", result: RESULT });
    renderer.close();
    expect(screen(err.text()).filter((row) => row !== "")).toEqual([
      "● bash  sleep 5",
      "  ✗ timed out after 1 s",
    ]);

    const json = sink();
    const jsonRenderer = await createRenderer("json", { ...options(sink()), stdout: json });
    jsonRenderer.onEvent({ type: "tool_progress", id: "b", name: "bash", elapsed_ms: 1, output_tail: "x" });
    jsonRenderer.onEvent({ type: "result", result: RESULT });
    jsonRenderer.close();
    expect(json.text()).not.toContain("tool_progress");
  });

  test("parallel calls: each result line names its call, no spinner frame among them", async () => {
    const err = sink();
    const renderer = await createRenderer("text", options(err));
    for (const event of PARALLEL) renderer.onEvent(event);
    renderer.onEvent({ type: "result", result: RESULT });
    renderer.close();
    const rows = screen(err.text()).filter((row) => row !== "");
    expect(rows.slice(3)).toEqual([
      "  ✓ read_file alpha.txt · 0.0s",
      "  ✗ read_file missing.txt · no such file: missing.txt",
      "  ✓ read_file gamma.txt · 0.0s",
    ]);
    expect(rows.join("\n")).not.toMatch(FRAME);
  });
});
