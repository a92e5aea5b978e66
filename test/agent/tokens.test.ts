import { describe, expect, test } from "bun:test";
import { contextEstimate, estimateTokens, messageChars, usageTotal } from "../../src/agent/tokens.ts";
import type { Message, ToolSpec } from "../../src/providers/types.ts";
import { usageOf, userText } from "../support/stream-helpers.ts";

const call: Message = {
  role: "assistant",
  content: [
    { type: "thinking", thinking: "hmm", signature: "x".repeat(1000) },
    { type: "text", text: "ok" },
    { type: "tool_use", id: "c1", name: "read", input: { path: "a.ts" } },
  ],
};
const result: Message = {
  role: "user",
  content: [{ type: "tool_result", tool_use_id: "c1", content: "0123456789", is_error: false }],
};

describe("estimateTokens", () => {
  test("chars/4 of text, thinking, tool inputs as JSON and results; signatures do not count", () => {
    expect(messageChars(userText("abcd"))).toBe(4);
    expect(messageChars(call)).toBe(3 + 2 + "read".length + JSON.stringify({ path: "a.ts" }).length);
    expect(messageChars(result)).toBe(10);
    expect(estimateTokens([userText("abcdefgh")])).toBe(2);
    // Rounded up: one character is a token.
    expect(estimateTokens([userText("a")])).toBe(1);
    expect(estimateTokens([])).toBe(0);
  });

  test("the system prompt and the tools' schemas count too", () => {
    const tool: ToolSpec = { name: "read", description: "reads", input_schema: { type: "object" } };
    expect(estimateTokens([userText("abcd")], "efgh")).toBe(2);
    expect(estimateTokens([], "", [tool])).toBe(Math.ceil(JSON.stringify(tool).length / 4));
  });
});

describe("contextEstimate", () => {
  const everything = { messages: [userText("x".repeat(400)), call, result], system: "s".repeat(40) };

  test("with usage: the last request's input, cache reads and writes and output, plus what came since", () => {
    const usage = usageOf(1000, 200, 5000, 300);
    expect(usageTotal(usage)).toBe(6500);
    expect(contextEstimate(usage, [result], everything)).toBe(6500 + 3);
    expect(contextEstimate(usage, [], everything)).toBe(6500);
  });

  test("without usage (none, or all zeros): chars/4 of everything", () => {
    const all = estimateTokens(everything.messages, everything.system);
    expect(all).toBeGreaterThan(100);
    expect(contextEstimate(undefined, [result], everything)).toBe(all);
    expect(contextEstimate(usageOf(0, 0), [result], everything)).toBe(all);
  });
});
