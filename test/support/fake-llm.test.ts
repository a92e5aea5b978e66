import { beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { Mistral } from "@mistralai/mistralai";
import type { CompletionChunk } from "@mistralai/mistralai/models/components";
import { MistralError } from "@mistralai/mistralai/models/errors";
import OpenAI from "openai";
import { FIXTURES, fixtureText, splitFrames } from "./fake-llm.ts";
import { useFakeLLM } from "./stream-helpers.ts";
import {
  dropMidStream,
  errorReply,
  jsonReply,
  type ScriptedReply,
  splitText,
  stallMidStream,
  streamReply,
} from "./wire-scripts.ts";

const FAKE_KEY = "sk-fake-0000";

/** A reply that exercises everything: thinking, text, two parallel tool calls, usage with caches. */
const FULL: ScriptedReply = {
  thinking: "The user wants the sum and the product. I will call both tools at once.",
  text: "Let me compute both for you.",
  toolCalls: [
    { name: "add", input: { a: 2, b: 3 } },
    { name: "multiply", input: { a: 2, b: 3, note: "päris ✓" } },
  ],
  usage: { input: 100, output: 50, cacheRead: 40, cacheWrite: 7 },
};

const server = useFakeLLM({ resetRequestsEachTest: true });
beforeEach(() => {
  expect(server.pending()).toBe(0);
});

const openai = () => new OpenAI({ apiKey: FAKE_KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: FAKE_KEY, baseURL: server.url, maxRetries: 0 });
const mistral = () =>
  new Mistral({ apiKey: FAKE_KEY, serverURL: server.url, retryConfig: { strategy: "none" } });
const USER = [{ role: "user" as const, content: "2 and 3?" }];

/** Parse the `data:` JSON payloads of an SSE text (skipping [DONE]). */
function payloads(chunks: string[]): Record<string, unknown>[] {
  return chunks
    .join("")
    .split("\n\n")
    .flatMap((event) => event.split("\n").filter((l) => l.startsWith("data: {")))
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

function keysOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length > 0 ? [keysOf(value[0])] : [];
  if (value !== null && typeof value === "object") return Object.keys(value);
  return typeof value;
}

describe("streamReply through the official SDKs", () => {
  test("openai: text, reasoning_content, parallel tool calls, finish reason and include_usage chunk", async () => {
    server.enqueue(streamReply("openai", FULL));
    const stream = await openai().chat.completions.create({
      model: "gpt-4o",
      messages: USER,
      stream: true,
      stream_options: { include_usage: true },
    });
    let role: string | undefined;
    let text = "";
    let reasoning = "";
    let textDeltas = 0;
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    const calls: { id?: string; name?: string; args: string }[] = [];
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      const delta = choice.delta as typeof choice.delta & { reasoning_content?: string };
      role ??= delta.role;
      reasoning += delta.reasoning_content ?? "";
      if (delta.content) {
        text += delta.content;
        textDeltas++;
      }
      for (const call of delta.tool_calls ?? []) {
        calls[call.index] ??= { args: "" };
        const slot = calls[call.index]!;
        slot.id ??= call.id;
        slot.name ??= call.function?.name;
        slot.args += call.function?.arguments ?? "";
      }
      finish = choice.finish_reason ?? finish;
    }
    expect(role).toBe("assistant");
    expect(reasoning).toBe(FULL.thinking!);
    expect(text).toBe(FULL.text!);
    expect(textDeltas).toBeGreaterThan(1);
    expect(calls.map((c) => [c.name, JSON.parse(c.args)])).toEqual([
      ["add", { a: 2, b: 3 }],
      ["multiply", { a: 2, b: 3, note: "päris ✓" }],
    ]);
    for (const call of calls) expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(finish).toBe("tool_calls");
    expect(usage?.prompt_tokens).toBe(140);
    expect(usage?.completion_tokens).toBe(50);
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(40);

    const [request] = server.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.body).toMatchObject({ model: "gpt-4o", stream: true, messages: USER });
  });

  test("openai: the helper stream accumulates the same message", async () => {
    server.enqueue(
      streamReply("openai", { ...FULL, toolCalls: [{ id: "call_pinned", name: "add", input: {} }] }),
    );
    const completion = await openai()
      .chat.completions.stream({ model: "gpt-4o", messages: USER, stream_options: { include_usage: true } })
      .finalChatCompletion();
    const message = completion.choices[0]?.message;
    expect(message?.content).toBe(FULL.text!);
    expect(message?.tool_calls).toMatchObject([
      { id: "call_pinned", type: "function", function: { name: "add", arguments: "{}" } },
    ]);
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    expect(completion.usage?.total_tokens).toBe(190);
  });

  test("openai: chunk shapes match the recorded include_usage stream", async () => {
    const recorded = payloads(
      splitFrames(await fixtureText("streaming/openai-chat-stream-text-include-usage.sse")),
    );
    const built = payloads(streamReply("openai", { text: "Olá!" }).chunks!);
    expect(built.map(keysOf)).toEqual(recorded.map(keysOf));
    expect(streamReply("openai", { text: "x" }).chunks!.at(-1)).toBe("data: [DONE]\n\n");
  });

  test("anthropic: thinking with signature, text, parallel tool_use, stop reason and cache usage", async () => {
    server.enqueue(streamReply("anthropic", { ...FULL, signature: "c2lnbmF0dXJl" }));
    const stream = await anthropic().messages.create({
      model: "claude-test",
      max_tokens: 1024,
      messages: USER,
      stream: true,
    });
    const types: string[] = [];
    let thinking = "";
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "thinking_delta")
        thinking += event.delta.thinking;
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    }
    expect(thinking).toBe(FULL.thinking!);
    expect(text).toBe(FULL.text!);
    expect(types[0]).toBe("message_start");
    expect(types.at(-2)).toBe("message_delta");
    expect(types.at(-1)).toBe("message_stop");

    server.enqueue(streamReply("anthropic", FULL));
    const message = await anthropic()
      .messages.stream({ model: "claude-test", max_tokens: 1024, messages: USER })
      .finalMessage();
    expect(message.id).toMatch(/^msg_01[A-Za-z0-9]{22}$/);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    const [think, answer, add, multiply] = message.content;
    expect(think?.type === "thinking" && think.thinking).toBe(FULL.thinking!);
    expect(think?.type === "thinking" && think.signature.length).toBeGreaterThan(100);
    expect(answer?.type === "text" && answer.text).toBe(FULL.text!);
    expect(add?.type === "tool_use" && [add.name, add.input]).toEqual(["add", { a: 2, b: 3 }]);
    expect(multiply?.type === "tool_use" && multiply.input).toEqual({ a: 2, b: 3, note: "päris ✓" });
    expect(add?.type === "tool_use" && add.id).toMatch(/^toolu_01[A-Za-z0-9]{22}$/);
    expect(message.usage).toMatchObject({
      input_tokens: 100,
      output_tokens: 50,
      cache_read_input_tokens: 40,
      cache_creation_input_tokens: 7,
    });
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
    const credentials = server.requests[0]?.headers["x-api-key"] ?? server.requests[0]?.headers.authorization;
    expect(credentials).toContain(FAKE_KEY);
  });

  test("anthropic: a text-only stream has the recorded event sequence", async () => {
    const built = streamReply("anthropic", { text: "Hello there!" }).chunks!;
    const events = built.map((c) => c.split("\n")[0]);
    expect(events).toEqual([
      "event: message_start",
      "event: content_block_start",
      "event: ping",
      "event: content_block_delta",
      "event: content_block_delta",
      "event: content_block_stop",
      "event: message_delta",
      "event: message_stop",
    ]);
    const message = await (async () => {
      server.enqueue(streamReply("anthropic", { text: "Hello there!", stopReason: "max_tokens" }));
      return anthropic().messages.stream({ model: "m", max_tokens: 5, messages: USER }).finalMessage();
    })();
    expect(message.stop_reason).toBe("max_tokens");
  });

  test("mistral: magistral thinking, text, tool calls in one delta, usage and finish reason", async () => {
    server.enqueue(streamReply("mistral", FULL));
    const stream = await mistral().chat.stream({ model: "magistral-medium-latest", messages: USER });
    let thinking = "";
    let text = "";
    let finish: string | null = null;
    const chunks: CompletionChunk[] = [];
    for await (const event of stream) {
      const chunk = event.data;
      chunks.push(chunk);
      const choice = chunk.choices[0];
      if (!choice) continue;
      const content = choice.delta.content;
      if (typeof content === "string") text += content;
      for (const part of Array.isArray(content) ? content : []) {
        if (part.type === "text") text += part.text;
        if (part.type === "thinking") {
          for (const t of part.thinking) if (t.type === "text") thinking += t.text;
        }
      }
      finish = choice.finishReason ?? finish;
    }
    expect(thinking).toBe(FULL.thinking!);
    expect(text).toBe(FULL.text!);
    expect(finish).toBe("tool_calls");
    const last = chunks.at(-1)!;
    const calls = last.choices[0]?.delta.toolCalls ?? [];
    expect(calls.map((c) => [c.function.name, JSON.parse(String(c.function.arguments))])).toEqual([
      ["add", { a: 2, b: 3 }],
      ["multiply", { a: 2, b: 3, note: "päris ✓" }],
    ]);
    for (const call of calls) expect(call.id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(last.usage).toMatchObject({ promptTokens: 140, completionTokens: 50, totalTokens: 190 });
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(server.requests[0]?.body).toMatchObject({ stream: true });
  });

  test("mistral: plain text stream matches the recorded framing", async () => {
    const recorded = payloads(splitFrames(await fixtureText("streaming/mistral-chat-stream-text.sse")));
    const built = payloads(
      streamReply("mistral", { text: "Hello, world! This is a test response." }).chunks!,
    );
    const shapes = (chunks: Record<string, unknown>[]) => [
      ...new Set(chunks.map((c) => JSON.stringify(keysOf(c)))),
    ];
    expect(shapes(built)).toEqual(shapes(recorded));
    const deltas = (chunks: Record<string, unknown>[]) =>
      chunks.map((c) => JSON.stringify(keysOf((c.choices as { delta: unknown }[])[0]?.delta)));
    expect([...new Set(deltas(built))]).toEqual([...new Set(deltas(recorded))]);
    server.enqueue(streamReply("mistral", { text: "Hello, world!" }));
    let text = "";
    for await (const event of await mistral().chat.stream({
      model: "mistral-small-latest",
      messages: USER,
    })) {
      const content = event.data.choices[0]?.delta.content;
      if (typeof content === "string") text += content;
    }
    expect(text).toBe("Hello, world!");
  });
});

