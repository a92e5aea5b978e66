/**
 * The Ollama wire against the fake LLM: /api/chat NDJSON from ../shared/fixtures/streaming replayed
 * byte for byte, the request body ion sends, num_ctx from the session or from /api/show, and failures.
 */
import { describe, expect, test } from "bun:test";
import { streamProvider } from "../../src/providers/index.ts";
import { streamOllama } from "../../src/providers/ollama.ts";
import type { Message, ResolvedProvider, StreamEvent, StreamRequest } from "../../src/providers/types.ts";
import { fixtureText, splitFrames } from "../support/fake-llm.ts";
import {
  collectEvents,
  jsonResponse,
  testProvider,
  testRequest,
  usageOf,
  useFakeLLM,
  userText,
} from "../support/stream-helpers.ts";
import { ollamaShowBody, QWEN3, type Seen, strictOllama } from "../support/strict-ollama.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });

function provider(overrides: Partial<ResolvedProvider> = {}): ResolvedProvider {
  return testProvider({
    id: "ollama",
    name: "Ollama",
    wire: "ollama",
    baseURL: `${server.url}/v1`,
    apiKey: undefined,
    keySource: "none",
    numCtx: 8192,
    ...overrides,
  });
}

/** A request whose window and thinking the session already knows: no /api/show is needed. */
function request(overrides: Partial<StreamRequest> = {}): StreamRequest {
  return testRequest({
    provider: provider(),
    model: "llama3.2",
    system: "You are terse.",
    messages: [userText("what is the weather in Tokyo?")],
    modelInfo: { reasoning: false, tool_call: true },
    ...overrides,
  });
}

async function ndjson(fixture: string, extra: Partial<Parameters<typeof server.enqueue>[0]> = {}) {
  const chunks = splitFrames(await fixtureText(`streaming/${fixture}`));
  server.enqueue({
    pathSuffix: "/api/chat",
    headers: { "content-type": "application/x-ndjson" },
    chunks,
    ...extra,
  });
}

const collect = (req: StreamRequest) => collectEvents(streamOllama(req));
const body = (at = -1) => server.requests.at(at)?.body as Record<string, unknown>;
const errorOf = (events: StreamEvent[]) => {
  const last = events.at(-1);
  if (last?.type !== "error") throw new Error(`expected an error, got ${JSON.stringify(last)}`);
  return last.error;
};

