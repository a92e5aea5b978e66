/**
 * Real servers and gateways through every wire's SDK: a plain JSON answer to a streaming request, 404s
 * that tell a missing model from a missing endpoint, 401s that quote a gateway's words without leaking a
 * key, multi-line messages flattened, and what happens with no key at all.
 */
import { describe, expect, test } from "bun:test";
import { streamAnthropic } from "../../src/providers/anthropic.ts";
import { streamProvider } from "../../src/providers/index.ts";
import { streamMistral } from "../../src/providers/mistral.ts";
import { streamOpenAI } from "../../src/providers/openai.ts";
import type { ProviderError, StreamEvent, StreamFn } from "../../src/providers/types.ts";
import {
  collectEvents,
  jsonResponse,
  testProvider,
  testRequest,
  useAdapterHarness,
} from "../support/stream-helpers.ts";
import { errorReply, jsonReply, type ScriptedReply, type Wire } from "../support/wire-scripts.ts";

const KEY = "sk-test-gateway-key-000000000000wxyz";

const WIRES: { wire: Wire; id: string; stream: StreamFn; model: string }[] = [
  { wire: "openai", id: "openai", stream: streamOpenAI, model: "gpt-4o" },
  { wire: "anthropic", id: "anthropic", stream: streamAnthropic, model: "claude-sonnet-4-5" },
  { wire: "mistral", id: "mistral", stream: streamMistral, model: "mistral-small-latest" },
];

function errorOf(events: StreamEvent[]): ProviderError {
  expect(events.filter((e) => e.type === "error" || e.type === "done")).toHaveLength(1);
  const last = events.at(-1);
  if (last?.type !== "error") throw new Error(`expected an error event, got ${JSON.stringify(last)}`);
  return last.error;
}

const ANSWER: ScriptedReply = {
  text: "Both results are below.",
  toolCalls: [{ name: "add", input: { a: 2, b: 3 } }],
  usage: { input: 40, output: 9 },
};

for (const { wire, id, stream, model } of WIRES) {
  describe(`${wire} wire behind a gateway`, () => {
    const { server, provider, request, collect } = useAdapterHarness(id, stream, {
      apiKey: KEY,
      model,
      prompt: "add 2 and 3",
    });

    test("a plain JSON completion answering stream: true is the complete answer", async () => {
      server.enqueue(jsonReply(wire, ANSWER));
      const events = await collect(request());
      expect(server.requests.at(-1)?.body).toMatchObject({ stream: true });
      const text = events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
      expect(text).toBe("Both results are below.");
      const call = events.find((e) => e.type === "tool_call");
      expect(call).toMatchObject({ type: "tool_call", name: "add", input: { a: 2, b: 3 } });
      const done = events.at(-1);
      expect(done).toMatchObject({
        type: "done",
        stop_reason: "tool_use",
        usage: { input_tokens: 40, output_tokens: 9 },
      });
    });

    test("a 404 that names the model is an unknown model, with the server's words", async () => {
      server.enqueue(await errorReply(wire, 404));
      const error = errorOf(await collect(request({ model: "nonexistent" })));
      expect(error.kind).toBe("model_not_found");
      expect(error.message).toStartWith(`unknown model "nonexistent" for ${id}: `);
      expect(error.message).toContain("nonexistent");
    });

    test("a 404 that names no model is a missing endpoint: check the base URL", async () => {
      server.enqueue(await errorReply(wire, 404, { kind: "endpoint" }));
      const error = errorOf(await collect(request()));
      expect(error).toMatchObject({ kind: "bad_request", status: 404 });
      expect(error.message).toContain(`check the base URL: ${provider().baseURL}`);
      expect(error.message).not.toContain("unknown model");
    });

    test("a gateway's 401 is quoted beside the key source, one line, key-shaped text masked", async () => {
      server.enqueue({
        ...(await errorReply("litellm", 401)),
        // A server that echoes the whole key it received.
        respond: (req) => ({
          status: 401,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            error: {
              message: `Authentication Error, Invalid proxy server token passed.\nReceived API Key = ${req.headers.authorization?.replace("Bearer ", "") ?? req.headers["x-api-key"]}`,
              type: "auth_error",
              param: "None",
              code: "401",
            },
          }),
        }),
      });
      const error = errorOf(await collect(request()));
      expect(error.kind).toBe("auth");
      expect(error.message).toBe(
        `invalid API key for ${id} (from env ${id.toUpperCase()}_API_KEY): Authentication Error, Invalid proxy server token passed. Received API Key = sk-…wxyz`,
      );
    });

    test("a multi-line server message becomes one line", async () => {
      server.enqueue(await errorReply(wire, 400, { kind: "multiline" }));
      const error = errorOf(await collect(request()));
      expect(error.message).not.toContain("\n");
      expect(error.message).toContain("ChatCompletionRequest max_tokens Input should be greater than 0");
    });
  });
}

