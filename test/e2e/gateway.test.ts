/**
 * End to end: ion in front of gateways and OpenAI/Anthropic-compatible servers — a model list cached
 * from another endpoint, 404s for a model versus an endpoint, a gateway's 401, a JSON answer to a
 * streaming request, multi-line messages, keyless endpoints and missing keys. Every error is one line.
 */
import { describe, expect, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, warmCatalog } from "../support/e2e.ts";
import { ResultSchema } from "../support/output-schemas.ts";
import { useFakeLLM } from "../support/stream-helpers.ts";
import { dropMidStream, errorReply, jsonReply, wirePathSuffix } from "../support/wire-scripts.ts";

const KEY = "sk-test-gateway-e2e-key-0000000000wxyz";
// Server A: where the model list is cached from (and models.dev's snapshot). Server B: the gateway used later.
const { server: a, env: envA } = useOpenAIServer(KEY, (url) => ({ ION_MODELS_URL: `${url}/api.json` }));
const b = useFakeLLM();

const envB = () => ({ ...envA, OPENAI_BASE_URL: `${b.url}/v1` });
const CHAT = wirePathSuffix("openai");

/** The error line ion prints on stderr (all of it: exactly one line). */
function errorLine(stderr: string): string {
  const lines = stderr.split("\n").filter((l) => l.startsWith("ion: ") && !l.startsWith("ion: warning"));
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

const cacheListFromA = (box: Sandbox) => warmCatalog(a, box, envA);

describe("a model list cached from another endpoint", () => {
  test("never refuses a model: the run goes to the new base URL, with a warning", async () => {
    using box = new Sandbox();
    await cacheListFromA(box);
    b.enqueueReply("openai", { text: "served by the gateway" });
    const before = b.requests.length;
    const run = await box.run(["run", "-m", "openai/team-model-only-on-b", "-o", "json", "hi"], {
      env: envB(),
    });
    expect(run.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).result).toBe("served by the gateway");
    expect(b.requests.length - before).toBe(1);
    expect(b.requests.at(-1)?.body).toMatchObject({ model: "team-model-only-on-b" });
    expect(run.stderr).toContain(
      `ion: warning: "openai/team-model-only-on-b" is not in the cached model list, which was not fetched from ${b.url}/v1 with this key; sending it anyway`,
    );
  });

  test("the same id against the endpoint the list came from is still refused", async () => {
    using box = new Sandbox();
    await cacheListFromA(box);
    const run = await box.run(["run", "-m", "openai/team-model-only-on-b", "hi"], { env: envA });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('unknown model "openai/team-model-only-on-b"');
  });

  test("a list fetched with another key is not trusted either", async () => {
    using box = new Sandbox();
    await cacheListFromA(box);
    await Bun.write(
      `${box.configDir}/keys.json`,
      JSON.stringify({ openai: "sk-test-other-key-0000000000001111" }),
    );
    a.enqueueReply("openai", { text: "ok" });
    const run = await box.run(["run", "-m", "openai/model-of-that-key", "hi"], { env: envA });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("is not in the cached model list, which was not fetched from");
  });

  test("an expired list is not trusted: a warning, and the request goes ahead", async () => {
    using box = new Sandbox();
    await cacheListFromA(box);
    const file = `${box.root}/cache/ion/models.json`;
    const cache = await Bun.file(file).json();
    cache.fetched_at = new Date(Date.now() - 3 * 24 * 3600_000).toISOString();
    await Bun.write(file, JSON.stringify(cache));
    a.enqueueReply("openai", { text: "new model answered" });
    const run = await box.run(["run", "-m", "openai/gpt-5-brand-new", "hi"], { env: envA });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("new model answered\n");
    expect(run.stderr).toContain("is not in the cached model list, which is 3 days old; sending it anyway");
  });
});

describe("what a 404 means", () => {
  test("an unknown model keeps the server's message", async () => {
    using box = new Sandbox();
    a.enqueue({ ...(await errorReply("openai", 404)), pathSuffix: CHAT });
    const run = await box.run(["run", "-m", "openai/gpt-nonexistent", "hi"], { env: envA });
    expect(run.code).toBe(1);
    expect(errorLine(run.stderr)).toBe(
      'ion: unknown model "gpt-nonexistent" for openai: The model `gpt-nonexistent` does not exist or you do not have access to it.',
    );
  });

  test("an endpoint that does not exist says to check the base URL", async () => {
    using box = new Sandbox();
    a.enqueue({ ...(await errorReply("litellm", 404, { kind: "endpoint" })), pathSuffix: CHAT });
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "hi"], { env: envA });
    expect(run.code).toBe(1);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).errors).toEqual([
      `openai has no such endpoint (404 Not Found): check the base URL: ${a.url}/v1`,
    ]);
  });

  test("ANTHROPIC_BASE_URL ending in /v1 is named as the likely mistake", async () => {
    using box = new Sandbox();
    a.enqueue({
      ...(await errorReply("anthropic", 404, { kind: "endpoint" })),
      pathSuffix: "/v1/v1/messages",
    });
    const run = await box.run(["run", "-m", "anthropic/claude-sonnet-4-5", "hi"], {
      env: { ANTHROPIC_BASE_URL: `${a.url}/v1`, ANTHROPIC_API_KEY: KEY },
    });
    expect(run.code).toBe(1);
    expect(errorLine(run.stderr)).toBe(
      `ion: anthropic has no such endpoint (404 Not Found): check the base URL: ${a.url}/v1 — ANTHROPIC_BASE_URL should be the server root without /v1 (like https://api.anthropic.com)`,
    );
  });
});

