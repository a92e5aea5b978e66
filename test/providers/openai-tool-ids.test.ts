/**
 * The Chat Completions wire sends tool-call ids OpenAI accepts — at most 40 characters — even when the
 * session began on a server whose ids are longer (vLLM's `chatcmpl-tool-<uuid>`, 46), proven against
 * the strict endpoint (test/support/strict-openai.ts), which answers OpenAI's 400.
 */
import { describe, expect, test } from "bun:test";
import { streamOpenAI } from "../../src/providers/openai.ts";
import { refusedToolIds } from "../../src/providers/openai-request.ts";
import { OPENAI_TOOL_IDS, toolIdMap } from "../../src/providers/tool-ids.ts";
import type { Message } from "../../src/providers/types.ts";
import { useAdapterHarness, userText } from "../support/stream-helpers.ts";
import { strictOpenAIToolIds } from "../support/strict-openai.ts";

const { server, request, collect } = useAdapterHarness("openai", streamOpenAI, {
  apiKey: "sk-test-tool-ids-key-00000000000000001",
  model: "gpt-4o-mini",
  prompt: "hi",
  resetRequestsEachTest: true,
});

const VLLM_ID = "chatcmpl-tool-6f1c2a9e4b7d4e0f9a3c8b5d2e1f0a7c"; // 46 characters

/** A tool step: the assistant's call with `id`, then its result. */
function toolStep(id: string): Message[] {
  return [
    { role: "assistant", content: [{ type: "tool_use", id, name: "read_file", input: { path: "a.txt" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok", is_error: false }] },
  ];
}

interface SentMessage {
  role: string;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
}

/** One request against the strict endpoint: what it refused, and the ids sent. */
async function strictly(messages: Message[]) {
  const strict = strictOpenAIToolIds();
  server.enqueue(strict.turn({ text: "Done." }));
  const events = await collect(request({ messages }));
  const sent = (server.requests.at(-1)!.body as { messages: SentMessage[] }).messages;
  const calls = sent.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
  const results = sent.flatMap((m) => (m.tool_call_id === undefined ? [] : [m.tool_call_id]));
  return { violations: strict.violations, events, sent, calls, results };
}

describe("tool-call ids OpenAI refuses", () => {
  test("the strict endpoint answers OpenAI's 400 for a 46-character id (the bug this fixes)", async () => {
    const strict = strictOpenAIToolIds();
    server.enqueue(strict.turn({ text: "Done." }));
    // Sent as they are, bypassing the wire's mapping: what ion sent before.
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        messages: [{ role: "assistant", tool_calls: [{ id: VLLM_ID, function: { name: "read_file" } }] }],
      }),
    });
    expect(response.status).toBe(400);
    expect(strict.violations[0]).toContain(
      "Invalid 'messages[0].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got a string with length 46 instead.",
    );
  });

  test("a long id is mapped to one of 24 characters, the same for the call and its result; accepted", async () => {
    const history = [userText("read a.txt"), ...toolStep(VLLM_ID), userText("and again")];
    expect(refusedToolIds(history)).toBe(true);
    const { violations, events, calls, results } = await strictly(history);
    expect(violations).toEqual([]);
    expect(events.at(-1)?.type).toBe("done");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^[a-zA-Z0-9]{24}$/);
    expect(results).toEqual(calls);
    expect(calls[0]).toBe(toolIdMap([], OPENAI_TOOL_IDS)(VLLM_ID));
  });

  test("ids OpenAI accepts go as they are, beside a mapped one; the next turn's request repeats the first's", async () => {
    const history = [userText("read"), ...toolStep("call_Xq1v8m2LpZ0aT9bC4dE6fG7h"), ...toolStep(VLLM_ID)];
    const first = await strictly(history);
    expect(first.violations).toEqual([]);
    expect(first.calls[0]).toBe("call_Xq1v8m2LpZ0aT9bC4dE6fG7h");
    const later = await strictly([...history, ...toolStep("call_next0000001")]);
    expect(later.violations).toEqual([]);
    expect(JSON.stringify(later.sent.slice(0, first.sent.length))).toBe(JSON.stringify(first.sent));
  });

  test("a history of ids OpenAI accepts needs no mapping", () => {
    expect(
      refusedToolIds([userText("hi"), ...toolStep("call_abc"), ...toolStep("toolu_01A09q90qw90lq917835lq9")]),
    ).toBe(false);
    expect(refusedToolIds(toolStep(""))).toBe(true);
  });
});
