import { afterAll, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import { readdirSync } from "node:fs";
import { DEFAULT_MAX_TOKENS, streamAnthropic, THINKING_BUDGET } from "../../src/providers/anthropic.ts";
import type {
  ResolvedProvider,
  StopReason,
  StreamEvent,
  StreamRequest,
  Usage,
} from "../../src/providers/types.ts";
import { type FakeLLM, FIXTURES, fixtureText, splitFrames, startFakeLLM } from "../support/fake-llm.ts";

const KEY = "sk-ant-test-fake-0000";
const MODEL = "claude-sonnet-4-20250514";

let server: FakeLLM;
beforeAll(async () => {
  server = await startFakeLLM();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(() => {
  server.requests.length = 0;
});

function provider(overrides: Partial<ResolvedProvider> = {}): ResolvedProvider {
  return {
    id: "anthropic",
    name: "Anthropic",
    wire: "anthropic",
    baseURL: server.url,
    apiKey: KEY,
    keySource: "env ANTHROPIC_API_KEY",
    headers: {},
    quirks: {},
    ...overrides,
  };
}

function request(overrides: Partial<StreamRequest> = {}): StreamRequest {
  return {
    provider: provider(),
    model: MODEL,
    system: "You are a helpful assistant",
    messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    tools: [],
    thinking: "off",
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(req: StreamRequest): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of streamAnthropic(req)) events.push(event);
  return events;
}

function usage(input: number, output: number, cacheRead = 0, cacheCreation = 0): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheCreation,
  };
}

/** SSE in Anthropic's framing, for shapes the recorded fixtures do not cover. */
function sse(...events: { type: string; [key: string]: unknown }[]): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

const start = (u: Record<string, number>) => ({
  type: "message_start",
  message: { id: "msg_1", type: "message", role: "assistant", model: MODEL, content: [], usage: u },
});
const textBlock = (index: number, text: string) => [
  { type: "content_block_start", index, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index, delta: { type: "text_delta", text } },
  { type: "content_block_stop", index },
];
const end = (stop_reason: string, u: Record<string, number>) => [
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
    { type: "text_delta", text: "Hello" },
    { type: "text_delta", text: " there" },
    { type: "text_delta", text: "!" },
    { type: "usage", usage: usage(11, 6) },
    { type: "done", stop_reason: "end_turn", usage: usage(11, 6) },
  ],
  "anthropic-stream-tool-use.sse": async () => [
    { type: "text_delta", text: "I" },
    { type: "text_delta", text: "'ll check the current weather in Paris for you." },
    { type: "tool_call_start", index: 1, id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather" },
    ...['{"locati', 'on": "P', "ar", 'is"}'].map((d) => ({
      type: "tool_call_delta" as const,
      index: 1,
      arguments_delta: d,
    })),
    {
      type: "tool_call",
      id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
      name: "get_weather",
      input: { location: "Paris" },
    },
    { type: "usage", usage: usage(377, 65) },
    { type: "done", stop_reason: "tool_use", usage: usage(377, 65) },
  ],
  "anthropic-stream-parallel-tool-use.sse": async () => [
    ...["I'll add and", " multiply the numbers", " 2 and 3 for", " you."].map((text) => ({
      type: "text_delta" as const,
      text,
    })),
    { type: "tool_call_start", index: 1, id: "toolu_01UYxUYC2zRPY8wiutnF48eP", name: "add" },
    ...['{"a": 2', ', "b"', ": 3}"].map((d) => ({
      type: "tool_call_delta" as const,
      index: 1,
      arguments_delta: d,
    })),
    { type: "tool_call", id: "toolu_01UYxUYC2zRPY8wiutnF48eP", name: "add", input: { a: 2, b: 3 } },
    { type: "tool_call_start", index: 2, id: "toolu_01VaRx1jpWCvPhi7L4kywAcd", name: "multiply" },
    ...['{"a": 2', ', "b":', " 3}"].map((d) => ({
      type: "tool_call_delta" as const,
      index: 2,
      arguments_delta: d,
    })),
    { type: "tool_call", id: "toolu_01VaRx1jpWCvPhi7L4kywAcd", name: "multiply", input: { a: 2, b: 3 } },
    { type: "usage", usage: usage(502, 137) },
    { type: "done", stop_reason: "tool_use", usage: usage(502, 137) },
  ],
  "anthropic-stream-thinking-tool-use.sse": async () => [
    ...thinkingPieces.map((text) => ({ type: "thinking_delta" as const, text })),
    { type: "thinking_signature", signature: await weatherSignature() },
    { type: "tool_call_start", index: 1, id: "toolu_01Js4AMfx5qpTLhwTusnvT68", name: "weather" },
    ...['{"', "lo", "catio", 'n": "Florenc', "e, Italy", '"}'].map((d) => ({
      type: "tool_call_delta" as const,
      index: 1,
      arguments_delta: d,
    })),
    {
      type: "tool_call",
      id: "toolu_01Js4AMfx5qpTLhwTusnvT68",
      name: "weather",
      input: { location: "Florence, Italy" },
    },
    { type: "usage", usage: usage(424, 119) },
    { type: "done", stop_reason: "tool_use", usage: usage(424, 119) },
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
    const u = {
      input_tokens: 12,
      cache_read_input_tokens: 1500,
      cache_creation_input_tokens: 200,
      output_tokens: 1,
    };
    server.enqueue({ body: sse(start(u), ...textBlock(0, "ok"), ...end("end_turn", { output_tokens: 9 })) });
    const events = await collect(request());
    expect(events.at(-2)).toEqual({ type: "usage", usage: usage(12, 9, 1500, 200) });
    expect(events.at(-1)).toEqual({ type: "done", stop_reason: "end_turn", usage: usage(12, 9, 1500, 200) });
  });

  test("message_delta's cumulative input fields win over message_start's", async () => {
    const u = {
      input_tokens: 5,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      output_tokens: 1,
    };
    const delta = {
      input_tokens: 7,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: 40,
      output_tokens: 20,
    };
    server.enqueue({ body: sse(start(u), ...textBlock(0, "ok"), ...end("end_turn", delta)) });
    expect((await collect(request())).at(-1)).toMatchObject({ usage: usage(7, 20, 300, 40) });
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
      body: sse(start({ input_tokens: 1, output_tokens: 1 }), ...end(wire, { output_tokens: 2 })),
    });
    expect((await collect(request())).at(-1)).toEqual({
      type: "done",
      stop_reason: ours,
      usage: usage(1, 2),
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
    const body = sse(
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
    server.enqueue({ body: await fixtureText("streaming/anthropic-stream-text.sse") });
    await collect(
      request({
        provider: provider({ headers: { "x-ion-test": "yes" } }),
        thinking: "medium",
        tools: [
          {
            name: "weather",
            description: "Get weather information for a location",
            input_schema: {
              type: "object",
              properties: { location: { type: "string" } },
              required: ["location"],
            },
          },
        ],
        messages: [
          { role: "user", content: [{ type: "text", text: "What's the weather in Florence, Italy?" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "Need the weather tool.", signature },
              { type: "thinking", thinking: "unsigned, from another wire" },
              { type: "text", text: "" },
              { type: "tool_use", id: "toolu_1", name: "weather", input: { location: "Florence, Italy" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: "sunny, 24°C", is_error: false },
            ],
          },
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
      tools: [
        {
          name: "weather",
          description: "Get weather information for a location",
          input_schema: {
            type: "object",
            properties: { location: { type: "string" } },
            required: ["location"],
          },
        },
      ],
      messages: [
        { role: "user", content: [{ type: "text", text: "What's the weather in Florence, Italy?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Need the weather tool.", signature },
            { type: "tool_use", id: "toolu_1", name: "weather", input: { location: "Florence, Italy" } },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: "sunny, 24°C",
              is_error: false,
              cache_control: { type: "ephemeral" },
            },
          ],
        },
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
  const json = { "content-type": "application/json" };

  test("401 → auth, naming provider and key source, never the key", async () => {
    const body = await fixtureText("errors/anthropic-401-authentication-error.json");
    server.enqueue({ status: 401, headers: json, body });
    const events = await collect(request());
    expect(events).toHaveLength(1);
    const event = events[0]!;
    if (event.type !== "error") throw new Error(`expected an error event, got ${event.type}`);
    expect(event.error.kind).toBe("auth");
    expect(event.error.status).toBe(401);
    expect(event.error.message).toContain("anthropic");
    expect(event.error.message).toContain("env ANTHROPIC_API_KEY");
    expect(event.error.message.includes(KEY)).toBe(false);
  });

  test("429 with retry-after: 1 → rate_limit, retryAfterMs 1000", async () => {
    const body = await fixtureText("errors/anthropic-429-rate-limit-error.json");
    server.enqueue({ status: 429, headers: { ...json, "retry-after": "1" }, body });
    const events = await collect(request());
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "rate_limit" }) }]);
    expect(events[0]).toMatchObject({ error: { status: 429, retryAfterMs: 1000 } });
    expect(server.requests).toHaveLength(1); // the SDK does not retry on its own
  });

  test("529 → overloaded", async () => {
    const body = await fixtureText("errors/anthropic-529-overloaded-error.json");
    server.enqueue({ status: 529, headers: json, body });
    expect(await collect(request())).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "overloaded", status: 529 }) },
    ]);
  });

  test("400 prompt too long → context_overflow", async () => {
    const body = await fixtureText("errors/anthropic-400-prompt-too-long.json");
    server.enqueue({ status: 400, headers: json, body });
    expect(await collect(request())).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "context_overflow", status: 400 }) },
    ]);
  });

  test("in-stream api_error after content → server, with the usage so far", async () => {
    const error = { type: "error", error: { type: "api_error", message: "Internal server error" } };
    server.enqueue({
      body: sse(start({ input_tokens: 3, output_tokens: 1 }), ...textBlock(0, "par"), error),
    });
    const events = await collect(request());
    expect(events[0]).toEqual({ type: "text_delta", text: "par" });
    expect(events.at(-1)).toEqual({
      type: "error",
      error: expect.objectContaining({ kind: "server" }),
      usage: usage(3, 1),
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
      usage: usage(11, 1),
    });
  });

  test("a stream that ends cleanly before message_stop → stream_dropped", async () => {
    const chunks = splitFrames(await fixtureText("streaming/anthropic-stream-text.sse"));
    server.enqueue({ chunks: chunks.slice(0, -2) });
    const events = await collect(request());
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "stream_dropped" } });
  });

  test("abort during a stall → aborted", async () => {
    const chunks = splitFrames(await fixtureText("streaming/anthropic-stream-text.sse"));
    server.enqueue({ chunks, stallAfterChunks: 4 });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const event of streamAnthropic(request({ signal: controller.signal }))) {
      events.push(event);
      if (event.type === "text_delta") setTimeout(() => controller.abort(), 20);
    }
    expect(events[0]).toEqual({ type: "text_delta", text: "Hello" });
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "aborted" } });
  });

  test("already aborted → aborted, nothing else", async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(request({ signal: controller.signal }));
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "aborted" }) }]);
  });

  test("connection refused → network", async () => {
    const closed = await startFakeLLM();
    await closed.stop();
    const events = await collect(request({ provider: provider({ baseURL: closed.url }) }));
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
