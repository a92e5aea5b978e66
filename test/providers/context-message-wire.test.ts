/**
 * A context message (memory recall, a hook's additional context) is a user message with a `context`
 * mark that only ion reads: every wire sends it as a plain user message, the mark never on the wire.
 * Each adapter talks to the fake LLM; what it sent is read back from the recorded request body.
 */
import { describe, expect, test } from "bun:test";
import { streamAnthropic } from "../../src/providers/anthropic.ts";
import { streamMistral } from "../../src/providers/mistral.ts";
import { streamOllama } from "../../src/providers/ollama.ts";
import { streamOpenAI } from "../../src/providers/openai.ts";
import type { Message, StreamEvent } from "../../src/providers/types.ts";
import { fixtureText, splitFrames } from "../support/fake-llm.ts";
import { useAdapterHarness, userText } from "../support/stream-helpers.ts";

const RECALL = "Remembered: the user prefers small commits.";
const PROMPT = "commit the parser fix";

/** A context message, then the user's prompt: what a turn with recalled memory sends. */
const history: Message[] = [
  { role: "user", content: [{ type: "text", text: RECALL }], context: { source: "memory" } },
  userText(PROMPT),
];

interface SentMessage {
  role: string;
  content?: unknown;
}

/** The text of a wire message, whether its content is a string or a list of parts. */
function textOf(message: SentMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("");
}

function expectPlainUserMessages(body: unknown, events: StreamEvent[]): void {
  expect(events.at(-1)?.type).toBe("done");
  const raw = JSON.stringify(body);
  expect(raw).not.toContain('"context"');
  expect(raw).not.toContain("memory");
  const messages = (body as { messages: SentMessage[] }).messages.filter((m) => m.role !== "system");
  expect(messages.map((m) => [m.role, textOf(m)])).toEqual([
    ["user", RECALL],
    ["user", PROMPT],
  ]);
  expect(messages.every((m) => Object.keys(m).every((key) => key === "role" || key === "content"))).toBe(
    true,
  );
}

describe("a context message goes out as a plain user message", () => {
  const anthropic = useAdapterHarness("anthropic", streamAnthropic, {
    apiKey: "test-key-context-anthropic",
    model: "claude-sonnet-4-5",
    prompt: PROMPT,
  });
  const openai = useAdapterHarness("openai", streamOpenAI, {
    apiKey: "test-key-context-openai",
    model: "gpt-4o-mini",
    prompt: PROMPT,
  });
  const mistral = useAdapterHarness("mistral", streamMistral, {
    apiKey: "test-key-context-mistral",
    model: "mistral-small-latest",
    prompt: PROMPT,
  });
  const ollama = useAdapterHarness("ollama", streamOllama, {
    apiKey: "test-key-context-ollama",
    model: "llama3.2",
    prompt: PROMPT,
  });

  test("Anthropic Messages", async () => {
    anthropic.server.enqueueReply("anthropic", { text: "Committed." });
    const events = await anthropic.collect(anthropic.request({ messages: history }));
    expectPlainUserMessages(anthropic.server.requests.at(-1)?.body, events);
  });

  test("OpenAI Chat Completions", async () => {
    openai.server.enqueueReply("openai", { text: "Committed." });
    const events = await openai.collect(openai.request({ messages: history }));
    expectPlainUserMessages(openai.server.requests.at(-1)?.body, events);
  });

  test("Mistral", async () => {
    mistral.server.enqueueReply("mistral", { text: "Committed." });
    const events = await mistral.collect(mistral.request({ messages: history }));
    expectPlainUserMessages(mistral.server.requests.at(-1)?.body, events);
  });

  test("Ollama /api/chat", async () => {
    ollama.server.enqueue({
      pathSuffix: "/api/chat",
      headers: { "content-type": "application/x-ndjson" },
      chunks: splitFrames(await fixtureText("streaming/ollama-chat-stream-text.ndjson")),
    });
    // The window and thinking are known, so the wire asks no /api/show first.
    const request = ollama.request({
      provider: ollama.provider({ numCtx: 8192 }),
      messages: history,
      modelInfo: { reasoning: false, tool_call: true },
    });
    const events = await ollama.collect(request);
    const chat = ollama.server.requests.filter((r) => r.path.endsWith("/api/chat"));
    expect(chat).toHaveLength(1);
    expectPlainUserMessages(chat[0]!.body, events);
  });
});
