import { describe, expect, spyOn, test } from "bun:test";
import { readdirSync } from "node:fs";
import { DEFAULT_MAX_TOKENS, streamAnthropic, THINKING_BUDGET } from "../../src/providers/anthropic.ts";
import type { StopReason, StreamEvent, ToolSpec, Usage } from "../../src/providers/types.ts";
import { FIXTURES, fixtureText, splitFrames } from "../support/fake-llm.ts";
import {
  abortedSignal,
  expectAuthError,
  finishEvents,
  jsonResponse,
  namedSseFrames,
  refusedURL,
  textDeltas,
  toolCallEvents,
  usageOf,
  useAdapterHarness,
  userText,
} from "../support/stream-helpers.ts";

const KEY = "sk-ant-test-fake-0000";
const MODEL = "claude-sonnet-4-20250514";

const { server, provider, request, collect, abortDuringStall } = useAdapterHarness(
  "anthropic",
  streamAnthropic,
  {
    apiKey: KEY,
    model: MODEL,
    system: "You are a helpful assistant",
    prompt: "Hi",
    resetRequestsEachTest: true,
  },
);

// The wire's usage objects have the same fields as ion's Usage.
const start = (u: Partial<Usage>) => ({
  type: "message_start",
  message: { id: "msg_1", type: "message", role: "assistant", model: MODEL, content: [], usage: u },
});
const textBlock = (index: number, text: string) => [
  { type: "content_block_start", index, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index, delta: { type: "text_delta", text } },
  { type: "content_block_stop", index },
];
const end = (stop_reason: string, u: Partial<Usage>) => [
  { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage: u },
  { type: "message_stop" },
];

const weatherSignature = async () =>
  /"signature":"([^"]+)"/.exec(await fixtureText("streaming/anthropic-stream-thinking-tool-use.sse"))![1]!;

const thinkingPieces = [
  "The user is asking for",
  " weather information for Florence, Italy. I",
  " have",
  " access",
  " to a",
  " weather",
  " function",
  " that takes",
  " a location parameter. The",
  " user",
  " has",
  ' provided the location as "Florence, Italy',
  '" which',
  " is specific",
  " enough for",
  " the",
  " weather function.",
  " I have",
  " all the required parameters to",
  " make the",
  " function call.",
];

const expected: Record<string, () => Promise<StreamEvent[]>> = {
  "anthropic-stream-text.sse": async () => [
    ...textDeltas(["Hello", " there", "!"]),
    ...finishEvents("end_turn", usageOf(11, 6)),
  ],
  "anthropic-stream-tool-use.sse": async () => [
    ...textDeltas(["I", "'ll check the current weather in Paris for you."]),
    ...toolCallEvents(
      1,
      "toolu_01NRLabsLyVHZPKxbKvkfSMn",
      "get_weather",
      ['{"locati', 'on": "P', "ar", 'is"}'],
      { location: "Paris" },
    ),
    ...finishEvents("tool_use", usageOf(377, 65)),
  ],
  "anthropic-stream-parallel-tool-use.sse": async () => [
    ...textDeltas(["I'll add and", " multiply the numbers", " 2 and 3 for", " you."]),
    ...toolCallEvents(1, "toolu_01UYxUYC2zRPY8wiutnF48eP", "add", ['{"a": 2', ', "b"', ": 3}"], {
      a: 2,
      b: 3,
    }),
    ...toolCallEvents(2, "toolu_01VaRx1jpWCvPhi7L4kywAcd", "multiply", ['{"a": 2', ', "b":', " 3}"], {
      a: 2,
      b: 3,
    }),
    ...finishEvents("tool_use", usageOf(502, 137)),
  ],
  "anthropic-stream-thinking-tool-use.sse": async () => [
    // The thinking block starts as a block of its own, tagged as this provider's.
    { type: "thinking_opaque", fields: {}, newBlock: true },
    ...thinkingPieces.map((text) => ({ type: "thinking_delta" as const, text })),
    { type: "thinking_signature", signature: await weatherSignature() },
    ...toolCallEvents(
      1,
      "toolu_01Js4AMfx5qpTLhwTusnvT68",
      "weather",
      ['{"', "lo", "catio", 'n": "Florenc', "e, Italy", '"}'],
      { location: "Florence, Italy" },
    ),
    ...finishEvents("tool_use", usageOf(424, 119)),
  ],
};

