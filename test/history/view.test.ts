import { describe, expect, test } from "bun:test";
import type { SessionEntry } from "../../src/history/schema.ts";
import { INTERRUPTED_CALL_RESULT, modelView } from "../../src/history/view.ts";
import type { Message } from "../../src/providers/types.ts";

const AT = "2026-01-01T00:00:00.000Z";

function message(n: number, message: Message, stopReason?: string | null): SessionEntry {
  return {
    n,
    at: AT,
    type: "message",
    message,
    ...(stopReason !== undefined ? { stop_reason: stopReason } : {}),
  };
}

const ask: Message = { role: "user", content: [{ type: "text", text: "build it" }] };
const call = (id: string, text = "Building."): Message => ({
  role: "assistant",
  content: [
    { type: "text", text },
    { type: "tool_use", id, name: "bash", input: { command: "make" } },
  ],
});
const result = (id: string): Message => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "ok", is_error: false }],
});

describe("modelView: calls without a result", () => {
  test("a completed step's call whose result was never saved gets an 'interrupted' result after it", () => {
    const view = modelView([
      message(0, ask),
      message(1, call("c1"), "tool_use"),
      message(2, { role: "user", content: [{ type: "text", text: "what happened?" }] }),
    ]);
    expect(view.messages[1]).toEqual(call("c1"));
    expect(view.messages[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "c1", content: INTERRUPTED_CALL_RESULT, is_error: true }],
    });
    expect(view.messages).toHaveLength(4);
    // The added result is in no entry of the file.
    expect(view.ns).toEqual([0, 1, -1, 2]);
  });

  test("a step cut short (no stop reason) never ran its calls: they are dropped, its text kept", () => {
    const view = modelView([message(0, ask), message(1, call("c1", "Let me"), null)]);
    expect(view.messages).toEqual([ask, { role: "assistant", content: [{ type: "text", text: "Let me" }] }]);
    expect(view.ns).toEqual([0, 1]);
  });

  test("answered calls are left as they are", () => {
    const entries = [message(0, ask), message(1, call("c1"), "tool_use"), message(2, result("c1"))];
    const view = modelView(entries);
    expect(view.messages).toEqual([ask, call("c1"), result("c1")]);
    expect(view.ns).toEqual([0, 1, 2]);
  });
});
