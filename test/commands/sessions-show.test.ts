/**
 * `ion sessions show` as text: the header's token total matches the run ends (a run end counts its
 * subagents' tokens, which no message records), and a saved plan is shown as its checklist.
 */
import { describe, expect, test } from "bun:test";
import { renderTranscript } from "../../src/commands/sessions-show.ts";
import type { Transcript } from "../../src/history/export.ts";
import type { SessionEntry } from "../../src/history/schema.ts";
import { createStyle } from "../../src/ui/style.ts";

const at = "2025-06-01T10:00:00.000Z";
const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
});

const entries: SessionEntry[] = [
  { n: 0, at, type: "message", message: { role: "user", content: [{ type: "text", text: "look around" }] } },
  {
    n: 1,
    at,
    type: "message",
    stop_reason: "tool_use",
    usage: usage(100, 10),
    message: {
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_plan", name: "plan", input: { items: [] } },
        { type: "tool_use", id: "call_task", name: "task", input: { description: "d", prompt: "p" } },
      ],
    },
  },
  {
    n: 2,
    at,
    type: "extension_state",
    extension: "plan",
    data: {
      items: [
        { content: "read the code", status: "completed" },
        { content: "fix it", status: "in_progress" },
        { content: "test it", status: "pending" },
      ],
    },
  },
  {
    n: 3,
    at,
    type: "extension_state",
    extension: "subagents",
    parent_tool_use_id: "call_task",
    data: {
      type: "explorer",
      description: "d",
      messages: [
        { role: "user", content: [{ type: "text", text: "p" }] },
        { role: "assistant", content: [{ type: "text", text: "found it" }] },
      ],
    },
  },
  {
    n: 4,
    at,
    type: "message",
    message: {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "call_plan", content: "Plan updated.", is_error: false },
        { type: "tool_result", tool_use_id: "call_task", content: "found it", is_error: false },
      ],
    },
  },
  {
    n: 5,
    at,
    type: "message",
    stop_reason: "end_turn",
    usage: usage(140, 14),
    message: { role: "assistant", content: [{ type: "text", text: "done" }] },
  },
  // The run's end counts the child's 120 in / 12 out beside the session's own 240 / 24.
  {
    n: 6,
    at,
    type: "run_end",
    subtype: "success",
    num_turns: 2,
    usage: usage(360, 36),
    total_cost_usd: null,
    errors: [],
  },
  // A second run that was killed before its end: its messages count alone.
  { n: 7, at, type: "message", message: { role: "user", content: [{ type: "text", text: "more" }] } },
  {
    n: 8,
    at,
    type: "message",
    stop_reason: "end_turn",
    usage: usage(50, 5),
    message: { role: "assistant", content: [{ type: "text", text: "more done" }] },
  },
];

const transcript: Transcript = {
  header: {
    type: "session",
    version: 1,
    id: "01JXTESTSESSION0000000000",
    created_at: at,
    cwd: "/w",
    provider: "openai",
    model: "gpt-4o",
    title: "t",
  },
  entries,
};

describe("renderTranscript", () => {
  const out = renderTranscript(transcript, createStyle(false));

  test("the header's tokens are the run ends' (subagents included) plus an unfinished run's messages", () => {
    expect(out).toContain("── run end #6: success · 2 turns · 360 in / 36 out tokens ──");
    expect(out).toContain("6 messages · 410 in / 41 out tokens\n");
  });

  test("a saved plan is its checklist under the entry's rule", () => {
    expect(out).toContain("── extension state #2: plan ──\n☑ read the code\n◐ fix it\n☐ test it\n");
  });
});