describe("the stream", () => {
  test("text: deltas, usage from prompt_eval_count / eval_count, end_turn", async () => {
    await ndjson("ollama-chat-stream-text.ndjson");
    const events = await collect(request());
    const usage = usageOf(26, 282);
    expect(events).toEqual([
      { type: "text_delta", text: "The" },
      { type: "usage", usage },
      { type: "done", stop_reason: "end_turn", usage },
    ]);
  });

  test("whole tool calls with arguments as objects; an id is made up when Ollama sends none", async () => {
    await ndjson("ollama-chat-stream-tool-calls.ndjson");
    const events = await collect(request());
    const call = events.find((e) => e.type === "tool_call");
    expect(call).toMatchObject({ type: "tool_call", name: "get_weather", input: { city: "Tokyo" } });
    expect(call?.type === "tool_call" && call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(events.at(-1)).toEqual({ type: "done", stop_reason: "tool_use", usage: usageOf(169, 15) });

    await ndjson("ollama-chat-stream-tool-call-with-id.ndjson");
    const withId = await collect(request());
    expect(withId.slice(0, 3)).toEqual([
      { type: "tool_call_start", index: 0, id: "call_1", name: "web_search" },
      { type: "tool_call_delta", index: 0, arguments_delta: '{"query":"latest Ollama release"}' },
      { type: "tool_call", id: "call_1", name: "web_search", input: { query: "latest Ollama release" } },
    ]);
  });

  test("thinking arrives as message.thinking; done_reason length is max_tokens", async () => {
    const line = (message: object, extra: object = {}) =>
      `${JSON.stringify({ model: "qwen3:8b", message: { role: "assistant", content: "", ...message }, done: false, ...extra })}\n`;
    server.enqueue({
      pathSuffix: "/api/chat",
      chunks: [
        line({ thinking: "Hmm." }),
        line({ content: "Par" }),
        line({}, { done: true, done_reason: "length", prompt_eval_count: 5, eval_count: 2 }),
      ],
    });
    const events = await collect(request({ modelInfo: { reasoning: true, tool_call: true } }));
    expect(events.slice(0, 2)).toEqual([
      { type: "thinking_delta", text: "Hmm." },
      { type: "text_delta", text: "Par" },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "done", stop_reason: "max_tokens" });
  });
});

describe("the request", () => {
  test("messages in Ollama's shapes; tools; num_ctx and num_predict; no key, no Authorization", async () => {
    await ndjson("ollama-chat-stream-text.ndjson");
    const messages: Message[] = [
      userText("weather in Tokyo?"),
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Use the tool." },
          { type: "thinking", thinking: "signed elsewhere", signature: "sig" },
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Tokyo" } },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "11 C", is_error: false }],
      },
    ];
    const tool = { name: "get_weather", description: "Weather of a city", input_schema: { type: "object" } };
    await collect(request({ messages, tools: [tool], maxTokens: 99 }));
    const sent = server.requests.at(-1);
    expect(sent?.path).toBe("/api/chat");
    expect(sent?.headers.authorization).toBeUndefined();
    expect(body()).toEqual({
      model: "llama3.2",
      stream: true,
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "weather in Tokyo?" },
        {
          role: "assistant",
          content: "Checking.",
          thinking: "Use the tool.",
          tool_calls: [{ id: "toolu_01", function: { name: "get_weather", arguments: { city: "Tokyo" } } }],
        },
        { role: "tool", content: "11 C", tool_name: "get_weather", tool_call_id: "toolu_01" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object" } },
        },
      ],
      options: { num_ctx: 8192, num_predict: 99 },
    });
  });

  test("without a window from the session, /api/show is asked once and its context length sent", async () => {
    const seen: Seen[] = [];
    const card = { ...QWEN3, name: "qwen3:show-once" };
    for (let i = 0; i < 3; i++) server.enqueue(strictOllama([card], () => ({ text: "ok" }), seen));
    const req = () =>
      request({ provider: provider({ numCtx: undefined }), model: card.name, modelInfo: undefined });
    const first = await collect(req());
    await collect(req());
    expect(first.at(-1)?.type).toBe("done");
    expect(server.requests.map((r) => r.path)).toEqual(["/api/show", "/api/chat", "/api/chat"]);
    expect(server.requests[0]?.body).toEqual({ model: "qwen3:show-once" });
    // min(the model's 40960, ion's default cap); a thinking model with thinking off is told so.
    expect(body(1)).toMatchObject({ options: { num_ctx: 32768 }, think: false });
    expect(seen).toHaveLength(2);
  });

  test("/api/show unreadable: a notice first, then the request without num_ctx", async () => {
    server.enqueue({
      pathSuffix: "/api/show",
      ...jsonResponse(500, { error: "unexpected EOF" }),
    });
    await ndjson("ollama-chat-stream-text.ndjson");
    const events = await collect(request({ provider: provider({ numCtx: undefined }), model: "ghost:1b" }));
    expect(events[0]).toEqual({
      type: "notice",
      text: expect.stringContaining(
        "could not read the context length of ollama/ghost:1b from Ollama (HTTP 500: unexpected EOF)",
      ),
    });
    expect(body().options).toBeUndefined();
    expect(events.at(-1)?.type).toBe("done");
  });

  test("a model Ollama does not have: no note about its window, the chat's 404 says it", async () => {
    server.enqueue(
      strictOllama([QWEN3], () => ({ text: "unused" })),
      strictOllama([QWEN3], () => ({ text: "unused" })),
    );
    const events = await collect(request({ provider: provider({ numCtx: undefined }), model: "ghost:2b" }));
    expect(events.map((e) => e.type)).toEqual(["error"]);
    expect(errorOf(events)).toMatchObject({ kind: "model_not_found", status: 404 });
  });

  test("the card's show body carries what ion reads", () => {
    expect(ollamaShowBody(QWEN3).model_info).toMatchObject({ "qwen3.context_length": 40960 });
  });
});

