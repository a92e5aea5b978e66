/**
 * End to end: the real CLI against a strict, default Ollama (test/support/strict-ollama.ts), which drops
 * the oldest messages of a prompt longer than its context — 4096 tokens unless the request sets
 * `options.num_ctx` ("Ollama defaults to the following context lengths based on VRAM: < 24 GiB VRAM: 4k
 * context", docs/context-length.mdx). ion asks /api/show for the model's context and sends it.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { type FakeLLM, FIXTURES, startFakeLLM } from "../support/fake-llm.ts";
import { parseStreamJson, ResultSchema } from "../support/output-schemas.ts";
import {
  GPT_OSS,
  LLAMA32,
  type OllamaCard,
  type OllamaReply,
  QWEN3,
  type Seen,
  strictOllama,
} from "../support/strict-ollama.ts";

const TASK = "Summarise notes.txt and start your answer with the code word KESTREL.";

// A fresh server per test: answers left queued by one test never reach another.
let server: FakeLLM;
beforeEach(async () => {
  server = await startFakeLLM();
});
afterEach(async () => {
  await server.stop();
});

const env = () => ({ OLLAMA_HOST: `127.0.0.1:${server.port}` });

/** The model: reads notes.txt when it sees the task, then answers from what it still sees. */
function agent(seen: Seen): OllamaReply {
  const task = seen.messages.some((m) => m.role === "user" && m.content.includes("KESTREL"));
  const read = seen.messages.some((m) => m.role === "tool");
  if (!task) return { text: "I don't see a question. What would you like me to do?" };
  if (!read) return { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] };
  return { text: "KESTREL: the notes list the harbour's tides." };
}

/** `count` answers of a default Ollama serving `cards`; `seen` collects what each chat request showed. */
function queue(count: number, cards: OllamaCard[] = [QWEN3], decide = agent): Seen[] {
  const seen: Seen[] = [];
  for (let i = 0; i < count; i++) server.enqueue(strictOllama(cards, decide, seen));
  return seen;
}

function bodiesTo(suffix: string, from: number): Record<string, unknown>[] {
  return server.requests
    .slice(from)
    .filter((r) => r.path.endsWith(suffix))
    .map((r) => r.body as Record<string, unknown>);
}

describe("ion run over a default Ollama", () => {
  test("the task survives the first tool result: num_ctx is sent and the window is known", async () => {
    using box = new Sandbox();
    // About 3k tokens of tool result: with ion's instructions and tools, over Ollama's default 4096.
    const notes = Array.from({ length: 240 }, (_, i) => `line ${i}: the harbour tide table, entry ${i}.`);
    await Bun.write(join(box.workspace, "notes.txt"), notes.join("\n"));
    const before = server.requests.length;
    const seen = queue(3);
    const run = await box.run(["run", "-m", "ollama/qwen3:8b", "-o", "json", TASK], {
      env: env(),
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.result).toBe("KESTREL: the notes list the harbour's tides.");
    expect(result.num_turns).toBe(2);
    // The model's own window (40960) up to ion's default cap, told to compaction and to the server.
    expect(result.modelUsage["qwen3:8b"]?.contextWindow).toBe(32768);
    expect(server.requests[before]?.path).toBe("/api/show");
    const chats = bodiesTo("/api/chat", before);
    expect(chats).toHaveLength(2);
    for (const body of chats) expect(body.options).toEqual({ num_ctx: 32768 });
    expect(seen.map((s) => s.dropped)).toEqual([0, 0]);
    // What the default context would have done to the same second request: the task gone, with a 200.
    expect(seen[1]!.promptTokens).toBeGreaterThan(4096);
    // The tool result went back as Ollama's tool message, naming the tool.
    const messages = chats[1]!.messages as Record<string, unknown>[];
    expect(messages.at(-1)).toMatchObject({ role: "tool", tool_name: "read_file" });
    expect(messages.at(-2)).toMatchObject({
      role: "assistant",
      tool_calls: [{ function: { name: "read_file" } }],
    });
  });

  test("context_window in config is the num_ctx sent, within the model's own length", async () => {
    using box = new Sandbox();
    await box.writeConfig({ providers: { ollama: { context_window: 65536 } } });
    const before = server.requests.length;
    queue(2, [QWEN3], () => ({ text: "ok" }));
    const run = await box.run(["run", "-m", "ollama/qwen3:8b", "-o", "json", "hi"], { env: env() });
    expect(run.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).modelUsage["qwen3:8b"]?.contextWindow).toBe(40960);
    expect(bodiesTo("/api/chat", before)[0]?.options).toEqual({ num_ctx: 40960 });
  });

  test("text and thinking stream as events; usage from prompt_eval_count and eval_count", async () => {
    using box = new Sandbox();
    queue(2, [QWEN3], () => ({ thinking: "Six sevens are 42.", text: "42" }));
    const run = await box.run(
      ["run", "-m", "ollama/qwen3:8b", "--thinking", "high", "-o", "stream-json", "--partial", "6*7?"],
      { env: env() },
    );
    expect(run.code).toBe(0);
    const { middle, result } = parseStreamJson(jsonLines(run.stdout));
    expect(result.result).toBe("42");
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    expect(result.usage.output_tokens).toBeGreaterThan(0);
    const assistant = middle.find((l) => l.type === "assistant");
    const content = assistant && "message" in assistant ? assistant.message.content : [];
    expect(content).toMatchObject([
      { type: "thinking", thinking: "Six sevens are 42." },
      { type: "text", text: "42" },
    ]);
  });
});

