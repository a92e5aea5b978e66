import { expect, test } from "bun:test";
import { resumeView } from "../../src/chat/resume-view.ts";
import type { SessionEntry } from "../../src/history/schema.ts";
import { modelView } from "../../src/history/view.ts";
import { createStyle } from "../../src/ui/style.ts";

const AT = "2026-01-01T00:00:00.000Z";

test("a reopened chat never shows a context message as one of the user's prompts", () => {
  const entries: SessionEntry[] = [
    {
      type: "message",
      n: 0,
      at: AT,
      message: { role: "user", content: [{ type: "text", text: "fix the lexer" }] },
    },
    {
      type: "context_message",
      n: 1,
      at: AT,
      source: "memory",
      message: {
        role: "user",
        content: [{ type: "text", text: "RECALL: the lexer has a known bug" }],
        context: { source: "memory" },
      },
    },
    {
      type: "message",
      n: 2,
      at: AT,
      stop_reason: "end_turn",
      message: { role: "assistant", content: [{ type: "text", text: "Fixed it." }] },
    },
  ];
  const lines = resumeView(modelView(entries), createStyle(false), 80);
  expect(lines).toEqual(["> fix the lexer", "  Fixed it."]);
});