describe("failures end the stream with an error event", () => {
  test("404 model not found (Ollama's body) is model_not_found", async () => {
    const text = await fixtureText("errors/ollama-404-model-not-found.json");
    server.enqueue({
      pathSuffix: "/api/chat",
      status: 404,
      headers: { "content-type": "application/json" },
      body: text,
    });
    const error = errorOf(await collect(request()));
    expect(error).toMatchObject({ kind: "model_not_found", status: 404 });
    expect(error.message).toBe(
      'unknown model "llama3.2" for ollama: model "llama3.2" not found, try pulling it first',
    );
  });

  test("500 is a server error, retried by streamProvider", async () => {
    const text = await fixtureText("errors/ollama-500-error.json");
    server.enqueue({
      pathSuffix: "/api/chat",
      status: 500,
      headers: { "content-type": "application/json" },
      body: text,
    });
    await ndjson("ollama-chat-stream-text.ndjson");
    const events = await collectEvents(streamProvider(request()));
    expect(events[0]).toMatchObject({
      type: "retry",
      attempt: 1,
      error: {
        kind: "server",
        status: 500,
        message: "server error 500 from ollama: the model failed to generate a response",
      },
    });
    expect(events.at(-1)?.type).toBe("done");
  });

  test("an error line mid-stream (status 200) is a server error after the text", async () => {
    const [first = ""] = splitFrames(await fixtureText("streaming/ollama-chat-stream-text.ndjson"));
    const errorLine = (await fixtureText("streaming/ollama-generate-stream-midstream-error.ndjson"))
      .trim()
      .split("\n")
      .at(-1);
    server.enqueue({ pathSuffix: "/api/chat", chunks: [first, `${errorLine}\n`] });
    const events = await collect(request());
    expect(events[0]).toEqual({ type: "text_delta", text: "The" });
    expect(errorOf(events)).toEqual({
      kind: "server",
      message: "server error from ollama: an error was encountered while running the model",
    });
  });

  test("a stream that ends without done is dropped; a refused connection names the host", async () => {
    const [first = ""] = splitFrames(await fixtureText("streaming/ollama-chat-stream-text.ndjson"));
    server.enqueue({ pathSuffix: "/api/chat", chunks: [first] });
    expect(errorOf(await collect(request())).kind).toBe("stream_dropped");

    const refused = provider({ baseURL: "http://127.0.0.1:9/v1" });
    const error = errorOf(await collect(request({ provider: refused })));
    expect(error.kind).toBe("network");
    expect(error.message).toStartWith("cannot reach ollama at http://127.0.0.1:9:");
  });

  test("a silent server is an idle timeout", async () => {
    const [first = ""] = splitFrames(await fixtureText("streaming/ollama-chat-stream-text.ndjson"));
    server.enqueue({ pathSuffix: "/api/chat", chunks: [first, first], stallAfterChunks: 1 });
    const events = await collect(request({ provider: provider({ idleTimeoutMs: 150 }) }));
    expect(errorOf(events).kind).toBe("idle_timeout");
  });

  test("a model without tools: the 400 says what to do", async () => {
    const said = { error: "registry.ollama.ai/library/gemma:2b does not support tools" };
    server.enqueue({ pathSuffix: "/api/chat", ...jsonResponse(400, said) });
    const error = errorOf(await collect(request()));
    expect(error.kind).toBe("bad_request");
    expect(error.message).toEndWith("— run with --no-tools, or pick a model that uses tools");
  });
});
