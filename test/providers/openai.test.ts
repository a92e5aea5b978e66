import { describe, expect, test } from "bun:test";
import { streamOpenAI } from "../../src/providers/openai.ts";
import type {
  Message,
  ProviderError,
  ResolvedProvider,
  StreamEvent,
  StreamRequest,
  ToolSpec,
  Usage,
} from "../../src/providers/types.ts";
import { FIXTURES, fixtureText, type RecordedRequest, splitFrames } from "../support/fake-llm.ts";
import {
  abortedSignal,
  chatChunk,
  expectAuthError,
  finishEvents,
  jsonResponse,
  sseFrames,
  streamedToolCall,
  textDeltas,
  usageOf,
  useAdapterHarness,
  userText,
} from "../support/stream-helpers.ts";

const KEY = "sk-test-fake-key-0000";
const { server, provider, request, collect, abortDuringStall } = useAdapterHarness("openai", streamOpenAI, {
  apiKey: KEY,
  model: "gpt-4o",
  system: "You are a helpful assistant",
  prompt: "Say hi in Portuguese",
});

function lastRequest(): RecordedRequest {
  const last = server.requests.at(-1);
  if (!last) throw new Error("the fake server saw no request");
  return last;
}

function body(): Record<string, unknown> {
  return lastRequest().body as Record<string, unknown>;
}

function errorOf(events: StreamEvent[]): ProviderError {
  expect(events.filter((e) => e.type === "error" || e.type === "done")).toHaveLength(1);
  const last = events.at(-1);
  if (last?.type !== "error") throw new Error(`expected an error event, got ${JSON.stringify(last)}`);
  return last.error;
}

const MATH_TOOLS: ToolSpec[] = ["add", "multiply"].map((name) => ({
  name,
  description: `${name === "add" ? "Add" : "Multiply"} two numbers`,
  input_schema: {
    properties: {
      a: { description: "first number", type: "integer" },
      b: { description: "second number", type: "integer" },
    },
    required: ["a", "b"],
    type: "object",
  },
}));
const MATH_PROMPT: Message[] = [userText("Add and multiply the number 2 and 3")];
const MATH_SYSTEM = "You are a helpful assistant. Always use both add and multiply at the same time.";

const MATH_REQUEST: Partial<StreamRequest> = {
  system: MATH_SYSTEM,
  messages: MATH_PROMPT,
  tools: MATH_TOOLS,
};

/**
 * How a math fixture ends: add and multiply streamed with the same argument pieces, both completed with
 * `{ a: 2, b: 3 }`, then usage and the tool_use stop.
 */
function mathCalls(ids: [add: string, multiply: string], pieces: string[], usage: Usage): StreamEvent[] {
  const [add, multiply] = ids;
  return [
    ...streamedToolCall(0, add, "add", pieces),
    ...streamedToolCall(1, multiply, "multiply", pieces),
    { type: "tool_call", id: add, name: "add", input: { a: 2, b: 3 } },
    { type: "tool_call", id: multiply, name: "multiply", input: { a: 2, b: 3 } },
    ...finishEvents("tool_use", usage),
  ];
}

interface FixtureCase {
  file: string;
  provider?: Partial<ResolvedProvider>;
  request: Partial<StreamRequest>;
  expected: StreamEvent[];
}

