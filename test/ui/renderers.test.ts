import { describe, expect, test } from "bun:test";
import type { AgentEvent, RunResult } from "../../src/agent/events.ts";
import { createRenderer, type OutputFormat, type RenderOptions } from "../../src/ui/renderer.ts";
import { summaryLine } from "../../src/ui/text.ts";
import { summarizeInput } from "../../src/ui/tool-lines.ts";
import { formatTokens } from "../../src/util/numbers.ts";
import { CompactBoundarySchema, parseStreamJson, ResultSchema } from "../support/output-schemas.ts";
import { captureRender } from "../support/render-capture.ts";
import { usageOf } from "../support/stream-helpers.ts";

const USAGE = usageOf(120, 30, 100);

/** A result naming a session (only a failure that saved nothing has none). */
type NamedResult = RunResult & { session_id: string };

function result(overrides: Partial<RunResult> & { session_id?: string } = {}): NamedResult {
  return {
    type: "result",
    schema_version: 2,
    subtype: "success",
    is_error: false,
    result: "The answer is 4.",
    session_id: "sess-1",
    provider: "anthropic",
    model: "claude-x",
    num_turns: 2,
    duration_ms: 1234,
    duration_api_ms: 1000,
    usage: USAGE,
    total_cost_usd: null,
    permission_denials: [],
    errors: [],
    stop_reason: "end_turn",
    modelUsage: {},
    ...overrides,
  };
}

const INIT: AgentEvent = {
  type: "init",
  session_id: "sess-1",
  cwd: "/workspace",
  provider: "anthropic",
  model: "claude-x",
  tools: ["read_file", "bash"],
  mcp_servers: [],
  skills: [],
  permission_mode: "ask",
  slash_commands: [],
  key_source: "ANTHROPIC_API_KEY",
  context_window: 200_000,
};

/** A whole two-step run: thinking + text + a tool call, a retry, then the final answer. */
function fullRun(final: RunResult = result()): AgentEvent[] {
  return [
    INIT,
    { type: "thinking_delta", text: "Let me look." },
    { type: "text_delta", text: "Checking" },
    {
      type: "assistant",
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Let me look.", signature: "SECRET-SIGNATURE" },
          { type: "text", text: "Checking" },
          { type: "tool_use", id: "call-1", name: "bash", input: { command: "echo 2+2\nmore" } },
        ],
      },
      stop_reason: "tool_use",
      usage: USAGE,
    },
    { type: "tool_start", id: "call-1", name: "bash", input: { command: "echo 2+2\nmore" } },
    {
      type: "tool_end",
      id: "call-1",
      name: "bash",
      is_error: false,
      content: "TOOL-OUTPUT",
      duration_ms: 1500,
    },
    {
      type: "tool_results",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "call-1", content: "TOOL-OUTPUT", is_error: false }],
      },
    },
    {
      type: "api_retry",
      attempt: 1,
      max_retries: 3,
      delay_ms: 250,
      error: { kind: "overloaded", message: "overloaded from anthropic: Overloaded", status: 529 },
    },
    { type: "text_delta", text: "The answer " },
    { type: "text_delta", text: "is 4." },
    {
      type: "assistant",
      message: { role: "assistant", content: [{ type: "text", text: "The answer is 4." }] },
      stop_reason: "end_turn",
      usage: USAGE,
    },
    { type: "result", result: final },
  ];
}

async function render(format: OutputFormat, events: AgentEvent[], overrides: Partial<RenderOptions> = {}) {
  const io = captureRender(overrides);
  const renderer = await createRenderer(format, io.options);
  for (const event of events) renderer.onEvent(event);
  renderer.close();
  return io;
}