describe("recorded anthropic streams", () => {
  const files = readdirSync(`${FIXTURES}streaming`).filter(
    (f) => f.startsWith("anthropic-") && f.endsWith(".sse"),
  );

  test("every anthropic fixture is covered", () => {
    expect(files.sort()).toEqual([...Object.keys(expected), "anthropic-stream-error-overloaded.sse"].sort());
  });

  for (const file of Object.keys(expected)) {
    for (const framing of ["chunked", "single"] as const) {
      test(`${file} (${framing})`, async () => {
        const text = await fixtureText(`streaming/${file}`);
        server.enqueue(framing === "chunked" ? { chunks: splitFrames(text) } : { body: text });
        expect(await collect(request())).toEqual(await expected[file]!());
      });
    }
  }

  for (const framing of ["chunked", "single"] as const) {
    test(`anthropic-stream-error-overloaded.sse (${framing}) ends as one overloaded error`, async () => {
      const text = await fixtureText("streaming/anthropic-stream-error-overloaded.sse");
      server.enqueue(framing === "chunked" ? { chunks: splitFrames(text) } : { body: text });
      const events = await collect(request());
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: "error", error: { kind: "overloaded" } });
      expect(events[0]).not.toHaveProperty("usage");
    });
  }
});

describe("stream mapping", () => {
  test("cache tokens from message_start survive a message_delta that only counts output", async () => {
    const u = usageOf(12, 1, 1500, 200);
    server.enqueue({
      body: namedSseFrames(start(u), ...textBlock(0, "ok"), ...end("end_turn", { output_tokens: 9 })),
    });
    const events = await collect(request());
    expect(events.at(-2)).toEqual({ type: "usage", usage: usageOf(12, 9, 1500, 200) });
    expect(events.at(-1)).toEqual({
      type: "done",
      stop_reason: "end_turn",
      usage: usageOf(12, 9, 1500, 200),
    });
  });

  test("message_delta's cumulative input fields win over message_start's", async () => {
    const u = usageOf(5, 1);
    const delta = usageOf(7, 20, 300, 40);
    server.enqueue({ body: namedSseFrames(start(u), ...textBlock(0, "ok"), ...end("end_turn", delta)) });
    expect((await collect(request())).at(-1)).toMatchObject({ usage: usageOf(7, 20, 300, 40) });
  });

  test.each([
    ["end_turn", "end_turn"],
    ["tool_use", "tool_use"],
    ["max_tokens", "max_tokens"],
    ["stop_sequence", "stop_sequence"],
    ["refusal", "refusal"],
    ["pause_turn", "end_turn"],
    ["model_context_window_exceeded", "max_tokens"],
  ] satisfies [string, StopReason][])("stop_reason %s → %s", async (wire, ours) => {
    server.enqueue({
      body: namedSseFrames(start({ input_tokens: 1, output_tokens: 1 }), ...end(wire, { output_tokens: 2 })),
    });
    expect((await collect(request())).at(-1)).toEqual({
      type: "done",
      stop_reason: ours,
      usage: usageOf(1, 2),
    });
  });

  test("tool input: empty → {}, invalid JSON → {} with parse_error", async () => {
    const tool = (index: number, id: string, json: string[]) => [
      {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id, name: "bash", input: {} },
      },
      ...json.map((partial_json) => ({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json },
      })),
      { type: "content_block_stop", index },
    ];
    const body = namedSseFrames(
      start({ input_tokens: 1, output_tokens: 1 }),
      ...tool(0, "toolu_empty", [""]),
      ...tool(1, "toolu_cut", ['{"command": "ls']),
      ...end("max_tokens", { output_tokens: 3 }),
    );
    server.enqueue({ body });
    const calls = (await collect(request())).filter((e) => e.type === "tool_call");
    expect(calls[0]).toEqual({ type: "tool_call", id: "toolu_empty", name: "bash", input: {} });
    expect(calls[1]).toMatchObject({ type: "tool_call", id: "toolu_cut", name: "bash", input: {} });
    expect(calls[1]).toHaveProperty("parse_error");
  });
});