const FIXTURE_CASES: FixtureCase[] = [
  {
    file: "openai-chat-stream-text-include-usage.sse",
    request: {},
    expected: [...textDeltas(["Olá", "!"]), ...finishEvents("end_turn", usageOf(20, 2))],
  },
  {
    file: "openai-chat-stream-text-after-tool-results.sse",
    request: {},
    expected: [
      ...textDeltas(
        "The| sum| of| |2| and| |3| is| |5|,| and| the| product| is| |6|.".split("|").map((t) => t || " "),
      ),
      ...finishEvents("end_turn", usageOf(172, 20)),
    ],
  },
  {
    file: "openai-chat-stream-parallel-tool-calls.sse",
    request: MATH_REQUEST,
    expected: mathCalls(
      ["call_ehIWdjL1abZk1h8FWGLQ0Hie", "call_fBSgA47J5VeONggizTIvl7AH"],
      ['{"a"', ": 2, ", '"b": 3', "}"],
      usageOf(106, 50),
    ),
  },
  {
    file: "openrouter-chat-stream-parallel-tool-calls.sse",
    provider: { id: "openrouter", name: "OpenRouter", keySource: "env OPENROUTER_API_KEY" },
    request: { ...MATH_REQUEST, model: "openai/gpt-5.4-nano" },
    expected: mathCalls(
      ["call_8I6muAnyFaBjKyotk1gPRTwU", "call_pKAAv6bKX2qLYJ85RW4Hxqfp"],
      ['{"a":2,"b":3}'],
      usageOf(109, 54),
    ),
  },
  {
    file: "groq-chat-stream-parallel-tool-calls.sse",
    provider: { id: "groq", name: "Groq", keySource: "env GROQ_API_KEY" },
    request: { ...MATH_REQUEST, model: "moonshotai/kimi-k2-instruct-0905" },
    expected: [
      ...textDeltas(
        "I'll| perform| both| addition| and| multiplication| on| the| numbers| |2| and| |3| for| you|."
          .split("|")
          .map((t) => t || " "),
      ),
      ...mathCalls(["functions.add:0", "functions.multiply:1"], ['{"a":2,"b":3}'], usageOf(201, 58)),
    ],
  },
];

describe("replays recorded Chat Completions streams", () => {
  for (const fixture of FIXTURE_CASES) {
    const framings: [string, (text: string) => { chunks: string[] }][] = [
      ["frame by frame", (text) => ({ chunks: splitFrames(text) })],
      ["as one chunk", (text) => ({ chunks: [text] })],
      ["in 7-byte pieces", (text) => ({ chunks: text.match(/[\s\S]{1,7}/g) ?? [] })],
    ];
    for (const [framing, split] of framings) {
      test(`${fixture.file} ${framing}`, async () => {
        server.enqueue(split(await fixtureText(`streaming/${fixture.file}`)));
        const events = await collect(request({ ...fixture.request, provider: provider(fixture.provider) }));
        expect(events).toEqual(fixture.expected);
      });
    }
  }
});

