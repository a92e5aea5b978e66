/**
 * End to end: the real CLI against the fake server, once per provider, through each wire. Ollama's
 * native wire has its own file (run-ollama.test.ts): it asks /api/show before the chat.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm.ts";
import { parseStreamJson, ResultSchema } from "../support/output-schemas.ts";
import type { Wire } from "../support/wire-scripts.ts";

const FAKE_KEY = "sk-test-e2e-secret-key-0000000000009999";

interface Case {
  provider: string;
  wire: Wire;
  model: string;
  /** Env and config that point the provider at the fake server. */
  setup(server: FakeLLM, box: Sandbox): Promise<Record<string, string>>;
  path: string;
}

const viaConfig =
  (id: string, keyEnv: string | undefined) =>
  async (server: FakeLLM, box: Sandbox): Promise<Record<string, string>> => {
    await box.writeConfig({ providers: { [id]: { api_base: `${server.url}/v1` } } });
    return keyEnv ? { [keyEnv]: FAKE_KEY } : {};
  };

const CASES: Case[] = [
  {
    provider: "openai",
    wire: "openai",
    model: "gpt-4o-mini",
    path: "/v1/chat/completions",
    setup: async (s) => ({ OPENAI_BASE_URL: `${s.url}/v1`, OPENAI_API_KEY: FAKE_KEY }),
  },
  {
    provider: "anthropic",
    wire: "anthropic",
    model: "claude-sonnet-4-5",
    path: "/v1/messages",
    setup: async (s) => ({ ANTHROPIC_BASE_URL: s.url, ANTHROPIC_API_KEY: FAKE_KEY }),
  },
  {
    provider: "mistral",
    wire: "mistral",
    model: "mistral-small-latest",
    path: "/v1/chat/completions",
    setup: async (s) => ({ MISTRAL_BASE_URL: s.url, MISTRAL_API_KEY: FAKE_KEY }),
  },
  {
    provider: "openrouter",
    wire: "openai",
    model: "anthropic/claude-sonnet-4.5",
    path: "/v1/chat/completions",
    setup: viaConfig("openrouter", "OPENROUTER_API_KEY"),
  },
  {
    provider: "groq",
    wire: "openai",
    model: "moonshotai/kimi-k2",
    path: "/v1/chat/completions",
    setup: viaConfig("groq", "GROQ_API_KEY"),
  },
  {
    provider: "google",
    wire: "openai",
    model: "gemini-2.5-flash",
    path: "/v1/chat/completions",
    setup: viaConfig("google", "GEMINI_API_KEY"),
  },
];

let server: FakeLLM;
beforeAll(async () => {
  server = await startFakeLLM();
});
afterAll(async () => {
  await server.stop();
});

function lastBody(): Record<string, unknown> {
  return server.requests[server.requests.length - 1]?.body as Record<string, unknown>;
}

describe.each(CASES)("ion run over $provider", (c) => {
  test("a text answer with usage, as json", async () => {
    using box = new Sandbox();
    const env = await c.setup(server, box);
    server.enqueueReply(c.wire, { text: "The answer is 42.", usage: { input: 30, output: 7, cacheRead: 5 } });
    const before = server.requests.length;
    const run = await box.run(
      ["run", "-m", `${c.provider}/${c.model}`, "-o", "json", "what is the answer?"],
      { env },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({
      subtype: "success",
      is_error: false,
      result: "The answer is 42.",
      provider: c.provider,
      model: c.model,
      num_turns: 1,
    });
    expect(result.usage).toEqual({
      input_tokens: 30,
      output_tokens: 7,
      cache_read_input_tokens: 5,
      cache_creation_input_tokens: 0,
    });
    expect(server.requests.length).toBe(before + 1);
    expect(server.requests[before]?.path).toStartWith(c.path);
    expect(lastBody().model).toBe(c.model);
    expect(JSON.stringify(lastBody())).toContain("what is the answer?");
  });

  test("thinking is streamed in stream-json but kept out of result", async () => {
    using box = new Sandbox();
    const env = await c.setup(server, box);
    server.enqueueReply(c.wire, { thinking: "Let me think about 6 times 7.", text: "42" });
    const run = await box.run(
      ["run", "-m", `${c.provider}/${c.model}`, "-o", "stream-json", "--partial", "6*7?"],
      { env },
    );
    expect(run.code).toBe(0);
    const { middle, result } = parseStreamJson(jsonLines(run.stdout));
    expect(result.result).toBe("42");
    const assistant = middle.find((l) => l.type === "assistant");
    const content = assistant && "message" in assistant ? assistant.message.content : [];
    expect(content).toMatchObject([
      { type: "thinking", thinking: "Let me think about 6 times 7." },
      { type: "text", text: "42" },
    ]);
    // Anthropic signs thinking; the signature is kept so a consumer can send the block back.
    const signature = content[0]?.type === "thinking" ? content[0].signature : undefined;
    if (c.wire === "anthropic") expect(signature).toBeString();
    else expect(signature).toBeUndefined();
    const events = middle.flatMap((l) => (l.type === "stream_event" && "event" in l ? [l.event] : []));
    expect(events[0]?.type).toBe("message_start");
    expect(events.at(-1)?.type).toBe("message_stop");
    const thinking = events.filter(
      (e) => e.type === "content_block_delta" && e.delta.type === "thinking_delta",
    );
    expect(thinking.length).toBeGreaterThan(0);
  });

  // Ollama takes no key, so it has no invalid-key case.
  test.skipIf(c.provider === "ollama")(
    "an invalid key is exit 1 naming the provider and key source, and the key appears nowhere",
    async () => {
      using box = new Sandbox();
      const env = await c.setup(server, box);
      const status = c.provider === "google" ? 400 : 401;
      const errorProvider = c.provider === "google" ? "gemini" : c.wire;
      const { errorReply } = await import("../support/wire-scripts.ts");
      server.enqueue({ ...(await errorReply(errorProvider, status)), pathSuffix: c.path.replace("/v1", "") });
      const run = await box.run(["run", "-m", `${c.provider}/${c.model}`, "-o", "json", "hi"], { env });
      expect(run.code).toBe(1);
      const result = ResultSchema.parse(JSON.parse(run.stdout));
      expect(result.subtype).toBe("error_during_execution");
      expect(result.errors[0]).toMatch(
        new RegExp(`invalid API key for ${c.provider} \\(from env [A-Z_]+\\)`),
      );
      expect(run.stderr).toContain(`invalid API key for ${c.provider}`);
      expect(run.stdout + run.stderr).not.toContain(FAKE_KEY);
      expect(run.stdout + run.stderr).not.toContain(FAKE_KEY.slice(8, 30));
    },
  );
});