const ESC = String.fromCharCode(27);
/** Spinner frames redraw one line with \r and blank it with spaces; what stays on screen are the other writes. */
const withoutSpinner = (text: string) => text.replace(/\r[^\r\n]*Ionizing…/g, "").replace(/\r +\r/g, "");
/** ANSI colour/style (SGR) sequences. */
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`);

function jsonLines(text: string): Record<string, unknown>[] {
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("-o json", () => {
  test("prints exactly one line: the result, whatever happened", async () => {
    for (const final of [
      result(),
      result({
        subtype: "error_during_execution",
        is_error: true,
        result: "",
        errors: ["boom"],
        error_kind: "server",
        api_error_status: 500,
      }),
      result({
        subtype: "error_interrupted",
        is_error: true,
        errors: ["interrupted"],
        error_kind: "interrupted",
      }),
    ]) {
      const io = await render("json", fullRun(final), { stdoutIsTTY: true, stderrIsTTY: true });
      const lines = jsonLines(io.out());
      expect(lines).toHaveLength(1);
      const parsed = ResultSchema.parse(lines[0]);
      expect(parsed.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(parsed).toEqual({ ...final, uuid: parsed.uuid });
      expect(io.err()).toBe("");
    }
  });

  test("U+2028/2029 are escaped so the object stays on one line", async () => {
    const final = result({ result: "line\u2028sep\u2029para\nnewline" });
    const io = await render("json", [INIT, { type: "result", result: final }]);
    expect(io.out()).not.toContain("\u2028");
    expect(io.out()).not.toContain("\u2029");
    expect(io.out()).toContain("\\u2028");
    expect(jsonLines(io.out())[0]?.result).toBe(final.result);
  });
});

describe("-o stream-json", () => {
  test("line order and shapes follow the contract; one write per line", async () => {
    const io = await render("stream-json", fullRun());
    for (const chunk of io.chunks) expect(chunk.indexOf("\n")).toBe(chunk.length - 1);
    const lines = jsonLines(io.out());
    const { init, middle, result: last } = parseStreamJson(lines);
    expect(init).toMatchObject({
      session_id: "sess-1",
      tools: ["read_file", "bash"],
      permission_mode: "ask",
      permissionMode: "default",
      apiKeySource: "ANTHROPIC_API_KEY",
      mcp_servers: [],
      slash_commands: [],
    });
    // Every line its own UUIDv7.
    expect(new Set(lines.map((l) => l.uuid)).size).toBe(lines.length);
    expect(lines.map((l) => (l.type === "system" ? `system/${l.subtype}` : l.type))).toEqual([
      "system/init",
      "assistant",
      "user",
      "system/api_retry",
      "assistant",
      "result",
    ]);
    expect(middle[0]).toEqual({
      type: "assistant",
      session_id: "sess-1",
      uuid: expect.any(String),
      parent_tool_use_id: null,
      message: {
        id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
        type: "message",
        role: "assistant",
        model: "claude-x",
        content: [
          { type: "thinking", thinking: "Let me look.", signature: "SECRET-SIGNATURE" },
          { type: "text", text: "Checking", citations: null },
          { type: "tool_use", id: "call-1", name: "bash", input: { command: "echo 2+2\nmore" } },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: {
          ...USAGE,
          cache_creation: null,
          fallback_credit: null,
          inference_geo: null,
          iterations: null,
          output_tokens_details: null,
          server_tool_use: null,
          service_tier: null,
          speed: null,
        },
        container: null,
        context_management: null,
        diagnostics: null,
        stop_details: null,
      },
    });
    expect(middle[1]).toEqual({
      type: "user",
      session_id: "sess-1",
      uuid: expect.any(String),
      parent_tool_use_id: null,
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "call-1", content: "TOOL-OUTPUT", is_error: false }],
      },
    });
    expect(middle[2]).toEqual({
      type: "system",
      subtype: "api_retry",
      session_id: "sess-1",
      uuid: expect.any(String),
      attempt: 1,
      max_retries: 3,
      retry_delay_ms: 250,
      error_status: 529,
      error: "overloaded",
      error_message: "overloaded from anthropic: Overloaded",
    });
    const { uuid: _uuid, ...final } = last;
    expect(final).toEqual(result());
  });

  test("the thinking signature is kept in the assistant message, never in a partial event", async () => {
    for (const partial of [false, true]) {
      const io = await render("stream-json", fullRun(), { partial });
      const lines = jsonLines(io.out());
      const assistant = lines.find((l) => l.type === "assistant");
      expect(JSON.stringify(assistant)).toContain("SECRET-SIGNATURE");
      const events = lines.filter((l) => l.type === "stream_event");
      expect(JSON.stringify(events)).not.toContain("SECRET-SIGNATURE");
    }
  });

  test("--partial adds Anthropic's raw stream events, block by block, in order", async () => {
    const io = await render("stream-json", fullRun(), { partial: true });
    const lines = jsonLines(io.out());
    parseStreamJson(lines);
    const kinds = lines.map((l) => {
      if (l.type !== "stream_event") return String(l.type);
      const event = l.event as { type: string; index?: number; delta?: Record<string, string> };
      const delta = event.delta
        ? `:${event.delta.type ?? ""}:${event.delta.text ?? event.delta.thinking ?? ""}`
        : "";
      return `${event.type}${event.index === undefined ? "" : `#${event.index}`}${delta}`;
    });
    expect(kinds).toEqual([
      "system",
      "message_start",
      "content_block_start#0",
      "content_block_delta#0:thinking_delta:Let me look.",
      "content_block_stop#0",
      "content_block_start#1",
      "content_block_delta#1:text_delta:Checking",
      "content_block_stop#1",
      // The call arrived whole (no streamed deltas): one input_json_delta with its JSON.
      "content_block_start#2",
      "content_block_delta#2:input_json_delta:",
      "content_block_stop#2",
      "message_delta::",
      "message_stop",
      "assistant",
      "user",
      "system",
      "message_start",
      "content_block_start#0",
      "content_block_delta#0:text_delta:The answer ",
      "content_block_delta#0:text_delta:is 4.",
      "content_block_stop#0",
      "message_delta::",
      "message_stop",
      "assistant",
      "result",
    ]);
    const start = lines[1]?.event as { message: { id: string } };
    const assistant = lines.find((l) => l.type === "assistant") as { message: { id: string } };
    expect(start.message.id).toBe(assistant.message.id);
    expect(lines[9]?.event).toMatchObject({
      delta: { type: "input_json_delta", partial_json: JSON.stringify({ command: "echo 2+2\nmore" }) },
    });
    expect(lines[11]?.event).toMatchObject({ type: "message_delta", delta: { stop_reason: "tool_use" } });
  });

  test("streamed tool calls become tool_use blocks with input_json_delta pieces", async () => {
    const events: AgentEvent[] = [
      INIT,
      { type: "tool_use_start", index: 0, id: "call-9", name: "read_file" },
      { type: "tool_use_delta", index: 0, partial_json: '{"path":' },
      { type: "tool_use_delta", index: 0, partial_json: '"a.txt"}' },
      {
        type: "assistant",
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id: "call-9", name: "read_file", input: { path: "a.txt" } }],
        },
        stop_reason: "tool_use",
        usage: USAGE,
      },
      { type: "result", result: result() },
    ];
    const lines = jsonLines((await render("stream-json", events, { partial: true })).out());
    const raw = lines.filter((l) => l.type === "stream_event").map((l) => l.event);
    expect(raw.slice(1, 5)).toEqual([
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "call-9", name: "read_file", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"path":' },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '"a.txt"}' },
      },
      { type: "content_block_stop", index: 0 },
    ]);
  });

  test("without --partial there are no stream_event lines", async () => {
    const io = await render("stream-json", fullRun());
    expect(jsonLines(io.out()).some((l) => l.type === "stream_event")).toBe(false);
  });

  test("U+2028/2029 in any field are escaped; every line stays one line", async () => {
    const tricky = "a\u2028b\u2029c";
    const events: AgentEvent[] = [
      INIT,
      { type: "text_delta", text: tricky },
      {
        type: "assistant",
        message: { role: "assistant", content: [{ type: "text", text: tricky }] },
        stop_reason: "end_turn",
        usage: USAGE,
      },
      { type: "result", result: result({ result: tricky }) },
    ];
    const io = await render("stream-json", events, { partial: true });
    expect(io.out()).not.toMatch(/[\u2028\u2029]/);
    const lines = jsonLines(io.out());
    expect(parseStreamJson(lines).result.result).toBe(tricky);
    const deltas = lines.filter((l) => l.type === "stream_event").map((l) => l.event);
    expect(deltas).toContainEqual({
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: tricky },
    });
  });

  test("a retry without an HTTP status reports error_status null", async () => {
    const events: AgentEvent[] = [
      INIT,
      {
        type: "api_retry",
        attempt: 2,
        max_retries: 3,
        delay_ms: 1000,
        error: { kind: "network", message: "cannot reach anthropic" },
      },
      { type: "result", result: result() },
    ];
    const lines = jsonLines((await render("stream-json", events)).out());
    expect(parseStreamJson(lines).middle[0]).toMatchObject({ error_status: null, attempt: 2 });
  });

  test("an error result is still the last line", async () => {
    const failed = result({
      subtype: "error_max_turns",
      is_error: true,
      errors: ["limit"],
      error_kind: "max_turns",
    });
    const lines = jsonLines((await render("stream-json", fullRun(failed))).out());
    expect(parseStreamJson(lines).result).toMatchObject(failed);
  });
});

describe("-o text", () => {
  test("stdout not a TTY: only the final answer, once, with a newline", async () => {
    const io = await render("text", fullRun());
    expect(io.out()).toBe("The answer is 4.\n");
    expect(io.err()).toBe("");
  });

  test("stdout not a TTY: an answer ending in a newline gets no second one", async () => {
    const io = await render("text", [INIT, { type: "result", result: result({ result: "done\n" }) }]);
    expect(io.out()).toBe("done\n");
  });

  test("stdout not a TTY: nothing on stdout when the run failed", async () => {
    for (const subtype of ["error_during_execution", "error_max_turns", "error_interrupted"] as const) {
      const io = await render("text", fullRun(result({ subtype, is_error: true, errors: ["x"] })));
      expect(io.out()).toBe("");
    }
  });

  test("stdout a TTY: deltas stream live and the output ends with a newline", async () => {
    const io = await render("text", fullRun(), { stdoutIsTTY: true });
    expect(io.chunks.slice(0, 3)).toEqual(["Checking", "The answer ", "is 4."]);
    expect(io.out()).toBe("CheckingThe answer is 4.\n");
  });

  test("stdout a TTY: no extra newline when the stream ended with one; none at all without text", async () => {
    const events: AgentEvent[] = [
      INIT,
      { type: "text_delta", text: "hi\n" },
      { type: "result", result: result() },
    ];
    expect((await render("text", events, { stdoutIsTTY: true })).out()).toBe("hi\n");
    const silent: AgentEvent[] = [INIT, { type: "result", result: result({ subtype: "error_interrupted" }) }];
    expect((await render("text", silent, { stdoutIsTTY: true })).out()).toBe("");
  });

  test("stderr a TTY: tool lines and retry notes, no thinking or usage without -v", async () => {
    const io = await render("text", fullRun(), { stderrIsTTY: true });
    const err = withoutSpinner(io.err());
    expect(err).toContain("● bash  echo 2+2 …\n");
    expect(err).not.toContain("more");
    expect(err).toContain("✓ 1.5s\n");
    expect(err).toContain("retrying in 0.3s (1/3): overloaded from anthropic: Overloaded\n");
    expect(err).not.toContain("Let me look.");
    expect(err).not.toContain("TOOL-OUTPUT");
    expect(err).not.toContain("turn(s)");
    expect(io.err()).toContain("Ionizing…");
    expect(io.out()).toBe("The answer is 4.\n");
  });

  test("a failed tool is marked ✗ with its reason", async () => {
    const events: AgentEvent[] = [
      INIT,
      { type: "tool_start", id: "1", name: "read_file", input: { path: "missing.txt" } },
      {
        type: "tool_end",
        id: "1",
        name: "read_file",
        is_error: true,
        content: "no such file",
        duration_ms: 20,
      },
      { type: "result", result: result() },
    ];
    const err = withoutSpinner((await render("text", events, { stderrIsTTY: true })).err());
    expect(err).toContain("● read_file  missing.txt\n");
    // The reason, as the chat shows it: a failure says why, not only how long it took.
    expect(err).toContain("✗ no such file\n");
  });

  test("--quiet silences stderr progress", async () => {
    const io = await render("text", fullRun(), { stderrIsTTY: true, quiet: true });
    expect(io.err()).toBe("");
    expect(io.out()).toBe("The answer is 4.\n");
  });

  test("-v adds thinking, tool results and the usage line", async () => {
    const io = await render("text", fullRun(), { stderrIsTTY: true, verbose: true });
    const err = withoutSpinner(io.err());
    expect(err).toContain("Let me look.\n");
    expect(err).toContain("TOOL-OUTPUT\n");
    expect(err).toMatch(
      /anthropic\/claude-x · 2 turns · in 120 \(\+100 cached\) · out 30 · cost unknown · \d+% ctx · 1\.2s\n/,
    );
    expect(err.indexOf("Let me look.")).toBeLessThan(err.indexOf("● bash"));
  });

  test("no escape codes at all when colour is off, spinner included; colour codes when on", async () => {
    const plain = await render("text", fullRun(), { stdoutIsTTY: true, stderrIsTTY: true });
    expect(plain.err()).toContain("Ionizing…");
    expect(plain.err()).not.toContain(ESC);
    expect(plain.out()).not.toContain(ESC);
    const verbose = await render("text", fullRun(), { stdoutIsTTY: true, stderrIsTTY: true, verbose: true });
    expect(verbose.err()).not.toContain(ESC);
    const colored = await render("text", fullRun(), {
      stdoutIsTTY: true,
      stderrIsTTY: true,
      verbose: true,
      color: true,
    });
    expect(colored.err()).toMatch(SGR);
    // The answer itself is never styled.
    expect(colored.out()).not.toContain(ESC);
  });

  test("the spinner is erased before a progress line is written", async () => {
    const io = await render("text", fullRun(), { stderrIsTTY: true });
    const err = io.err();
    const toolLine = err.indexOf("● bash");
    const lastSpinner = err.lastIndexOf("Ionizing…", toolLine);
    expect(lastSpinner).toBeGreaterThanOrEqual(0);
    expect(err.slice(lastSpinner, toolLine)).toMatch(/^Ionizing…\r +\r$/);
  });

  test("stderr not a TTY: no spinner and no escape codes at all", async () => {
    const io = await render("text", fullRun(), { color: false });
    expect(io.err()).toBe("");
    expect(io.out()).not.toContain(ESC);
  });
});

describe("summarizeInput", () => {
  test("picks command, path or pattern, first line only (marked when more follow), capped", () => {
    expect(summarizeInput({ command: "ls -la\nrm -rf /" })).toBe("ls -la …");
    expect(summarizeInput({ command: "ls -la\n" })).toBe("ls -la");
    expect(summarizeInput({ path: "notes\nsecond.txt" })).toBe("notes …");
    expect(summarizeInput({ path: "src/a.ts", offset: 3 })).toBe("src/a.ts");
    expect(summarizeInput({ pattern: "*.ts" })).toBe("*.ts");
    expect(summarizeInput({ other: 42 })).toBe("42");
    expect(summarizeInput({})).toBe("");
    const long = summarizeInput({ command: "x".repeat(200) });
    expect(long).toHaveLength(80);
    expect(long.endsWith("…")).toBe(true);
  });
});

describe("compaction", () => {
  const boundary = (
    overrides: Partial<Extract<AgentEvent, { type: "compact_boundary" }>> = {},
  ): AgentEvent => ({
    type: "compact_boundary",
    trigger: "auto",
    pre_tokens: 152_340,
    post_tokens: 41_200,
    summary: "SECRET-SUMMARY of the conversation",
    kept: 7,
    method: "summary",
    ...overrides,
  });
  const compactedRun = (event: AgentEvent = boundary()) => {
    const events = fullRun();
    events.splice(1, 0, event);
    return events;
  };

  test("stream-json: a system/compact_boundary line that validates, without the summary text", async () => {
    const io = await render("stream-json", compactedRun());
    const lines = jsonLines(io.out());
    const { middle } = parseStreamJson(lines);
    expect(lines[1]).toEqual({
      type: "system",
      subtype: "compact_boundary",
      session_id: "sess-1",
      uuid: expect.any(String),
      compact_metadata: { trigger: "auto", pre_tokens: 152_340, post_tokens: 41_200 },
      trigger: "auto",
      pre_tokens: 152_340,
      post_tokens: 41_200,
    });
    expect(middle[0]).toEqual(CompactBoundarySchema.parse(lines[1]));
    expect(io.out()).not.toContain("SECRET-SUMMARY");
  });

  test("stream-json: every trigger validates; an unknown extra field does not", async () => {
    for (const trigger of ["auto", "manual", "overflow"] as const) {
      const lines = jsonLines((await render("stream-json", compactedRun(boundary({ trigger })))).out());
      expect(parseStreamJson(lines).middle[0]).toMatchObject({ subtype: "compact_boundary", trigger });
    }
    expect(() =>
      CompactBoundarySchema.parse({
        type: "system",
        subtype: "compact_boundary",
        session_id: "s",
        trigger: "auto",
        pre_tokens: 1,
        post_tokens: 1,
        summary: "x",
      }),
    ).toThrow();
  });

  test("text: a dim note on stderr when progress is on, nothing otherwise", async () => {
    const io = await render("text", compactedRun(), { stderrIsTTY: true });
    expect(withoutSpinner(io.err())).toContain("compacted: 152k → 41k tokens (auto)\n");
    expect(io.err()).not.toContain("SECRET-SUMMARY");
    expect(io.out()).toBe("The answer is 4.\n");

    const dropped = await render("text", compactedRun(boundary({ trigger: "overflow", method: "dropped" })), {
      stderrIsTTY: true,
    });
    expect(withoutSpinner(dropped.err())).toContain("(overflow, summary failed: oldest messages dropped)");

    const colored = await render("text", compactedRun(), { stderrIsTTY: true, color: true });
    expect(colored.err()).toContain(`${ESC}[2mcompacted: 152k → 41k tokens (auto)${ESC}[22m`);

    for (const quiet of [{ stderrIsTTY: false }, { stderrIsTTY: true, quiet: true }])
      expect((await render("text", compactedRun(), quiet)).err()).not.toContain("compacted");
  });

  test("token counts are shown in thousands from 1000 on", () => {
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(1000)).toBe("1k");
    expect(formatTokens(152_340)).toBe("152k");
  });
});

describe("the -v summary line", () => {
  test("cost in dollars and the share of the context window the last request used", () => {
    const summary = result({ num_turns: 1, total_cost_usd: 0.01234, duration_ms: 3200 });
    expect(summaryLine(summary, 46_000, 200_000)).toBe(
      "anthropic/claude-x · 1 turn · in 120 (+100 cached) · out 30 · $0.0123 · 23% ctx · 3.2s",
    );
    expect(summaryLine({ ...summary, total_cost_usd: null }, 0, null)).toBe(
      "anthropic/claude-x · 1 turn · in 120 (+100 cached) · out 30 · cost unknown · 3.2s",
    );
  });
});