describe("the request the SDK sends", () => {
  const textStream = () => fixtureText("streaming/openai-chat-stream-text-include-usage.sse");

  test("first turn with tools matches the recorded OpenAI request", async () => {
    const meta = await Bun.file(
      `${FIXTURES}streaming/openai-chat-stream-parallel-tool-calls.meta.json`,
    ).json();
    server.enqueue({ body: await textStream() });
    await collect(request({ ...MATH_REQUEST, maxTokens: 4000 }));
    const sent = lastRequest();
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    const recorded = meta.request_body;
    expect(body().messages).toEqual(recorded.messages);
    expect(body().model).toBe(recorded.model);
    expect(body().stream).toBe(true);
    expect(body().stream_options).toEqual({ include_usage: true });
    // ion sends OpenAI's current name for the limit; the recording used the legacy `max_tokens`.
    expect(body().max_completion_tokens).toBe(4000);
    expect(body().max_tokens).toBeUndefined();
    const tools = recorded.tools.map((t: { type: string; function: Record<string, unknown> }) => {
      const { strict: _strict, ...fn } = t.function;
      return { type: t.type, function: fn };
    });
    expect(body().tools).toEqual(tools);
    expect(body().reasoning_effort).toBeUndefined();
  });

  test("follow-up turn: tool calls and tool results match the recorded request", async () => {
    const meta = await Bun.file(
      `${FIXTURES}streaming/openai-chat-stream-text-after-tool-results.meta.json`,
    ).json();
    server.enqueue({ body: await textStream() });
    const messages: Message[] = [
      ...MATH_PROMPT,
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "both at once", signature: "sig" },
          { type: "tool_use", id: "call_ehIWdjL1abZk1h8FWGLQ0Hie", name: "add", input: { a: 2, b: 3 } },
          { type: "tool_use", id: "call_fBSgA47J5VeONggizTIvl7AH", name: "multiply", input: { a: 2, b: 3 } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_ehIWdjL1abZk1h8FWGLQ0Hie",
            content: "5",
            is_error: false,
          },
          {
            type: "tool_result",
            tool_use_id: "call_fBSgA47J5VeONggizTIvl7AH",
            content: "6",
            is_error: false,
          },
        ],
      },
    ];
    await collect(request({ system: MATH_SYSTEM, messages, tools: MATH_TOOLS }));
    // Same calls; ion serialises arguments compactly where the recording had spaces.
    const normalise = (list: Record<string, unknown>[]) =>
      list.map((m) => ({
        ...m,
        ...(Array.isArray(m.tool_calls)
          ? {
              tool_calls: m.tool_calls.map((c: { function: { arguments: string } }) => ({
                ...c,
                function: { ...c.function, arguments: JSON.parse(c.function.arguments) },
              })),
            }
          : {}),
      }));
    expect(normalise(body().messages as Record<string, unknown>[])).toEqual(
      normalise(meta.request_body.messages),
    );
  });

  test("text after tool results goes in a user message after the tool messages", async () => {
    server.enqueue({ body: await textStream() });
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "list files" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Listing." },
          { type: "tool_use", id: "call_1", name: "list_files", input: { path: "." } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "also, be brief" },
          { type: "tool_result", tool_use_id: "call_1", content: "error: denied", is_error: true },
        ],
      },
    ];
    await collect(request({ system: "", messages }));
    expect(body().messages).toEqual([
      { role: "user", content: "list files" },
      {
        role: "assistant",
        content: "Listing.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "list_files", arguments: '{"path":"."}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "error: denied" },
      { role: "user", content: "also, be brief" },
    ]);
    expect(body().tools).toBeUndefined();
  });

  test("a thinking level becomes reasoning_effort on a reasoning model", async () => {
    for (const level of ["low", "medium", "high"] as const) {
      server.enqueue({ body: await textStream() });
      await collect(request({ model: "o4-mini", thinking: level }));
      expect(body().reasoning_effort).toBe(level);
    }
  });

  test("ollama: no key, reasoning_effort, max_tokens; custom headers; no stream_options when disabled", async () => {
    server.enqueue({ body: await textStream() }, { body: await textStream() });
    const ollama = provider({
      id: "ollama",
      name: "Ollama",
      apiKey: undefined,
      keySource: "none",
      headers: { "x-ion-test": "yes" },
      quirks: {},
    });
    await collect(request({ provider: ollama, model: "qwen3:8b", thinking: "medium", maxTokens: 99 }));
    expect(body().reasoning_effort).toBe("medium");
    expect(body().max_tokens).toBe(99);
    expect(body().max_completion_tokens).toBeUndefined();
    expect(body().stream_options).toEqual({ include_usage: true });
    expect(lastRequest().headers["x-ion-test"]).toBe("yes");
    // No key, no Authorization header: never a made-up "Bearer none" to someone else's server.
    expect(lastRequest().headers.authorization).toBeUndefined();

    const noUsage = provider({ id: "custom", quirks: { streamUsage: false } });
    const events = await collect(request({ provider: noUsage }));
    expect(body().stream_options).toBeUndefined();
    expect(events.at(-1)?.type).toBe("done");
  });
});