describe("thinking on Ollama", () => {
  async function runWith(card: OllamaCard, level: string) {
    using box = new Sandbox();
    const before = server.requests.length;
    queue(2, [card], () => ({ text: "done" }));
    const run = await box.run(["run", "-m", `ollama/${card.name}`, "--thinking", level, "hi"], {
      env: env(),
    });
    return { run, body: bodiesTo("/api/chat", before)[0] ?? {} };
  }

  test("--thinking medium on a thinking model sends think, and says on/off models take no levels", async () => {
    const { run, body } = await runWith(QWEN3, "medium");
    expect(run.code).toBe(0);
    expect(body.think).toBe(true);
    expect(run.stderr).toBe(
      "ion: note: ollama/qwen3:8b takes thinking on or off, not levels: thinking level medium is sent as on\n",
    );
  });

  test("gpt-oss takes the level itself", async () => {
    const { run, body } = await runWith(GPT_OSS, "medium");
    expect(run.code).toBe(0);
    expect(body.think).toBe("medium");
    expect(run.stderr).toBe("");
  });

  test("off is sent as think: false to a thinking model (it would think by default)", async () => {
    const { run, body } = await runWith(QWEN3, "off");
    expect(run.code).toBe(0);
    expect(body.think).toBe(false);
  });

  test("a model without thinking gets no think, and a note saying the level is ignored", async () => {
    const { run, body } = await runWith(LLAMA32, "medium");
    expect(run.code).toBe(0);
    expect(body.think).toBeUndefined();
    expect(run.stderr).toBe(
      'ion: note: ollama/llama3.2:latest cannot think (Ollama lists no "thinking" capability): thinking level medium is ignored\n',
    );
  });
});

describe("when Ollama cannot say", () => {
  test("/api/show failing: the run still works, without num_ctx, and says once how to raise the context", async () => {
    using box = new Sandbox();
    const before = server.requests.length;
    server.enqueue({
      pathSuffix: "/api/show",
      status: 500,
      headers: { "content-type": "application/json" },
      body: readFileSync(join(FIXTURES, "errors/ollama-500-error.json"), "utf8"),
    });
    queue(2, [QWEN3], (seen) =>
      seen.messages.some((m) => m.role === "tool")
        ? { text: "listed" }
        : { toolCalls: [{ name: "list_files", input: {} }] },
    );
    const run = await box.run(["run", "-m", "ollama/qwen3:8b", "-o", "json", "list the files"], {
      env: env(),
    });
    expect(run.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).result).toBe("listed");
    const notes = run.stderr.split("\n").filter((l) => l.startsWith("ion: note: "));
    expect(notes).toEqual([
      "ion: note: could not read the context length of ollama/qwen3:8b from Ollama (HTTP 500: the model failed to generate a response); Ollama's default context (4096 tokens on most machines) silently drops the oldest messages of a longer conversation: set `context_window` in ion's config (ion then sends it as num_ctx), or OLLAMA_CONTEXT_LENGTH where Ollama runs",
    ]);
    const chats = bodiesTo("/api/chat", before);
    expect(chats).toHaveLength(2);
    for (const body of chats) expect(body.options).toBeUndefined();
  });

  test("ion models --provider ollama still lists the server's models (/api/tags)", async () => {
    using box = new Sandbox();
    const tags = readFileSync(join(FIXTURES, "models/ollama-api-tags.json"), "utf8");
    const snapshot = readFileSync(join(FIXTURES, "models-dev-snapshot.json"), "utf8");
    server.enqueue(
      { pathSuffix: "/api/tags", headers: { "content-type": "application/json" }, body: tags },
      { pathSuffix: "/models-dev/api.json", headers: { "content-type": "application/json" }, body: snapshot },
    );
    const run = await box.run(["models", "--provider", "ollama", "--json"], {
      env: { ...env(), ION_MODELS_URL: `${server.url}/models-dev/api.json` },
    });
    expect(run.code).toBe(0);
    const ids = (JSON.parse(run.stdout) as { id: string }[]).map((m) => m.id);
    expect(ids).toEqual(["ollama/deepseek-r1:latest", "ollama/llama3.2:latest"]);
  });
});