describe("jsonReply through the official SDKs", () => {
  test("answers a streaming request too (as some proxies do), when queued directly", async () => {
    server.enqueue(jsonReply("openai", { text: "not streamed" }));
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true, messages: USER }),
    });
    expect(response.headers.get("content-type")).toBe("application/json");
    expect((await response.json()).choices[0].message.content).toBe("not streamed");
  });

  test("openai", async () => {
    server.enqueue(jsonReply("openai", FULL));
    const completion = await openai().chat.completions.create({ model: "gpt-4o", messages: USER });
    const message = completion.choices[0]?.message as OpenAI.ChatCompletionMessage & {
      reasoning_content?: string;
    };
    expect(message.content).toBe(FULL.text!);
    expect(message.reasoning_content).toBe(FULL.thinking!);
    const calls = (message.tool_calls ?? []).flatMap((c) => (c.type === "function" ? [c.function] : []));
    expect(calls.map((f) => [f.name, JSON.parse(f.arguments)])).toEqual([
      ["add", { a: 2, b: 3 }],
      ["multiply", { a: 2, b: 3, note: "päris ✓" }],
    ]);
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(40);
  });

  test("anthropic", async () => {
    server.enqueue(jsonReply("anthropic", FULL));
    const message = await anthropic().messages.create({ model: "m", max_tokens: 100, messages: USER });
    expect(message.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({
      input_tokens: 100,
      output_tokens: 50,
      cache_read_input_tokens: 40,
    });
  });

  test("mistral", async () => {
    server.enqueue(jsonReply("mistral", { text: "Just text.", usage: { input: 13, output: 8 } }));
    const response = await mistral().chat.complete({ model: "mistral-small-latest", messages: USER });
    expect(response.choices[0]?.message?.content).toBe("Just text.");
    expect(response.choices[0]?.finishReason).toBe("stop");
    expect(response.usage).toMatchObject({ promptTokens: 13, completionTokens: 8 });

    server.enqueue(
      jsonReply("mistral", { toolCalls: [{ id: "gSIMJiOkT", name: "weather", input: { city: "SF" } }] }),
    );
    const tools = await mistral().chat.complete({ model: "mistral-small-latest", messages: USER });
    expect(tools.choices[0]?.message?.toolCalls?.[0]).toMatchObject({
      id: "gSIMJiOkT",
      function: { name: "weather" },
    });
    expect(tools.choices[0]?.finishReason).toBe("tool_calls");
  });

  test("enqueueReply answers streaming or JSON as the request asks", async () => {
    server.enqueueReply("openai", { text: "streamed" });
    server.enqueueReply("openai", { text: "whole" });
    const stream = await openai().chat.completions.create({ model: "m", messages: USER, stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    const whole = await openai().chat.completions.create({ model: "m", messages: USER });
    expect([text, whole.choices[0]?.message.content]).toEqual(["streamed", "whole"]);
  });
});

describe("errorReply", () => {
  test("openai 429 arrives with the real body, rate-limit and retry headers", async () => {
    server.enqueue(await errorReply("openai", 429, { retryAfterMs: 1 }));
    const error = await openai()
      .chat.completions.create({ model: "m", messages: USER })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(429);
    expect(apiError.code).toBe("rate_limit_exceeded");
    expect(apiError.headers?.get("retry-after-ms")).toBe("1");
    expect(apiError.headers?.get("x-ratelimit-limit-tokens")).toBe("30000");
  });

  test("openai 400 context overflow", async () => {
    server.enqueue(await errorReply("openai", 400, { kind: "context" }));
    const error = await openai()
      .chat.completions.create({ model: "m", messages: USER })
      .catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("context_length_exceeded");
  });

  test("anthropic 529 overloaded and 400 prompt too long", async () => {
    server.enqueue(await errorReply("anthropic", 529, { retryAfterSeconds: 0 }));
    const overloaded = await anthropic()
      .messages.create({ model: "m", max_tokens: 1, messages: USER })
      .catch((e: unknown) => e);
    expect(overloaded).toBeInstanceOf(Anthropic.APIError);
    const apiError = overloaded as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(529);
    expect(apiError.error).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    expect(apiError.headers?.get("retry-after")).toBe("0");

    server.enqueue(await errorReply("anthropic", 400, { kind: "context" }));
    const tooLong = await anthropic()
      .messages.create({ model: "m", max_tokens: 1, messages: USER })
      .catch((e: unknown) => e);
    expect(String((tooLong as Error).message)).toContain("prompt is too long");
  });

  test("mistral 401 reaches the SDK with its body", async () => {
    server.enqueue(await errorReply("mistral", 401));
    const error = await mistral()
      .chat.complete({ model: "m", messages: USER })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MistralError);
    expect((error as MistralError).statusCode).toBe(401);
    expect(JSON.parse((error as MistralError).body)).toMatchObject({ message: "Unauthorized" });
  });

  test("gemini, openrouter and ollama bodies are the recorded files", async () => {
    const cases = [
      ["gemini", 400, undefined, "gemini-400-api-key-invalid.json"],
      ["gemini", 400, "context", "gemini-400-input-token-count-exceeded.json"],
      ["openrouter", 401, undefined, "openrouter-401-user-not-found.json"],
      ["ollama", 404, undefined, "ollama-404-model-not-found.json"],
    ] as const;
    for (const [provider, status, kind, file] of cases) {
      server.enqueue(await errorReply(provider, status, kind ? { kind } : {}));
      const response = await fetch(`${server.url}/anything`, { method: "POST", body: "{}" });
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(await response.text()).toBe(await Bun.file(`${FIXTURES}errors/${file}`).text());
    }
    const gemini = await errorReply("gemini", 429, { retryAfterSeconds: 2 });
    expect(JSON.parse(gemini.body!).error.details[1].retryDelay).toBe("2s");
    expect(gemini.headers?.["retry-after"]).toBe("2");
  });

  test("every wire has 400, 401, 404, 429 and 500; impossible combinations are refused", async () => {
    for (const wire of ["openai", "anthropic", "mistral"] as const) {
      for (const status of [400, 401, 404, 429, 500] as const) {
        const reply = await errorReply(wire, status);
        expect(reply.status).toBe(status);
        expect(() => JSON.parse(reply.body!)).not.toThrow();
      }
    }
    await expect(errorReply("openai", 529)).rejects.toThrow("no openai 529 error");
    await expect(errorReply("gemini", 401)).rejects.toThrow("API_KEY_INVALID");
    await expect(errorReply("openai", 429, { kind: "context" })).rejects.toThrow("400");
    await expect(errorReply("openai", 400, { kind: "endpoint" })).rejects.toThrow("404");
  });

  test("a 404 for a path the server does not have names no model", async () => {
    for (const provider of ["openai", "anthropic", "mistral", "litellm"] as const) {
      const reply = await errorReply(provider, 404, { kind: "endpoint" });
      expect(reply.status).toBe(404);
      expect(reply.body).not.toMatch(/model/i);
    }
    const ollama = await errorReply("ollama", 404, { kind: "endpoint" });
    expect(ollama).toMatchObject({
      body: "404 page not found",
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  });

  test("LiteLLM's 401 has the proxy's shape: every field a string", async () => {
    const reply = await errorReply("litellm", 401);
    expect(JSON.parse(reply.body!)).toMatchObject({
      error: { type: "auth_error", param: "None", code: "401" },
    });
    expect(JSON.parse(reply.body!).error.message).toStartWith(
      "Authentication Error, Invalid proxy server token passed.",
    );
  });

  test("a multi-line message survives as newlines inside the JSON string", async () => {
    for (const provider of ["openai", "anthropic", "mistral", "litellm"] as const) {
      const reply = await errorReply(provider, 400, { kind: "multiline" });
      const body = JSON.parse(reply.body!);
      const message: string = body.error?.message ?? body.message;
      expect(message.split("\n")).toHaveLength(3);
    }
  });
});

describe("faults", () => {
  test("dropMidStream: each SDK gets the first deltas, then a connection error", async () => {
    const reply: ScriptedReply = { text: "one two three four five six", usage: { output: 6 } };

    server.enqueue(dropMidStream("openai", reply));
    let openaiText = "";
    const openaiError = await (async () => {
      for await (const chunk of await openai().chat.completions.create({
        model: "m",
        messages: USER,
        stream: true,
      })) {
        openaiText += chunk.choices[0]?.delta.content ?? "";
      }
    })().catch((e: unknown) => e);
    expect(openaiError).toBeInstanceOf(Error);
    expect(openaiText).toBe(splitText(reply.text!).slice(0, 2).join(""));

    server.enqueue(dropMidStream("anthropic", reply));
    let anthropicText = "";
    const anthropicError = await (async () => {
      const stream = await anthropic().messages.create({
        model: "m",
        max_tokens: 9,
        messages: USER,
        stream: true,
      });
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta")
          anthropicText += event.delta.text;
      }
    })().catch((e: unknown) => e);
    expect(anthropicError).toBeInstanceOf(Error);
    expect(anthropicText).toBe(openaiText);

    server.enqueue(dropMidStream("mistral", reply));
    let mistralText = "";
    const mistralError = await (async () => {
      for await (const event of await mistral().chat.stream({ model: "m", messages: USER })) {
        const content = event.data.choices[0]?.delta.content;
        if (typeof content === "string") mistralText += content;
      }
    })().catch((e: unknown) => e);
    expect(mistralError).toBeInstanceOf(Error);
    expect(mistralText).toBe(openaiText);
  });

  test("a dropped stream is a connection failure to fetch and prints nothing", async () => {
    const fakeLlm = new URL("./fake-llm.ts", import.meta.url).pathname;
    const wireScripts = new URL("./wire-scripts.ts", import.meta.url).pathname;
    const script = `
      import { startFakeLLM } from ${JSON.stringify(fakeLlm)};
      import { dropMidStream } from ${JSON.stringify(wireScripts)};
      await using server = await startFakeLLM();
      server.enqueue(dropMidStream("openai", { text: "a b c d" }));
      const response = await fetch(server.url + "/v1/chat/completions", { method: "POST", body: "{}" });
      try { await response.text(); console.log("no error"); }
      catch (error) { console.log("client:", error.code); }
    `;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    await child.exited;
    expect(stdout.trim()).toBe("client: ECONNRESET");
    expect(stderr).toBe("");
  });

  test("dropMidStream refuses a Mistral reply whose only content is the final tool-call chunk", () => {
    expect(() => dropMidStream("mistral", { toolCalls: [{ name: "x", input: {} }] })).toThrow("Mistral");
  });

  test("stallBeforeHeaders sends nothing at all until the client gives up", async () => {
    server.enqueue({ stallBeforeHeaders: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: "{}",
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    for (let i = 0; i < 50 && server.openConnections() > 0; i++) await Bun.sleep(5);
    expect(server.openConnections()).toBe(0);
  });

  test("stallMidStream holds the stream open until the client aborts", async () => {
    // The SDK ends its iteration quietly when the caller aborts.
    server.enqueue(stallMidStream("anthropic", { text: "one two three four" }));
    const controller = new AbortController();
    let text = "";
    const started = Date.now();
    const error = await (async () => {
      const stream = await anthropic().messages.create(
        { model: "m", max_tokens: 9, messages: USER, stream: true },
        { signal: controller.signal },
      );
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
          text += event.delta.text;
          if (text === "one two ") setTimeout(() => controller.abort(), 50);
        }
      }
    })().catch((e: unknown) => e);
    expect(text).toBe("one two ");
    expect(error).toBeUndefined();
    expect(controller.signal.aborted).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    for (let i = 0; i < 50 && server.openConnections() > 0; i++) await Bun.sleep(5);
    expect(server.openConnections()).toBe(0);
  });
});

describe("server", () => {
  test("records method, path with query, lower-case headers and the parsed body", async () => {
    server.enqueue({ body: "ok", headers: { "content-type": "text/plain" } });
    const response = await fetch(`${server.url}/v1/x?y=1`, {
      method: "POST",
      headers: { "X-Custom": "yes", "content-type": "application/json" },
      body: JSON.stringify({ hello: "wörld" }),
    });
    expect(await response.text()).toBe("ok");
    expect(server.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/x?y=1",
      headers: { "x-custom": "yes" },
      body: { hello: "wörld" },
    });
  });

  test("reads chunked request bodies and keeps non-JSON bodies as text", async () => {
    server.enqueue({ body: "ok" });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("not "));
        controller.enqueue(new TextEncoder().encode("json"));
        controller.close();
      },
    });
    await (await fetch(`${server.url}/raw`, { method: "POST", body })).text();
    expect(server.requests[0]?.body).toBe("not json");
  });

  test("matches queued responses by path suffix and answers 599 when nothing fits", async () => {
    server.enqueue(streamReply("openai", { text: "chat" }));
    server.enqueue({
      body: '{"data":[]}',
      headers: { "content-type": "application/json" },
      pathSuffix: "/models",
    });
    const models = await fetch(`${server.url}/v1/models`);
    expect(await models.json()).toEqual({ data: [] });
    const unmatched = await fetch(`${server.url}/v1/embeddings`, { method: "POST", body: "{}" });
    expect(unmatched.status).toBe(599);
    expect(await unmatched.text()).toContain("nothing queued for /v1/embeddings");
    expect(server.pending()).toBe(1);
    const chat = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    const text = payloads([await chat.text()])
      .map((p) => (p.choices as { delta: { content?: string } }[])[0]?.delta.content ?? "")
      .join("");
    expect(text).toBe("chat");
  });

  test("waitForRequests resolves on arrival and rejects on timeout", async () => {
    server.enqueue(stallMidStream("openai", { text: "a b c" }));
    const controller = new AbortController();
    const pending = fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: '{"stream":true}',
      signal: controller.signal,
    }).then((r) => r.text());
    const [request] = await server.waitForRequests(1, 2000);
    expect(request?.body).toEqual({ stream: true });
    controller.abort();
    await expect(pending).rejects.toThrow();
    await expect(server.waitForRequests(2, 30)).rejects.toThrow(
      "expected 2 request(s) within 30 ms, got: POST",
    );
  });

  test("a malformed request gets a 400 and the connection closes", async () => {
    const { promise: reply, resolve } = Promise.withResolvers<string>();
    let received = "";
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port: server.port,
      socket: {
        data(_socket, data) {
          received += new TextDecoder().decode(data);
        },
        close() {
          resolve(received);
        },
      },
    });
    socket.write("NONSENSE\r\n\r\n");
    expect(await reply).toStartWith("HTTP/1.1 400 Bad Request\r\n");
    expect(received).toContain("malformed request line");
  });

  test("chunk delays space the events out", async () => {
    server.enqueue({ ...streamReply("openai", { text: "a b" }), chunkDelayMs: 10 });
    const started = Date.now();
    await (await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: "{}" })).text();
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
  });
});