describe("vendor stream variations", () => {
  test("reasoning fields, cached tokens, a call without index and broken arguments", async () => {
    server.enqueue({
      body: sseFrames(
        chatChunk({ role: "assistant", reasoning_content: "Let me " }),
        chatChunk({ reasoning: "think." }),
        chatChunk({ content: "Done" }),
        chatChunk({
          tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":' } }],
        }),
        chatChunk({ tool_calls: [{ function: { arguments: '"ls"}' } }] }),
        chatChunk({
          tool_calls: [{ id: "c2", type: "function", function: { name: "grep", arguments: "{oops" } }],
        }),
        chatChunk({}, "stop"),
        {
          ...chatChunk({}),
          choices: [],
          usage: { prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 30 } },
        },
        "[DONE]",
      ),
    });
    const events = await collect(request());
    const parseError = events.find((e) => e.type === "tool_call" && e.name === "grep");
    expect(parseError?.type === "tool_call" && parseError.parse_error).toBeTruthy();
    expect(events).toEqual([
      { type: "thinking_delta", text: "Let me " },
      // The block is tagged with the field its text came from (DeepSeek wants `reasoning_content` back).
      { type: "thinking_opaque", fields: { reasoning_content: true } },
      { type: "thinking_delta", text: "think." },
      { type: "text_delta", text: "Done" },
      { type: "tool_call_start", index: 0, id: "c1", name: "bash" },
      { type: "tool_call_delta", index: 0, arguments_delta: '{"command":' },
      { type: "tool_call_delta", index: 0, arguments_delta: '"ls"}' },
      { type: "tool_call_start", index: 1, id: "c2", name: "grep" },
      { type: "tool_call_delta", index: 1, arguments_delta: "{oops" },
      { type: "tool_call", id: "c1", name: "bash", input: { command: "ls" } },
      { type: "tool_call", id: "c2", name: "grep", input: {}, parse_error: expect.any(String) },
      { type: "usage", usage: usageOf(70, 7, 30) },
      // "stop" with tool calls (Gemini's OpenAI endpoint does this) still means the model wants tools.
      { type: "done", stop_reason: "tool_use", usage: usageOf(70, 7, 30) },
    ]);
  });

  test("finish reasons map to ion stop reasons", async () => {
    const cases: [string, string][] = [
      ["stop", "end_turn"],
      ["length", "max_tokens"],
      ["content_filter", "refusal"],
    ];
    for (const [finish, stop] of cases) {
      server.enqueue({ body: sseFrames(chatChunk({ content: "x" }), chatChunk({}, finish), "[DONE]") });
      const events = await collect(request({ provider: provider({ quirks: { streamUsage: false } }) }));
      expect(events).toEqual([
        { type: "text_delta", text: "x" },
        { type: "done", stop_reason: stop, usage: usageOf(0, 0) } as StreamEvent,
      ]);
    }
  });
});

