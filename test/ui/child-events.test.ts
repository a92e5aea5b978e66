/**
 * A child agent's events (a subagent run by a tool call) in every front end: stream-json prints them as
 * Claude Code prints a subagent's lines (parent_tool_use_id set, the session's session_id, no second
 * init); the terminal renderers show only the child's tool lines, indented under the call.
 */
import { describe, expect, test } from "bun:test";
import type { AgentEvent, RunResult } from "../../src/agent/events.ts";
import { ChatRenderer } from "../../src/ui/chat-render.ts";
import { createRenderer, type RenderOptions } from "../../src/ui/renderer.ts";
import { createStyle } from "../../src/ui/style.ts";
import { parseStreamJson } from "../support/output-schemas.ts";
import { captureRender } from "../support/render-capture.ts";
import { usageOf } from "../support/stream-helpers.ts";

const USAGE = usageOf(10, 5);
const PARENT = "toolu_task1";

const init = (model: string, sessionId: string): AgentEvent => ({
  type: "init",
  session_id: sessionId,
  cwd: "/workspace",
  provider: "anthropic",
  model,
  tools: ["task"],
  mcp_servers: [],
  skills: [],
  permission_mode: "ask",
  slash_commands: [],
  key_source: "ANTHROPIC_API_KEY",
  context_window: 200_000,
});

const result: RunResult = {
  type: "result",
  schema_version: 2,
  subtype: "success",
  is_error: false,
  result: "Done.",
  session_id: "sess-1",
  provider: "anthropic",
  model: "parent-model",
  num_turns: 2,
  duration_ms: 100,
  duration_api_ms: 80,
  usage: USAGE,
  total_cost_usd: null,
  permission_denials: [],
  errors: [],
  stop_reason: "end_turn",
  modelUsage: {},
};

const child = <T extends AgentEvent>(event: T): T => ({ ...event, parent_tool_use_id: PARENT });

/** The parent calls `task`; while it runs, the child streams text, runs grep, answers. */
function runWithChild(): AgentEvent[] {
  return [
    init("parent-model", "sess-1"),
    { type: "text_delta", text: "Delegating." },
    {
      type: "assistant",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: "Delegating." },
          { type: "tool_use", id: PARENT, name: "task", input: { prompt: "find TODOs" } },
        ],
      },
      stop_reason: "tool_use",
      usage: USAGE,
    },
    { type: "tool_start", id: PARENT, name: "task", input: { prompt: "find TODOs" } },
    child(init("child-model", "child-session")),
    child({ type: "text_delta", text: "CHILD-TEXT" }),
    child({
      type: "assistant",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: "CHILD-TEXT" },
          { type: "tool_use", id: "toolu_grep", name: "grep", input: { pattern: "TODO" } },
        ],
      },
      stop_reason: "tool_use",
      usage: USAGE,
    }),
    child({ type: "tool_start", id: "toolu_grep", name: "grep", input: { pattern: "TODO" } }),
    child({
      type: "tool_end",
      id: "toolu_grep",
      name: "grep",
      is_error: false,
      content: "3 matches",
      duration_ms: 200,
    }),
    child({
      type: "tool_results",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_grep", content: "3 matches", is_error: false }],
      },
    }),
    child({
      type: "api_retry",
      attempt: 1,
      max_retries: 3,
      delay_ms: 100,
      error: { kind: "overloaded", message: "overloaded", status: 529 },
    }),
    child({
      type: "compact_boundary",
      trigger: "auto",
      pre_tokens: 900,
      post_tokens: 100,
      summary: "CHILD-SUMMARY",
      kept: 0,
      method: "summary",
    }),
    {
      type: "tool_end",
      id: PARENT,
      name: "task",
      is_error: false,
      content: "3 TODOs",
      duration_ms: 900,
      metadata: { title: "Found 3 TODOs" },
    },
    {
      type: "tool_results",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: PARENT, content: "3 TODOs", is_error: false }],
      },
    },
    { type: "text_delta", text: "Done." },
    {
      type: "assistant",
      message: { role: "assistant", content: [{ type: "text", text: "Done." }] },
      stop_reason: "end_turn",
      usage: USAGE,
    },
    { type: "result", result },
  ];
}

async function render(format: "text" | "stream-json", overrides: Partial<RenderOptions> = {}) {
  const io = captureRender(overrides);
  const renderer = await createRenderer(format, io.options);
  for (const event of runWithChild()) renderer.onEvent(event);
  renderer.close();
  return io;
}

