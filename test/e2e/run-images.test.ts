/**
 * End to end: images attached with `-f`, in each wire's own format (OpenAI and Mistral: an
 * `image_url` part with a data: URL; Anthropic: an `image` block with a base64 source; Ollama's
 * native /api/chat: `images` beside the message's text); refused before any request for a model the
 * catalogue says cannot read them, or when too large; kept in the session and sent again on `-c`.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { type FakeLLM, FIXTURES, startFakeLLM } from "../support/fake-llm.ts";
import { type OllamaCard, QWEN3, type Seen, strictOllama } from "../support/strict-ollama.ts";

const KEY = "sk-test-images-key-000000000000000000042";
/** A real 1×1 PNG (IHDR, IDAT and IEND with valid CRCs). */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const PNG = Buffer.from(PNG_BASE64, "base64");
const DATA_URL = `data:image/png;base64,${PNG_BASE64}`;

let server: FakeLLM;
beforeEach(async () => {
  server = await startFakeLLM();
});
afterEach(async () => {
  await server.stop();
});

function bodiesSince(from: number, suffix: string): Record<string, unknown>[] {
  return server.requests
    .slice(from)
    .filter((r) => r.path.endsWith(suffix))
    .map((r) => r.body as Record<string, unknown>);
}

type Messages = { role: string; content: unknown; images?: unknown }[];
const messagesOf = (body: Record<string, unknown> | undefined) => (body?.messages ?? []) as Messages;

/**
 * The catalogue cache, as `ion models --refresh` writes it, from the models.dev snapshot with the
 * input modalities models.dev gives these two models: gpt-4o reads images, gpt-3.5-turbo does not.
 */
async function warmCatalogWithModalities(box: Sandbox, env: Record<string, string>): Promise<void> {
  const snapshot = (await Bun.file(`${FIXTURES}models-dev-snapshot.json`).json()) as {
    openai: { models: Record<string, Record<string, unknown>> };
  };
  snapshot.openai.models["gpt-4o"]!.modalities = { input: ["text", "image", "pdf"], output: ["text"] };
  snapshot.openai.models["gpt-3.5-turbo"]!.modalities = { input: ["text"], output: ["text"] };
  const list = {
    object: "list",
    data: ["gpt-4o", "gpt-3.5-turbo"].map((id) => ({ id, object: "model", created: 1, owned_by: "openai" })),
  };
  const json = { "content-type": "application/json" };
  server.enqueue(
    { body: JSON.stringify(list), headers: json, pathSuffix: "/models" },
    { body: JSON.stringify(snapshot), headers: json, pathSuffix: "/api.json" },
  );
  const run = await box.run(["models", "--refresh", "--json"], { env });
  expect(run.code).toBe(0);
}

const openaiEnv = () => ({
  OPENAI_BASE_URL: `${server.url}/v1`,
  OPENAI_API_KEY: KEY,
  ION_MODELS_URL: `${server.url}/api.json`,
});

