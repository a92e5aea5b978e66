import { describe, expect, spyOn, test } from "bun:test";
import { readdirSync } from "node:fs";
import { streamMistral } from "../../src/providers/mistral.ts";
import type { StreamEvent } from "../../src/providers/types.ts";
import { FIXTURES, fixtureText, splitFrames } from "../support/fake-llm.ts";
import {
  chatChunk,
  expectAuthError,
  finishEvents,
  jsonResponse,
  refusedURL,
  sseFrames,
  textDeltas,
  toolCallEvents,
  usageOf,
  useAdapterHarness,
} from "../support/stream-helpers.ts";

const KEY = "fake-mistral-key-0123456789abcdef";
const MODEL = "mistral-small-latest";
const { server, provider, request, collect, abortDuringStall } = useAdapterHarness("mistral", streamMistral, {
  apiKey: KEY,
  model: MODEL,
  prompt: "hi",
});

/** Mistral's SSE always ends with `[DONE]`. */
const sse = (...payloads: unknown[]) => sseFrames(...payloads, "[DONE]");

const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown) =>
  chatChunk(delta, finish, { id: "c1", model: MODEL, ...(usage ? { usage } : {}) });

const EXPECTED: Record<string, StreamEvent[]> = {
  "mistral-chat-stream-text.sse": [
    ...textDeltas(["Hello", ", ", "world!", " This", " is a test", " response."]),
    ...finishEvents("end_turn", usageOf(13, 8)),
  ],
  "mistral-chat-stream-tool-call.sse": [
    ...toolCallEvents(0, "gSIMJiOkT", "weather", ['{"location": "San Francisco"}'], {
      location: "San Francisco",
    }),
    ...finishEvents("tool_use", usageOf(124, 22)),
  ],
  "mistral-chat-stream-incremental-tool-call.sse": [
    ...toolCallEvents(
      0,
      "chatcmpl-tool-9f149c74c42f265b",
      "webSearchTool",
      ['{"query": "current Berlin weather"}'],
      { query: "current Berlin weather" },
    ),
    ...finishEvents("tool_use", usageOf(43, 14, 128)),
  ],
  "mistral-chat-stream-magistral-thinking.sse": [
    { type: "thinking_delta", text: "The user is asking" },
    { type: "thinking_delta", text: " for 2+2. This is basic arithmetic. 2+2=4." },
    { type: "text_delta", text: "2 + 2 = 4" },
    ...finishEvents("end_turn", usageOf(10, 46)),
  ],
};