describe("a gateway's answers", () => {
  test("its 401 is quoted beside the key source; the key appears nowhere", async () => {
    using box = new Sandbox();
    a.enqueue({ ...(await errorReply("litellm", 401)), pathSuffix: CHAT });
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "hi"], { env: envA });
    expect(run.code).toBe(1);
    const [error] = ResultSchema.parse(JSON.parse(run.stdout)).errors;
    expect(error).toStartWith(
      "invalid API key for openai (from env OPENAI_API_KEY): Authentication Error, Invalid proxy server token passed. Received API Key = sk-...wxyz",
    );
    expect(error!.length).toBeLessThanOrEqual(
      "invalid API key for openai (from env OPENAI_API_KEY): ".length + 200,
    );
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  test("a plain JSON completion for a streaming request is the answer, not a broken stream", async () => {
    using box = new Sandbox();
    a.enqueue(jsonReply("openai", { text: "answered in one piece", usage: { input: 10, output: 4 } }));
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "hi"], { env: envA });
    expect(run.code).toBe(0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({ subtype: "success", result: "answered in one piece" });
    expect(result.usage).toMatchObject({ input_tokens: 10, output_tokens: 4 });
  });

  test("on the Anthropic wire too, a web page says to check the base URL", async () => {
    using box = new Sandbox();
    const page = "<!doctype html><html><body><h1>Welcome to our site</h1></body></html>";
    a.enqueue({
      status: 200,
      headers: { "content-type": "text/html" },
      body: page,
      pathSuffix: "/v1/messages",
    });
    const run = await box.run(["run", "-m", "anthropic/claude-sonnet-4-5", "-o", "json", "hi"], {
      env: { ANTHROPIC_BASE_URL: a.url, ANTHROPIC_API_KEY: KEY },
    });
    expect(run.code).toBe(1);
    expect(errorLine(run.stderr)).toBe(
      `ion: anthropic answered with a web page (text/html), not an event stream: check the base URL: ${a.url}`,
    );
    expect(ResultSchema.parse(JSON.parse(run.stdout)).subtype).toBe("error_during_execution");
  });

  test("a web page where the API should be says to check the base URL", async () => {
    using box = new Sandbox();
    const page = "<!doctype html><html><body><h1>Welcome to our site</h1></body></html>";
    a.enqueue({
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8" },
      body: page,
      pathSuffix: CHAT,
    });
    const run = await box.run(["run", "-m", "openai/gpt-4o", "hi"], { env: envA });
    expect(run.code).toBe(1);
    expect(errorLine(run.stderr)).toBe(
      `ion: openai answered with a web page (text/html), not an event stream: check the base URL: ${a.url}/v1`,
    );
  });

  test("a multi-line message is one line", async () => {
    using box = new Sandbox();
    a.enqueue({ ...(await errorReply("litellm", 400, { kind: "multiline" })), pathSuffix: CHAT });
    const run = await box.run(["run", "-m", "openai/gpt-4o", "hi"], { env: envA });
    expect(run.code).toBe(1);
    expect(errorLine(run.stderr)).toBe(
      "ion: request rejected (400) from openai: 1 validation error for ChatCompletionRequest max_tokens Input should be greater than 0 [type=greater_than, input_value=-1, input_type=int]",
    );
  });

  test("a dropped connection reads without the runtime's internals", async () => {
    using box = new Sandbox();
    a.enqueue(dropMidStream("openai", { text: "This answer will be cut off before it ends." }));
    const run = await box.run(["run", "-m", "openai/gpt-4o", "hi"], { env: envA });
    expect(run.code).toBe(1);
    const line = errorLine(run.stderr);
    expect(line).toStartWith("ion: connection to openai ended mid-stream: ");
    expect(line).not.toContain("verbose");
    expect(line).not.toContain("fetch()");
  });
});

describe("keys", () => {
  test("a built-in provider that needs a key is refused before any request, saying where ion looked", async () => {
    using box = new Sandbox();
    await box.writeConfig({ providers: { groq: { api_base: `${a.url}/v1` } } });
    const before = a.requests.length;
    const run = await box.run(["run", "-m", "groq/llama-3.3-70b-versatile", "-o", "json", "hi"]);
    expect(run.code).toBe(1);
    expect(a.requests.length).toBe(before);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).errors).toEqual([
      "no API key for groq (ion looked in providers.groq.api_key in config.json, keys.json and $GROQ_API_KEY): run `ion providers login groq` or set GROQ_API_KEY",
    ]);
  });

  test("a custom endpoint may be keyless: no Authorization header is sent", async () => {
    using box = new Sandbox();
    await box.writeConfig({ providers: { lab: { api_base: `${a.url}/v1` } } });
    a.enqueueReply("openai", { text: "local answer" });
    const run = await box.run(["run", "-m", "lab/qwen3-coder", "hi"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("local answer\n");
    expect(a.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  test("when a keyless custom endpoint answers 401, ion says no key was found and where it looked", async () => {
    using box = new Sandbox();
    await box.writeConfig({ providers: { lab: { api_base: `${a.url}/v1` } } });
    a.enqueue({ ...(await errorReply("litellm", 401)), pathSuffix: CHAT });
    const run = await box.run(["run", "-m", "lab/qwen3-coder", "hi"]);
    expect(run.code).toBe(1);
    const line = errorLine(run.stderr);
    expect(line).toStartWith("ion: no API key for lab, and the server asks for one: Authentication Error");
    expect(line).toEndWith(
      "(ion looked in providers.lab.api_key in config.json and keys.json; run `ion providers login lab`)",
    );
  });
});