describe("request mapping", () => {
  test("system, messages, tools and thinking are sent in the Messages shape", async () => {
    const signature = await weatherSignature();
    // Fresh objects for the request and for the expectation, so a change made in place cannot hide.
    const weatherTool = (): ToolSpec => ({
      name: "weather",
      description: "Get weather information for a location",
      input_schema: {
        type: "object",
        properties: { location: { type: "string" } },
        required: ["location"],
      },
    });
    const question = () => userText("What's the weather in Florence, Italy?");
    const signed = () => ({ type: "thinking" as const, thinking: "Need the weather tool.", signature });
    const call = () => ({
      type: "tool_use" as const,
      id: "toolu_1",
      name: "weather",
      input: { location: "Florence, Italy" },
    });
    const result = () => ({
      type: "tool_result" as const,
      tool_use_id: "toolu_1",
      content: "sunny, 24°C",
      is_error: false,
    });
    server.enqueue({ body: await fixtureText("streaming/anthropic-stream-text.sse") });
    await collect(
      request({
        provider: provider({ headers: { "x-ion-test": "yes" } }),
        thinking: "medium",
        tools: [weatherTool()],
        messages: [
          question(),
          {
            role: "assistant",
            content: [
              signed(),
              { type: "thinking", thinking: "unsigned, from another wire" },
              { type: "text", text: "" },
              call(),
            ],
          },
          { role: "user", content: [result()] },
        ],
      }),
    );
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!;
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["x-ion-test"]).toBe("yes");
    expect(sent.headers["anthropic-version"]).toBeString();
    // The key travels in an auth header; compared, never printed.
    const auth = [sent.headers["x-api-key"], sent.headers.authorization];
    expect(auth.includes(KEY) || auth.includes(`Bearer ${KEY}`)).toBe(true);
    expect(sent.body).toEqual({
      model: MODEL,
      max_tokens: THINKING_BUDGET.medium + DEFAULT_MAX_TOKENS,
      stream: true,
      system: [{ type: "text", text: "You are a helpful assistant", cache_control: { type: "ephemeral" } }],
      thinking: { type: "enabled", budget_tokens: 4096 },
      tools: [{ ...weatherTool(), cache_control: { type: "ephemeral" } }],
      messages: [
        question(),
        { role: "assistant", content: [signed(), call()] },
        { role: "user", content: [{ ...result(), cache_control: { type: "ephemeral" } }] },
      ],
    });
  });

  test("thinking off, no tools, no system: none of them is sent; max_tokens defaults", async () => {
    server.enqueue({ body: await fixtureText("streaming/anthropic-stream-text.sse") });
    await collect(request({ system: "" }));
    const body = server.requests[0]!.body as Record<string, unknown>;
    expect(body.max_tokens).toBe(DEFAULT_MAX_TOKENS);
    expect(body).not.toHaveProperty("thinking");
    expect(body).not.toHaveProperty("tools");
    expect(body).not.toHaveProperty("system");
  });

  test.each(["low", "medium", "high"] as const)(
    "thinking %s: max_tokens exceeds the budget",
    async (level) => {
      server.enqueue({ body: await fixtureText("streaming/anthropic-stream-text.sse") });
      await collect(request({ thinking: level, maxTokens: 2000 }));
      const body = server.requests[0]!.body as { max_tokens: number; thinking: { budget_tokens: number } };
      expect(body.thinking.budget_tokens).toBe(THINKING_BUDGET[level]);
      expect(body.max_tokens).toBeGreaterThan(body.thinking.budget_tokens);
    },
  );

  test("an explicit maxTokens is kept when it already fits", async () => {
    server.enqueue({ body: await fixtureText("streaming/anthropic-stream-text.sse") });
    await collect(request({ thinking: "high", maxTokens: 64000 }));
    expect(server.requests[0]!.body).toMatchObject({ max_tokens: 64000 });
  });
});