describe("streamMistral: recorded streams", () => {
  const fixtures = readdirSync(`${FIXTURES}streaming`).filter((f) => f.startsWith("mistral-"));

  test("every mistral fixture has an expectation", () => {
    expect(fixtures.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const name of fixtures) {
    for (const mode of ["framed chunks", "one chunk"] as const) {
      test(`${name} (${mode})`, async () => {
        const text = await fixtureText(`streaming/${name}`);
        server.enqueue(mode === "one chunk" ? { body: text } : { chunks: splitFrames(text) });
        expect(await collect(request())).toEqual(EXPECTED[name]!);
      });
    }
  }
});

describe("streamMistral: the request", () => {
  test("maps system, messages, tool calls, tool results and tools", async () => {
    server.enqueue({ body: await fixtureText("streaming/mistral-chat-stream-text.sse") });
    const before = server.requests.length;
    await collect(
      request({
        provider: provider({ headers: { "x-team": "ion" } }),
        system: "be brief",
        maxTokens: 500,
        thinking: "medium",
        messages: [
          { role: "user", content: [{ type: "text", text: "weather in SF?" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "look it up" },
              { type: "text", text: "Checking." },
              { type: "tool_use", id: "gSIMJiOkT", name: "weather", input: { location: "SF" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "gSIMJiOkT", content: "sunny", is_error: false },
              { type: "text", text: "and tomorrow?" },
            ],
          },
        ],
        tools: [
          {
            name: "weather",
            description: "Weather for a place",
            input_schema: { type: "object", properties: { location: { type: "string" } } },
          },
        ],
      }),
    );
    expect(server.requests.length).toBe(before + 1);
    const sent = server.requests.at(-1)!;
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.headers["x-team"]).toBe("ion");
    expect(sent.body).toEqual({
      model: MODEL,
      stream: true,
      max_tokens: 500,
      reasoning_effort: "high",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "weather in SF?" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            {
              id: "gSIMJiOkT",
              type: "function",
              index: 0,
              function: { name: "weather", arguments: '{"location":"SF"}' },
            },
          ],
          prefix: false, // the SDK's default
        },
        { role: "tool", tool_call_id: "gSIMJiOkT", name: "weather", content: "sunny" },
        // Mistral takes no user message right after a tool message (mistral-history.test.ts).
        { role: "assistant", content: "(interrupted)", prefix: false },
        { role: "user", content: "and tomorrow?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "weather",
            description: "Weather for a place",
            parameters: { type: "object", properties: { location: { type: "string" } } },
          },
        },
      ],
    });
  });

  test("no tools and thinking off send neither field; magistral gets prompt_mode", async () => {
    const text = await fixtureText("streaming/mistral-chat-stream-text.sse");
    server.enqueue({ body: text }, { body: text });
    await collect(request());
    const plain = server.requests.at(-1)!.body as Record<string, unknown>;
    expect(Object.keys(plain).sort()).toEqual(["messages", "model", "stream"]);
    await collect(request({ model: "magistral-medium-2507", thinking: "high" }));
    const magistral = server.requests.at(-1)!.body as Record<string, unknown>;
    expect(magistral.prompt_mode).toBe("reasoning");
    expect(magistral.reasoning_effort).toBeUndefined();
  });
});

