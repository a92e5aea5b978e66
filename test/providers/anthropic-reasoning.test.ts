/**
 * Reasoning blocks on the Anthropic wire: read from the stream, kept tagged with the provider, and sent
 * back in the tool loop — only to the provider that made them.
 *
 * Anthropic (extended thinking, "Thinking redaction in Claude 3.7 Sonnet"): "Occasionally Claude's
 * internal reasoning will be flagged by our safety systems. When this occurs, we encrypt some or all of
 * the thinking block and return it to you as a redacted_thinking block. redacted_thinking blocks are
 * decrypted when passed back to the API, allowing Claude to continue its response without losing
 * context." and "It is only strictly necessary to send back thinking blocks when using tools with
 * extended thinking."
 */
import { describe, expect, test } from "bun:test";
import type { AgentEvent } from "../../src/agent/events.ts";
import { runAgent } from "../../src/agent/loop.ts";
import { streamAnthropic } from "../../src/providers/anthropic.ts";
import type { Message, StreamEvent } from "../../src/providers/types.ts";
import type { AgentTool } from "../../src/tools/types.ts";
import { fixtureText } from "../support/fake-llm.ts";
import { collectEvents, useAdapterHarness, userText } from "../support/stream-helpers.ts";
import { MESSAGES, serveStrict, strictAnthropic } from "../support/strict-anthropic.ts";

const MODEL = "claude-3-7-sonnet-20250219";
const { server, provider, request, collect } = useAdapterHarness("anthropic", streamAnthropic, {
  apiKey: "sk-ant-test-fake-0002",
  model: MODEL,
  prompt: "What is in notes.txt?",
  resetRequestsEachTest: true,
});

// Shaped like the API's redacted data: opaque base64.
const REDACTED = ["EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP", "EmwKAhgBEgyXYZ2Nq0aB"];
const read: AgentTool = {
  spec: { name: "read_file", description: "read a file", input_schema: { type: "object" } },
  readOnly: true,
  execute: async () => ({ content: "hello from notes", is_error: false }),
};

type Wire = { role: string; content: { type: string; [key: string]: unknown }[] };
const sentMessages = (i: number) => (server.requests[i]!.body as { messages: Wire[] }).messages;

describe("redacted_thinking in the stream", () => {
  test("each redacted block becomes a textless thinking block of its own holding the data", async () => {
    const strict = strictAnthropic();
    strict.reply({ redacted: REDACTED, thinking: "Let me read it.", text: "Reading." });
    serveStrict(server, strict, 1);
    const events = await collect(request({ thinking: "low" }));
    const reasoning = events.filter((e) => e.type.startsWith("thinking"));
    expect(reasoning.slice(0, 4)).toEqual([
      { type: "thinking_opaque", fields: { redacted_data: REDACTED[0] }, newBlock: true },
      { type: "thinking_opaque", fields: { redacted_data: REDACTED[1] }, newBlock: true },
      { type: "thinking_opaque", fields: {}, newBlock: true },
      { type: "thinking_delta", text: "Let " },
    ]);
    expect(reasoning.at(-1)?.type).toBe("thinking_signature");
  });

  test("a JSON message body (a proxy that does not stream) keeps them too", async () => {
    server.enqueue({
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "msg_01",
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [
          { type: "redacted_thinking", data: REDACTED[0] },
          { type: "text", text: "Hi" },
        ],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 2 },
      }),
    });
    const events = await collect(request({ thinking: "low" }));
    expect(events[0]).toEqual({
      type: "thinking_opaque",
      fields: { redacted_data: REDACTED[0] },
      newBlock: true,
    });
  });
});