describe("failures end the stream with one error event", () => {
  test("401 → auth, naming provider and key source, never the key", async () => {
    const body = await fixtureText("errors/anthropic-401-authentication-error.json");
    server.enqueue(jsonResponse(401, body));
    const events = await collect(request());
    expect(events).toHaveLength(1);
    const event = events[0]!;
    if (event.type !== "error") throw new Error(`expected an error event, got ${event.type}`);
    expectAuthError(event.error, "anthropic", "env ANTHROPIC_API_KEY", KEY);
  });

  test("429 with retry-after: 1 → rate_limit, retryAfterMs 1000", async () => {
    const body = await fixtureText("errors/anthropic-429-rate-limit-error.json");
    server.enqueue(jsonResponse(429, body, { "retry-after": "1" }));
    const events = await collect(request());
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "rate_limit" }) }]);
    expect(events[0]).toMatchObject({ error: { status: 429, retryAfterMs: 1000 } });
    expect(server.requests).toHaveLength(1); // the SDK does not retry on its own
  });

  test("529 → overloaded", async () => {
    const body = await fixtureText("errors/anthropic-529-overloaded-error.json");
    server.enqueue(jsonResponse(529, body));
    expect(await collect(request())).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "overloaded", status: 529 }) },
    ]);
  });

  test("400 prompt too long → context_overflow", async () => {
    const body = await fixtureText("errors/anthropic-400-prompt-too-long.json");
    server.enqueue(jsonResponse(400, body));
    expect(await collect(request())).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "context_overflow", status: 400 }) },
    ]);
  });

  test("in-stream api_error after content → server, with the usage so far", async () => {
    const error = { type: "error", error: { type: "api_error", message: "Internal server error" } };
    server.enqueue({
      body: namedSseFrames(start({ input_tokens: 3, output_tokens: 1 }), ...textBlock(0, "par"), error),
    });
    const events = await collect(request());
    expect(events[0]).toEqual({ type: "text_delta", text: "par" });
    expect(events.at(-1)).toEqual({
      type: "error",
      error: expect.objectContaining({ kind: "server" }),
      usage: usageOf(3, 1),
    });
  });

  test("connection dropped mid-stream → stream_dropped", async () => {
    const chunks = splitFrames(await fixtureText("streaming/anthropic-stream-text.sse"));
    server.enqueue({ chunks, dropAfterChunks: 5, chunkDelayMs: 10 });
    const events = await collect(request());
    expect(events.filter((e) => e.type === "done")).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({
      type: "error",
      error: { kind: "stream_dropped" },
      usage: usageOf(11, 1),
    });
  });

  test("a stream that ends cleanly before message_stop → stream_dropped", async () => {
    const chunks = splitFrames(await fixtureText("streaming/anthropic-stream-text.sse"));
    server.enqueue({ chunks: chunks.slice(0, -2) });
    const events = await collect(request());
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "stream_dropped" } });
  });

  test("abort during a stall → aborted", async () => {
    const events = await abortDuringStall("streaming/anthropic-stream-text.sse", 4, (controller) =>
      setTimeout(() => controller.abort(), 20),
    );
    expect(events[0]).toEqual({ type: "text_delta", text: "Hello" });
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "aborted" } });
  });

  test("already aborted → aborted, nothing else", async () => {
    const events = await collect(request({ signal: abortedSignal() }));
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "aborted" }) }]);
  });

  test("connection refused → network", async () => {
    const events = await collect(request({ provider: provider({ baseURL: await refusedURL() }) }));
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "network" }) }]);
  });

  test("no key → auth without a request", async () => {
    const events = await collect(request({ provider: provider({ apiKey: undefined, keySource: "none" }) }));
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "auth" }) }]);
    expect(server.requests).toHaveLength(0);
  });
});

describe("SDK logging", () => {
  test("silent by default, even for a model the SDK would warn about", async () => {
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((m) => spyOn(console, m));
    try {
      server.enqueue({ body: await fixtureText("streaming/anthropic-stream-text.sse") });
      await collect(request({ model: "claude-sonnet-4-5" }));
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  test("routed to request.log when given, without the key", async () => {
    const lines: string[] = [];
    server.enqueue({ body: await fixtureText("streaming/anthropic-stream-text.sse") });
    await collect(request({ log: (line) => lines.push(line) }));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((l) => l.includes(KEY))).toBe(false);
  });
});