describe("streamMistral: tool call edge cases", () => {
  test("several whole calls in one delta without index stay separate; bad JSON is reported", async () => {
    server.enqueue({
      body: sse(
        chunk(
          {
            content: null,
            tool_calls: [
              { id: "aaaaaaaaa", function: { name: "read", arguments: '{"path":"a"}' } },
              { id: "bbbbbbbbb", function: { name: "read", arguments: '{"path": ' } },
            ],
          },
          "tool_calls",
          { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
        ),
      ),
    });
    const events = await collect(request());
    const calls = events.filter((e) => e.type === "tool_call");
    expect(calls).toHaveLength(2);
    expect(calls[0]).toEqual({ type: "tool_call", id: "aaaaaaaaa", name: "read", input: { path: "a" } });
    expect(calls[1]).toMatchObject({ type: "tool_call", id: "bbbbbbbbb", name: "read", input: {} });
    expect(calls[1]).toHaveProperty("parse_error");
    expect(
      events.filter((e) => e.type === "tool_call_start").map((e) => e.type === "tool_call_start" && e.index),
    ).toEqual([0, 1]);
    expect(events.at(-1)).toEqual({ type: "done", stop_reason: "tool_use", usage: usageOf(5, 3) });
  });

  test("length stops map to max_tokens", async () => {
    server.enqueue({ body: sse(chunk({ content: "cut" }, "length")) });
    expect((await collect(request())).at(-1)).toEqual({
      type: "done",
      stop_reason: "max_tokens",
      usage: usageOf(0, 0),
    });
  });

  test("finish_reason error ends with an error event", async () => {
    server.enqueue({ body: sse(chunk({ content: "par" }), chunk({ content: "" }, "error")) });
    const last = (await collect(request())).at(-1);
    expect(last).toMatchObject({ type: "error", error: { kind: "server" } });
  });
});

describe("streamMistral: failures", () => {
  const errorOf = (events: StreamEvent[]) => {
    const last = events.at(-1);
    if (last?.type !== "error") throw new Error(`expected an error event, got ${JSON.stringify(last)}`);
    expect(events.filter((e) => e.type === "done")).toHaveLength(0);
    return last.error;
  };

  test("401 is auth, names provider and key source, never the key", async () => {
    server.enqueue(jsonResponse(401, await fixtureText("errors/mistral-401-unauthorized.json")));
    expectAuthError(errorOf(await collect(request())), "mistral", "env MISTRAL_API_KEY", KEY);
  });

  test("without a key no Authorization is sent (not even $MISTRAL_API_KEY) and auth says how to add one", async () => {
    server.enqueue(jsonResponse(401, '{"detail":"Unauthorized"}'));
    const error = errorOf(
      await collect(request({ provider: provider({ apiKey: undefined, keySource: "none" }) })),
    );
    expect(server.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(error.kind).toBe("auth");
    expect(error.message).toContain("no API key for mistral");
  });

  test("422 validation details become one readable line", async () => {
    server.enqueue(
      jsonResponse(422, { detail: [{ loc: ["body", "model"], msg: "Field required", type: "missing" }] }),
    );
    const error = errorOf(await collect(request()));
    expect(error).toMatchObject({ kind: "bad_request", status: 422 });
    expect(error.message).toContain("body.model: Field required");
    expect(error.message).not.toContain("request$");
  });

  test("429 with retry-after is rate_limit with retryAfterMs", async () => {
    server.enqueue(jsonResponse(429, { message: "Requests rate limit exceeded" }, { "retry-after": "3" }));
    const error = errorOf(await collect(request()));
    expect(error).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 3000 });
    expect(error.message).toContain("Requests rate limit exceeded");
  });

  test("500 is server, not retried by the SDK", async () => {
    const before = server.requests.length;
    server.enqueue(jsonResponse(500, '{"message":"boom"}'));
    expect(errorOf(await collect(request()))).toMatchObject({ kind: "server", status: 500 });
    expect(server.requests.length).toBe(before + 1);
  });

  test("a drop mid-stream is stream_dropped after the text so far", async () => {
    const frames = splitFrames(await fixtureText("streaming/mistral-chat-stream-text.sse"));
    // The delay lets the response start before the socket closes (else fetch itself fails: network).
    server.enqueue({ chunks: frames, dropAfterChunks: 3, chunkDelayMs: 10 });
    const events = await collect(request());
    // Bun's fetch may lose the bytes that arrive together with the close, so only "Hello" is certain.
    const texts = events.slice(0, -1);
    const sent: StreamEvent[] = [
      { type: "text_delta", text: "Hello" },
      { type: "text_delta", text: ", " },
    ];
    expect(texts.length).toBeGreaterThanOrEqual(1);
    expect(texts).toEqual(sent.slice(0, texts.length));
    expect(errorOf(events).kind).toBe("stream_dropped");
  });

  test("a stream that ends without a finish reason is stream_dropped", async () => {
    server.enqueue({ body: sse(chunk({ content: "half" })) });
    expect(errorOf(await collect(request())).kind).toBe("stream_dropped");
  });

  test("abort during a stall ends with aborted", async () => {
    const events = await abortDuringStall("streaming/mistral-chat-stream-text.sse", 2);
    expect(events[0]).toEqual({ type: "text_delta", text: "Hello" });
    expect(errorOf(events).kind).toBe("aborted");
  });

  test("connection refused is network", async () => {
    const error = errorOf(await collect(request({ provider: provider({ baseURL: await refusedURL() }) })));
    expect(error.kind).toBe("network");
    expect(error.message).toContain("mistral");
  });
});

describe("streamMistral: SDK output", () => {
  test("debug output goes to request.log with the key redacted; deprecation notices never hit the console", async () => {
    const warn = spyOn(console, "warn");
    const lines: string[] = [];
    server.enqueue({
      headers: { "x-model-deprecation-timestamp": "2030-01-01" },
      body: await fixtureText("streaming/mistral-chat-stream-text.sse"),
    });
    const events = await collect(request({ log: (line) => lines.push(line) }));
    expect(events.at(-1)?.type).toBe("done");
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
    const all = lines.join("\n");
    expect(all).toContain("/v1/chat/completions");
    expect(all).toContain("deprecated");
    expect(all).not.toContain(KEY);
  });
});