describe("an error object in a 2xx JSON body is classified, not taken for a broken stream", () => {
  const openai = useAdapterHarness("openai", streamOpenAI, { apiKey: KEY, model: "gpt-4o", prompt: "hi" });
  const anthropic = useAdapterHarness("anthropic", streamAnthropic, {
    apiKey: KEY,
    model: "claude-sonnet-4-5",
    prompt: "hi",
  });

  test("OpenAI wire: the error's code is its status", async () => {
    openai.server.enqueue(jsonResponse(200, { error: { message: "upstream rate limit", code: 429 } }));
    const error = errorOf(await openai.collect(openai.request()));
    expect(error).toMatchObject({
      kind: "rate_limit",
      message: "rate limited from openai: upstream rate limit",
    });
  });

  test("Anthropic wire: the error's type says what it is", async () => {
    anthropic.server.enqueue(
      jsonResponse(200, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    );
    const error = errorOf(await anthropic.collect(anthropic.request()));
    expect(error).toMatchObject({ kind: "overloaded", message: "overloaded from anthropic: Overloaded" });
  });
});

describe("base URL hints on a missing endpoint", () => {
  const { server, provider, request, collect } = useAdapterHarness("anthropic", streamAnthropic, {
    apiKey: KEY,
    model: "claude-sonnet-4-5",
    prompt: "hi",
  });

  test("ANTHROPIC_BASE_URL ending in /v1 is named as the mistake", async () => {
    server.enqueue(await errorReply("anthropic", 404, { kind: "endpoint" }));
    const wrong = provider({ baseURL: `${server.url}/v1`, baseURLSource: "ANTHROPIC_BASE_URL" });
    const error = errorOf(await collect(request({ provider: wrong })));
    expect(server.requests.at(-1)?.path).toBe("/v1/v1/messages");
    expect(error.message).toBe(
      `anthropic has no such endpoint (404 Not Found): check the base URL: ${server.url}/v1 — ANTHROPIC_BASE_URL should be the server root without /v1 (like https://api.anthropic.com)`,
    );
  });
});

describe("OpenAI-compatible endpoints without a key", () => {
  const { server, provider, request, collect } = useAdapterHarness("openai", streamOpenAI, {
    apiKey: KEY,
    model: "local-model",
    prompt: "hi",
  });
  const keyless = () => provider({ id: "lab", name: "Lab", apiKey: undefined, keySource: "none" });

  test("a custom endpoint with no key gets no Authorization header at all", async () => {
    server.enqueue(jsonReply("openai", { text: "hello" }));
    const events = await collect(request({ provider: keyless() }));
    expect(events.at(-1)?.type).toBe("done");
    expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  test("ollama needs none: the request goes out, without an Authorization header", async () => {
    server.enqueue(jsonReply("openai", { text: "hello" }));
    const ollama = provider({ id: "ollama", name: "Ollama", apiKey: undefined, keySource: "none" });
    const events = await collectEvents(streamProvider(request({ provider: ollama })));
    expect(events.at(-1)?.type).toBe("done");
    expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  test("its 401 says no key was found and where ion looked", async () => {
    server.enqueue(jsonResponse(401, { error: { message: "Missing bearer token" } }));
    const error = errorOf(await collect(request({ provider: keyless() })));
    expect(error.kind).toBe("auth");
    expect(error.message).toBe(
      "no API key for lab, and the server asks for one: Missing bearer token (ion looked in providers.lab.api_key in config.json and keys.json; run `ion providers login lab`)",
    );
  });
});

describe("built-in providers that need a key", () => {
  for (const [id, env] of [
    ["groq", "$GROQ_API_KEY"],
    ["mistral", "$MISTRAL_API_KEY"],
    ["openai", "$OPENAI_API_KEY"],
    ["openrouter", "$OPENROUTER_API_KEY"],
    ["google", "$GEMINI_API_KEY and $GOOGLE_API_KEY"],
    ["anthropic", "$ANTHROPIC_API_KEY"],
  ] as const) {
    test(`${id} without one is refused before any request, saying where ion looked`, async () => {
      const wire = id === "anthropic" ? "anthropic" : id === "mistral" ? "mistral" : "openai";
      // The discard port: a request would fail as a network error, not as this auth error.
      const provider = testProvider({ id, wire, apiKey: undefined, keySource: "none" });
      const events = await collectEvents(streamProvider(testRequest({ provider })));
      expect(events).toHaveLength(1);
      const error = errorOf(events);
      expect(error.kind).toBe("auth");
      expect(error.message).toStartWith(
        `no API key for ${id} (ion looked in providers.${id}.api_key in config.json, keys.json`,
      );
      expect(error.message).toContain(env);
      expect(error.message).toContain(`ion providers login ${id}`);
    });
  }
});
