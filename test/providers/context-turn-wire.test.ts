/**
 * A turn with per-turn context sends two user messages in a row: the context message, then the prompt.
 * Every wire takes that as it is: Mistral's validator allows user after user (and after tool results the
 * wire already puts an assistant turn in between), Chat Completions and Ollama have no alternation rule,
 * and Anthropic's Messages API combines consecutive user turns into one. Proven here against the strict
 * Mistral endpoint (test/support/strict-mistral.ts), which answers as the real API does; what each
 * other wire sends is checked message by message.
 */
import { describe, expect, test } from "bun:test";
import { streamAnthropic } from "../../src/providers/anthropic.ts";
import { streamMistral } from "../../src/providers/mistral.ts";
import { UNANSWERED_TOOL_RESULTS } from "../../src/providers/mistral-messages.ts";
import { streamOpenAI } from "../../src/providers/openai.ts";
import type { Message, UserMessage } from "../../src/providers/types.ts";
import { useAdapterHarness, userText } from "../support/stream-helpers.ts";
import { strictMistralReply } from "../support/strict-mistral.ts";

const context = (text: string): UserMessage => ({
  role: "user",
  content: [{ type: "text", text }],
  context: { source: "memory" },
});

/** Two turns, each with its context message before the prompt. */
const afterAnswer: Message[] = [
  context("<memory>one</memory>"),
  userText("first"),
  { role: "assistant", content: [{ type: "text", text: "done" }] },
  context("<memory>two</memory>"),
  userText("second"),
];

/** The earlier turn stopped after its tools ran (--max-turns, an interrupt), then a turn with context. */
const afterTools: Message[] = [
  userText("list the files"),
  { role: "assistant", content: [{ type: "tool_use", id: "Zx9Yw8Vu7", name: "list_files", input: {} }] },
  {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "Zx9Yw8Vu7", content: "a.txt", is_error: false }],
  },
  context("<memory>two</memory>"),
  userText("go on"),
];

interface Sent {
  role: string;
  content?: unknown;
}

describe("Mistral takes a context message and its prompt in a row", () => {
  const { server, request, collect } = useAdapterHarness("mistral", streamMistral, {
    apiKey: "test-key-context-turn-mistral",
    model: "mistral-small-latest",
    prompt: "hi",
  });

  for (const [name, history] of [
    ["after an answer", afterAnswer],
    ["after tool results", afterTools],
  ] as const) {
    test(name, async () => {
      const rejected: string[] = [];
      server.enqueue(strictMistralReply({ text: "ok" }, rejected));
      const events = await collect(request({ messages: [...history] }));
      expect(rejected).toEqual([]);
      expect(events.at(-1)?.type).toBe("done");
      const sent = (server.requests.at(-1)!.body as { messages: Sent[] }).messages;
      expect(sent.slice(-2).map((m) => m.role)).toEqual(["user", "user"]);
      if (history === afterTools)
        expect(sent.at(-3)).toMatchObject({ role: "assistant", content: UNANSWERED_TOOL_RESULTS });
    });
  }
});

describe("the other wires send the two user messages as they are", () => {
  const anthropic = useAdapterHarness("anthropic", streamAnthropic, {
    apiKey: "test-key-context-turn-anthropic",
    model: "claude-sonnet-4-5",
    prompt: "hi",
  });
  const openai = useAdapterHarness("openai", streamOpenAI, {
    apiKey: "test-key-context-turn-openai",
    model: "gpt-4o-mini",
    prompt: "hi",
  });

  test("Anthropic: user, user, assistant, user, user; the cache breakpoint on the prompt", async () => {
    anthropic.server.enqueueReply("anthropic", { text: "ok" });
    const events = await anthropic.collect(anthropic.request({ messages: [...afterAnswer] }));
    expect(events.at(-1)?.type).toBe("done");
    const sent = (anthropic.server.requests.at(-1)!.body as { messages: Sent[] }).messages;
    expect(sent.map((m) => m.role)).toEqual(["user", "user", "assistant", "user", "user"]);
    expect(JSON.stringify(sent.at(-1))).toContain('"cache_control"');
    expect(JSON.stringify(sent.slice(0, -1))).not.toContain('"cache_control"');
  });

  test("OpenAI Chat Completions: user, user, assistant, user, user", async () => {
    openai.server.enqueueReply("openai", { text: "ok" });
    const events = await openai.collect(openai.request({ messages: [...afterAnswer] }));
    expect(events.at(-1)?.type).toBe("done");
    const sent = (openai.server.requests.at(-1)!.body as { messages: Sent[] }).messages;
    expect(sent.filter((m) => m.role !== "system").map((m) => m.role)).toEqual([
      "user",
      "user",
      "assistant",
      "user",
      "user",
    ]);
  });
});