const lines = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("stream-json: a child agent's lines", () => {
  test("carry parent_tool_use_id and the session's session_id; the session's own lines carry null", async () => {
    const io = await render("stream-json");
    const all = lines(io.out());
    parseStreamJson(all);
    const shape = all.map((l) => [
      l.type === "system" ? `system/${l.subtype}` : l.type,
      l.parent_tool_use_id,
    ]);
    expect(shape).toEqual([
      ["system/init", undefined],
      ["assistant", null],
      ["assistant", PARENT],
      ["user", PARENT],
      ["system/api_retry", PARENT],
      ["user", null],
      ["assistant", null],
      ["result", undefined],
    ]);
    expect(new Set(all.map((l) => l.session_id))).toEqual(new Set(["sess-1"]));
  });

  test("the child's init is not printed (one init per session), but names the model on its messages", async () => {
    const all = lines((await render("stream-json")).out());
    const inits = all.filter((l) => l.subtype === "init");
    expect(inits).toHaveLength(1);
    expect(inits[0]).toMatchObject({ model: "parent-model", session_id: "sess-1" });
    const models = all
      .filter((l) => l.type === "assistant")
      .map((l) => [(l.message as { model: string }).model, l.parent_tool_use_id]);
    expect(models).toEqual([
      ["parent-model", null],
      ["child-model", PARENT],
      ["parent-model", null],
    ]);
    // The child's compaction summary is its own context: no line, and never its text.
    expect(all.some((l) => l.subtype === "compact_boundary")).toBe(false);
  });

  test("with --partial, the child's stream_event lines carry its parent and its own message", async () => {
    const all = lines((await render("stream-json", { partial: true })).out());
    parseStreamJson(all);
    const events = all.filter((l) => l.type === "stream_event");
    const childEvents = events.filter((l) => l.parent_tool_use_id === PARENT);
    const ownEvents = events.filter((l) => l.parent_tool_use_id === null);
    expect(childEvents.length).toBeGreaterThan(0);
    expect(ownEvents.length).toBeGreaterThan(0);
    const start = childEvents.find((l) => (l.event as { type: string }).type === "message_start")?.event as
      | { message: { id: string; model: string } }
      | undefined;
    expect(start?.message.model).toBe("child-model");
    const childText = childEvents
      .map((l) => l.event as { type: string; delta?: { text?: string } })
      .filter((e) => e.type === "content_block_delta")
      .map((e) => e.delta?.text ?? "")
      .join("");
    expect(childText).toContain("CHILD-TEXT");
    // Each agent's message has its own id, as its assistant line says.
    const childAssistant = all.find((l) => l.type === "assistant" && l.parent_tool_use_id === PARENT)
      ?.message as { id: string } | undefined;
    expect(start?.message.id).toBe(childAssistant?.id ?? "no child assistant line");
  });
});

describe("terminal front ends: a child agent's tool lines, indented; nothing else of it", () => {
  test("run -o text: the child's text is not the answer; its tool lines are indented", async () => {
    const io = await render("text", { stdoutIsTTY: true, verbose: true });
    expect(io.out()).toContain("Done.");
    expect(io.out()).not.toContain("CHILD-TEXT");
    const err = io.err();
    expect(err).toContain("● task  find TODOs\n");
    expect(err).toContain("\n  ● grep  TODO\n");
    expect(err).toContain("\n    ✓ 0.2s\n");
    expect(err).toContain("\n  ✓ Found 3 TODOs · 0.9s\n");
    expect(err).not.toContain("compacted");
    expect(err).not.toContain("CHILD-SUMMARY");
  });

  test("chat: the same lines, and the child's text stays out of the answer", async () => {
    const written: string[] = [];
    const out = { write: (t: string) => void written.push(t) };
    const renderer = new ChatRenderer({
      out,
      progress: out,
      style: createStyle(false),
      color: false,
      interactive: false,
      showThinking: true,
    });
    for (const event of runWithChild()) await renderer.onEvent(event);
    const shown = written.join("");
    expect(shown).not.toContain("CHILD-TEXT");
    expect(shown).toContain("\n  ● grep  TODO\n");
    expect(shown).toContain("\n    ✓ 0.2s\n");
    expect(shown).toContain("  ✓ Found 3 TODOs · 0.9s\n");
    expect(shown).toContain("Done.");
  });
});