describe("failures end the stream with one error event", () => {
  async function httpError(
    file: string,
    status: number,
    overrides: Partial<StreamRequest> = {},
    headers: Record<string, string> = {},
  ): Promise<ProviderError> {
    server.enqueue(jsonResponse(status, await fixtureText(`errors/${file}`), headers));
    return errorOf(await collect(request(overrides)));
  }

  test("401 → auth, naming the provider and the key's source, never the key", async () => {
    const error = await httpError("openai-401-invalid-api-key.json", 401);
    expectAuthError(error, "openai", "env OPENAI_API_KEY", KEY);
  });

  test("429 with retry-after → rate_limit with the wait", async () => {
    const error = await httpError("openai-429-rate-limit-tokens.json", 429, {}, { "retry-after": "7" });
    expect(error).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 7000 });
    expect(error.message).toContain("Request too large");
  });

  test("400 context_length_exceeded → context_overflow", async () => {
    const error = await httpError("openai-400-context-length-exceeded.json", 400);
    expect(error).toMatchObject({ kind: "context_overflow", status: 400 });
  });

  test("Gemini's 400 API_KEY_INVALID → auth", async () => {
    const google = provider({ id: "google", name: "Google Gemini", keySource: "env GEMINI_API_KEY" });
    const error = await httpError("gemini-400-api-key-invalid.json", 400, { provider: google });
    expect(error.kind).toBe("auth");
    expect(error.message).toContain("google");
    expect(error.message).toContain("env GEMINI_API_KEY");
  });

  test("Gemini's 429 RetryInfo → rate_limit with retryAfterMs from the body", async () => {
    const error = await httpError("gemini-429-resource-exhausted-retry-info.json", 429);
    expect(error).toMatchObject({ kind: "rate_limit", retryAfterMs: 34400 });
  });

  test("Ollama's 404 → model_not_found", async () => {
    const ollama = provider({ id: "ollama", apiKey: undefined, keySource: "none" });
    const error = await httpError("ollama-404-model-not-found.json", 404, {
      provider: ollama,
      model: "llama3.2",
    });
    expect(error.kind).toBe("model_not_found");
    expect(error.message).toContain("llama3.2");
  });

  test("500 → server", async () => {
    const error = await httpError("ollama-500-error.json", 500);
    expect(error).toMatchObject({ kind: "server", status: 500 });
    expect(error.message).toContain("the model failed to generate a response");
  });

  test("an error payload inside a 200 stream is classified by its code", async () => {
    server.enqueue({
      body: sseFrames(chatChunk({ content: "Hel" }), {
        error: { message: "Provider returned error", code: 502 },
      }),
    });
    const events = await collect(request());
    expect(events[0]).toEqual({ type: "text_delta", text: "Hel" });
    expect(errorOf(events)).toMatchObject({ kind: "server", status: 502 });
  });

  test("connection dropped mid-stream → stream_dropped", async () => {
    const frames = splitFrames(await fixtureText("streaming/openai-chat-stream-text-include-usage.sse"));
    // A small delay lets the headers and the first frames leave before the connection is cut.
    server.enqueue({ chunks: frames, dropAfterChunks: 3, chunkDelayMs: 10 });
    const events = await collect(request());
    expect(events[0]).toEqual({ type: "text_delta", text: "Olá" });
    expect(events.slice(0, -1).every((e) => e.type === "text_delta")).toBe(true);
    expect(errorOf(events).kind).toBe("stream_dropped");
  });

  test("a drop after usage arrived carries that usage", async () => {
    const frames = splitFrames(await fixtureText("streaming/groq-chat-stream-parallel-tool-calls.sse"));
    server.enqueue({ chunks: frames, dropAfterChunks: frames.length - 1, chunkDelayMs: 5 });
    const events = await collect(request());
    expect(events.at(-1)).toEqual({
      type: "error",
      error: expect.objectContaining({ kind: "stream_dropped" }),
      usage: usageOf(201, 58),
    });
    expect(events.some((e) => e.type === "tool_call")).toBe(false);
  });

  test("a stream that ends without a finish reason → stream_dropped", async () => {
    const frames = splitFrames(await fixtureText("streaming/openai-chat-stream-text-include-usage.sse"));
    server.enqueue({ chunks: frames.slice(0, 3) });
    const events = await collect(request());
    expect(events.slice(0, -1)).toEqual(textDeltas(["Olá", "!"]));
    expect(errorOf(events).kind).toBe("stream_dropped");
  });

  test("malformed JSON in the stream → stream_dropped", async () => {
    server.enqueue({ body: `${sseFrames(chatChunk({ content: "a" }))}data: {"choices": [\n\n` });
    const events = await collect(request());
    expect(errorOf(events).kind).toBe("stream_dropped");
  });

  test("abort during a stalled stream → aborted", async () => {
    const events = await abortDuringStall("streaming/openai-chat-stream-text-include-usage.sse", 2);
    expect(events[0]).toEqual({ type: "text_delta", text: "Olá" });
    expect(errorOf(events).kind).toBe("aborted");
  });

  test("abort before the response → aborted", async () => {
    const events = await collect(request({ signal: abortedSignal() }));
    expect(events).toEqual([{ type: "error", error: expect.objectContaining({ kind: "aborted" }) }]);
  });

  test("connection refused → network", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = closed.port;
    await closed.stop(true);
    const events = await collect(request({ provider: provider({ baseURL: `http://127.0.0.1:${port}/v1` }) }));
    const error = errorOf(events);
    expect(error.kind).toBe("network");
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).not.toContain(KEY);
  });
});

describe("logging", () => {
  test("the SDK prints nothing to the console, and forwards to request.log when given", async () => {
    const original = { ...console };
    const printed: unknown[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      console[level] = (...args: unknown[]) => {
        printed.push(args);
      };
    }
    try {
      server.enqueue(jsonResponse(500, '{"error":"x"}'));
      await collect(request());
      expect(printed).toEqual([]);

      const lines: string[] = [];
      server.enqueue(jsonResponse(500, '{"error":"x"}'));
      await collect(request({ log: (line) => lines.push(line) }));
      expect(printed).toEqual([]);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join("\n")).not.toContain(KEY);
    } finally {
      Object.assign(console, original);
    }
  });
});