describe("wire-scripts", () => {
  test("splitText keeps every character and yields several pieces", () => {
    for (const text of [
      "Hello there!",
      "x",
      "  lead and trail  ",
      "abcdefgh",
      "emoji 🎉 ok",
      "a\n\nb c d e f g",
    ]) {
      const pieces = splitText(text);
      expect(pieces.join("")).toBe(text);
      if (Array.from(text).length > 1) expect(pieces.length).toBeGreaterThan(1);
    }
    expect(splitText("")).toEqual([]);
  });

  test("given ids are used verbatim; generated ids never repeat", () => {
    const pinned: ScriptedReply = { toolCalls: [{ id: "toolu_fixed", name: "t", input: {} }] };
    expect(streamReply("anthropic", pinned).chunks!.join("")).toContain('"id":"toolu_fixed"');
    const generated = (wire: "openai" | "anthropic" | "mistral") =>
      JSON.stringify(payloads(streamReply(wire, { toolCalls: [{ name: "t", input: {} }] }).chunks!)).match(
        /"id":"((?:call_|toolu_)?[A-Za-z0-9]{9,})"/g,
      );
    expect(generated("openai")).not.toEqual(generated("openai"));
    expect(generated("mistral")).not.toEqual(generated("mistral"));
  });

  test("stop reasons map to each wire's finish reason", () => {
    const finish = (wire: "openai" | "mistral", stopReason: ScriptedReply["stopReason"]) =>
      payloads(streamReply(wire, { text: "t", stopReason }).chunks!)
        .flatMap((p) => (p.choices as { finish_reason: string | null }[]) ?? [])
        .map((c) => c.finish_reason)
        .filter(Boolean);
    expect(finish("openai", "max_tokens")).toEqual(["length"]);
    expect(finish("mistral", "end_turn")).toEqual(["stop"]);
    expect(finish("openai", "tool_use")).toEqual(["tool_calls"]);
  });
});