describe("the tool loop sends the turn's reasoning back", () => {
  test("claude-3-7: redacted and signed thinking go back unchanged; the strict endpoint accepts both requests", async () => {
    const strict = strictAnthropic();
    strict.reply({
      redacted: REDACTED,
      thinking: "I should read the file.",
      toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }],
    });
    strict.reply({ text: "It says hello." });
    serveStrict(server, strict, 2);
    const events: AgentEvent[] = await collectEvents(
      runAgent(
        {
          sessionId: "s1",
          cwd: "/workspace",
          provider: provider(),
          model: MODEL,
          system: "be brief",
          messages: [userText("What is in notes.txt?")],
          thinking: "low",
          tools: [read],
          permissionMode: "auto",
          maxTurns: 5,
          signal: new AbortController().signal,
        },
        { stream: streamAnthropic },
      ),
    );
    expect(strict.verdicts).toEqual([null, null]);
    const result = events.at(-1);
    expect(result?.type === "result" && result.result.subtype).toBe("success");
    const turn = sentMessages(1)[1]!;
    expect(turn.role).toBe("assistant");
    expect(turn.content.map((b) => b.type)).toEqual([
      "redacted_thinking",
      "redacted_thinking",
      "thinking",
      "tool_use",
    ]);
    expect(turn.content.slice(0, 2)).toEqual(REDACTED.map((data) => ({ type: "redacted_thinking", data })));

    // The endpoint is strict: the same loop without the redacted blocks is refused as the API refuses it.
    serveStrict(server, strict, 1);
    const dropped = sentMessages(1).map((m, i) => (i === 1 ? { ...m, content: m.content.slice(2) } : m));
    const replay = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...(server.requests[1]!.body as object), messages: dropped }),
    });
    expect(replay.status).toBe(400);
    expect(strict.verdicts[2]).toBe(MESSAGES.invalidSignature("messages.1.content.0"));
  });
});

describe("whose reasoning is sent", () => {
  const tag = (provider: string, wire: "anthropic" | "openai", fields: Record<string, unknown> = {}) => ({
    provider,
    wire,
    fields,
  });
  const history = (...blocks: Extract<Message, { role: "assistant" }>["content"]): Message[] => [
    userText("q"),
    { role: "assistant", content: [...blocks, { type: "text", text: "a" }] },
    userText("next"),
  ];

  test("this provider's redacted and signed blocks go back; another provider's or wire's are dropped", async () => {
    server.enqueue({ body: await fixtureText("streaming/anthropic-stream-text.sse") });
    const events: StreamEvent[] = await collect(
      request({
        messages: history(
          {
            type: "thinking",
            thinking: "",
            opaque: tag("anthropic", "anthropic", { redacted_data: "mine" }),
          },
          { type: "thinking", thinking: "signed", signature: "c2ln", opaque: tag("anthropic", "anthropic") },
          {
            type: "thinking",
            thinking: "",
            opaque: tag("work-proxy", "anthropic", { redacted_data: "theirs" }),
          },
          {
            type: "thinking",
            thinking: "other key",
            signature: "b3RoZXI=",
            opaque: tag("work-proxy", "anthropic"),
          },
          {
            type: "thinking",
            thinking: "deepseek",
            opaque: tag("deepseek", "openai", { reasoning_content: "r" }),
          },
          { type: "thinking", thinking: "from before tags", signature: "b2xk" },
        ),
      }),
    );
    expect(events.at(-1)?.type).toBe("done");
    expect(sentMessages(0)[1]?.content).toEqual([
      { type: "redacted_thinking", data: "mine" },
      { type: "thinking", thinking: "signed", signature: "c2ln" },
      // Blocks saved before they were tagged: only the Anthropic wire ever signed thinking.
      { type: "thinking", thinking: "from before tags", signature: "b2xk" },
      { type: "text", text: "a" },
    ]);
  });
});

describe("tool-call ids of other wires", () => {
  test("an id outside Anthropic's pattern is mapped, the same for the call and its result", async () => {
    server.enqueue({ body: await fixtureText("streaming/anthropic-stream-text.sse") });
    await collect(
      request({
        messages: [
          userText("q"),
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "functions.read_file:0", name: "read_file", input: {} }],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "functions.read_file:0", content: "x", is_error: false },
            ],
          },
        ],
      }),
    );
    const [, call, result] = sentMessages(0);
    const id = call?.content[0]?.id;
    expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(result?.content[0]?.tool_use_id).toBe(id);
  });
});