describe("ion run -f shot.png sends the image in each wire's format", () => {
  test("OpenAI Chat Completions: an image_url part with a data: URL, before the prompt", async () => {
    using box = new Sandbox();
    await Bun.write(join(box.workspace, "shot.png"), PNG);
    server.enqueueReply("openai", { text: "A single transparent pixel." });
    const before = server.requests.length;
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-f", "shot.png", "what is this?"], {
      env: openaiEnv(),
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("A single transparent pixel.\n");
    const user = messagesOf(bodiesSince(before, "/chat/completions")[0]).find((m) => m.role === "user");
    expect(user?.content).toEqual([
      { type: "image_url", image_url: { url: DATA_URL } },
      { type: "text", text: "what is this?" },
    ]);
  });

  test("Anthropic Messages: an image block with a base64 source", async () => {
    using box = new Sandbox();
    await Bun.write(join(box.workspace, "shot.png"), PNG);
    server.enqueueReply("anthropic", { text: "A pixel." });
    const before = server.requests.length;
    const run = await box.run(
      ["run", "-m", "anthropic/claude-sonnet-4-5", "-f", "shot.png", "what is this?"],
      { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY } },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const [user] = messagesOf(bodiesSince(before, "/v1/messages")[0]);
    expect(user?.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
      { type: "text", text: "what is this?", cache_control: { type: "ephemeral" } },
    ]);
  });

  test("Mistral: an image_url chunk holding the data: URL", async () => {
    using box = new Sandbox();
    await Bun.write(join(box.workspace, "shot.png"), PNG);
    server.enqueueReply("mistral", { text: "A pixel." });
    const before = server.requests.length;
    const run = await box.run(
      ["run", "-m", "mistral/mistral-small-latest", "-f", "shot.png", "what is this?"],
      { env: { MISTRAL_BASE_URL: server.url, MISTRAL_API_KEY: KEY } },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const user = messagesOf(bodiesSince(before, "/chat/completions")[0]).find((m) => m.role === "user");
    expect(user?.content).toEqual([
      { type: "image_url", image_url: DATA_URL },
      { type: "text", text: "what is this?" },
    ]);
  });

  const LLAVA: OllamaCard = { ...QWEN3, name: "llava:7b", capabilities: ["completion", "vision"] };

  test("Ollama /api/chat: the base64 image in the message's images, for a model with vision", async () => {
    using box = new Sandbox();
    await Bun.write(join(box.workspace, "shot.png"), PNG);
    const seen: Seen[] = [];
    for (let i = 0; i < 2; i++) server.enqueue(strictOllama([LLAVA], () => ({ text: "A pixel." }), seen));
    const before = server.requests.length;
    const run = await box.run(["run", "-m", "ollama/llava:7b", "-f", "shot.png", "what is this?"], {
      env: { OLLAMA_HOST: `127.0.0.1:${server.port}` },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const user = messagesOf(bodiesSince(before, "/api/chat")[0]).find((m) => m.role === "user");
    expect(user).toEqual({ role: "user", content: "what is this?", images: [PNG_BASE64] });
  });

  test("Ollama: a model whose /api/show lists no vision is refused before any chat request", async () => {
    using box = new Sandbox();
    await Bun.write(join(box.workspace, "shot.png"), PNG);
    server.enqueue(strictOllama([QWEN3], () => ({ text: "unreachable" })));
    const before = server.requests.length;
    const run = await box.run(["run", "-m", "ollama/qwen3:8b", "-f", "shot.png", "what is this?"], {
      env: { OLLAMA_HOST: `127.0.0.1:${server.port}` },
    });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain("ollama/qwen3:8b cannot read images");
    expect(bodiesSince(before, "/api/chat")).toHaveLength(0);
  });
});

describe("refusals before any request", () => {
  test("a model the catalogue says reads only text: exit 64, nothing sent, how to choose another", async () => {
    using box = new Sandbox();
    await Bun.write(join(box.workspace, "shot.png"), PNG);
    await warmCatalogWithModalities(box, openaiEnv());
    const before = server.requests.length;
    const run = await box.run(["run", "-m", "openai/gpt-3.5-turbo", "-f", "shot.png", "what is this?"], {
      env: openaiEnv(),
    });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain(
      "openai/gpt-3.5-turbo cannot read images; choose a model with image input (`ion models` shows caps)",
    );
    expect(server.requests.length).toBe(before);
    // The same catalogue lets a model with image input have it, and `ion models` says which can.
    server.enqueueReply("openai", { text: "ok" });
    const ok = await box.run(["run", "-m", "openai/gpt-4o", "-f", "shot.png", "what is this?"], {
      env: openaiEnv(),
    });
    expect(ok.code).toBe(0);
    const models = await box.run(["models", "--provider", "openai"], { env: openaiEnv() });
    expect(models.stdout).toMatch(/openai\/gpt-4o\s.*images/);
    expect(models.stdout).not.toMatch(/openai\/gpt-3\.5-turbo\s.*images/);
  });

  test("an image over 5 MB: exit 64, with how to scale it down", async () => {
    using box = new Sandbox();
    const big = new Uint8Array(6 * 1024 * 1024);
    big.set(PNG);
    await Bun.write(join(box.workspace, "huge.png"), big);
    const before = server.requests.length;
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-f", "huge.png", "what is this?"], {
      env: openaiEnv(),
    });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain("huge.png is too large to attach (6.0 MB; images up to 5.0 MB)");
    expect(run.stderr).toContain("-resize");
    expect(server.requests.length).toBe(before);
  });
});

describe("the session keeps the image", () => {
  test("ion run -c sends the earlier image again; the transcript names it", async () => {
    using box = new Sandbox();
    await Bun.write(join(box.workspace, "shot.png"), PNG);
    server.enqueueReply("openai", { text: "A pixel." });
    server.enqueueReply("openai", { text: "Still a pixel." });
    const first = await box.run(
      ["run", "-m", "openai/gpt-4o", "-o", "json", "-f", "shot.png", "what is this?"],
      { env: openaiEnv() },
    );
    expect(first.code).toBe(0);
    const id = String((JSON.parse(first.stdout) as { session_id: string }).session_id);
    // The file is gone: the session has the image itself, not a path to it.
    await Bun.file(join(box.workspace, "shot.png")).delete();
    const before = server.requests.length;
    const again = await box.run(["run", "-c", "and its colour?"], { env: openaiEnv() });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    const users = messagesOf(bodiesSince(before, "/chat/completions")[0]).filter((m) => m.role === "user");
    expect(users.map((m) => m.content)).toEqual([
      [
        { type: "image_url", image_url: { url: DATA_URL } },
        { type: "text", text: "what is this?" },
      ],
      "and its colour?",
    ]);
    const shown = await box.run(["sessions", "show", id], { env: openaiEnv() });
    expect(shown.stdout).toContain("[image: shot.png, 70 B]");
    expect(shown.stdout).not.toContain(PNG_BASE64);
    const exported = await box.run(["sessions", "export", id], { env: openaiEnv() });
    expect(exported.stdout).toContain("*[image: shot.png, 70 B]*");
  });
});
