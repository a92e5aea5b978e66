/**
 * End to end: `ion run` through a tool loop with thinking on every vendor of the Chat Completions wire
 * whose API has a rule of its own, each against a strict endpoint that answers a broken request the way
 * the vendor does (see test/support/strict-openai.ts for each rule and its source). Every run must end
 * with exit 0 and no request rejected.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { warmCatalog } from "../support/e2e.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm.ts";
import {
  geminiSignatures,
  openRouterNoToolEndpoints,
  type StrictEndpoint,
  type StrictTurn,
  strictGemini,
  strictGroqQwen,
  strictNoReasoning,
  strictOpenAIToolIds,
  strictOpenRouter,
  strictReasoningContent,
} from "../support/strict-openai.ts";

const KEY = "sk-test-vendors-e2e-00000000000000077";
let server: FakeLLM;
let signatures: string[];
beforeAll(async () => {
  server = await startFakeLLM();
  signatures = await geminiSignatures();
});
afterAll(async () => {
  await server.stop();
});

/** Two reads at once, one more read, then the answer: three requests, two of them with tool history. */
const LOOP: StrictTurn[] = [
  {
    thinking: "I need both files.",
    calls: [
      { name: "read_file", input: { path: "a.txt" } },
      { name: "read_file", input: { path: "b.txt" } },
    ],
  },
  { thinking: "Now the notes.", calls: [{ name: "read_file", input: { path: "notes.txt" } }] },
  { text: "All three files are read." },
];

function workspace(box: Sandbox): void {
  for (const name of ["a.txt", "b.txt", "notes.txt"])
    writeFileSync(join(box.workspace, name), `${name} body\n`);
}

async function runLoop(
  box: Sandbox,
  strict: StrictEndpoint,
  model: string,
  env: Record<string, string>,
  extra: string[] = ["--thinking", "high"],
) {
  workspace(box);
  const from = server.requests.length;
  server.enqueue(...LOOP.map((turn) => strict.turn(turn)));
  const run = await box.run(["run", "-m", model, ...extra, "-y", "-o", "json", "read the files"], { env });
  expect(strict.violations).toEqual([]);
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ is_error: false, result: "All three files are read." });
  const sent = server.requests.slice(from);
  expect(sent).toHaveLength(3);
  // Both parallel calls came back as two results (none merged into one broken call).
  const last = sent[2]?.body as { messages: { role: string; content: unknown }[] };
  expect(last.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
    expect.stringContaining("a.txt body"),
    expect.stringContaining("b.txt body"),
    expect.stringContaining("notes.txt body"),
  ]);
  return run;
}

describe("a tool loop with thinking, against each vendor's strict endpoint", () => {
  test("google/gemini-3-flash-preview: thought signatures go back, parallel calls stay apart", async () => {
    using box = new Sandbox();
    await box.writeConfig({ providers: { google: { api_base: `${server.url}/v1` } } });
    const run = await runLoop(box, strictGemini(signatures), "google/gemini-3-flash-preview", {
      GEMINI_API_KEY: KEY,
    });
    expect(run.stderr).toBe("");
  });

  for (const [id, model, vendor] of [
    ["deepseek", "deepseek-v4-pro", "deepseek"],
    ["moonshot", "kimi-k2.5", "kimi"],
  ] as const) {
    test(`${id}/${model} as a custom provider: reasoning_content goes back on tool-call turns`, async () => {
      using box = new Sandbox();
      await box.writeConfig({
        providers: { [id]: { type: "openai-compatible", api_base: `${server.url}/v1`, api_key: KEY } },
      });
      await runLoop(box, strictReasoningContent(vendor), `${id}/${model}`, {});
    });
  }

  test("a custom provider with resend_reasoning_content set, whatever its model is called", async () => {
    using box = new Sandbox();
    const entry = { type: "openai-compatible", api_base: `${server.url}/v1`, api_key: KEY };
    await box.writeConfig({ providers: { lab: { ...entry, resend_reasoning_content: true } } });
    await runLoop(box, strictReasoningContent("deepseek"), "lab/house-reasoner", {});
  });

  for (const [family, model] of [
    ["gemini", "google/gemini-3-flash-preview"],
    ["claude", "anthropic/claude-opus-4.7"],
  ] as const) {
    test(`openrouter/${model}: reasoning_details go back unmodified`, async () => {
      using box = new Sandbox();
      await box.writeConfig({ providers: { openrouter: { api_base: `${server.url}/v1` } } });
      await runLoop(box, strictOpenRouter(family, signatures), `openrouter/${model}`, {
        OPENROUTER_API_KEY: KEY,
      });
    });
  }

  test("groq/qwen/qwen3-32b at --thinking medium: sent as default, said once", async () => {
    using box = new Sandbox();
    await box.writeConfig({ providers: { groq: { api_base: `${server.url}/v1` } } });
    const env = { GROQ_API_KEY: KEY, ION_MODELS_URL: `${server.url}/api.json` };
    await warmCatalog(server, box, env, ["qwen/qwen3-32b"]);
    const run = await runLoop(box, strictGroqQwen(), "groq/qwen/qwen3-32b", env, ["--thinking", "medium"]);
    const note = 'groq/qwen/qwen3-32b takes thinking as "default", so "medium" is sent as that';
    expect(run.stderr.split(note).length - 1).toBe(1);
  });

  test("openai/gpt-4o after thinking medium is saved: no reasoning_effort, said once", async () => {
    using box = new Sandbox();
    const env = {
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: KEY,
      ION_MODELS_URL: `${server.url}/api.json`,
    };
    await warmCatalog(server, box, env, ["gpt-4o"]);
    expect((await box.run(["config", "set", "thinking", "medium"], { env })).code).toBe(0);
    const run = await runLoop(box, await strictNoReasoning(), "openai/gpt-4o", env, []);
    const note = 'openai/gpt-4o does not reason, so the thinking level "medium" is not sent';
    expect(run.stderr.split(note).length - 1).toBe(1);
  });
});

test("a session begun on vLLM (46-character tool ids) continued on openai/gpt-4o-mini: ids mapped, exit 0", async () => {
  using box = new Sandbox();
  workspace(box);
  const vllmId = "chatcmpl-tool-6f1c2a9e4b7d4e0f9a3c8b5d2e1f0a7c";
  await box.writeConfig({
    providers: { vllm: { type: "openai-compatible", api_base: `${server.url}/v1`, api_key: KEY } },
  });
  server.enqueueReply("openai", { toolCalls: [{ id: vllmId, name: "read_file", input: { path: "a.txt" } }] });
  server.enqueueReply("openai", { text: "a.txt is read." });
  const first = await box.run(["run", "-m", "vllm/qwen3-coder", "-o", "json", "read a.txt"], { env: {} });
  expect(first.code).toBe(0);

  const strict = strictOpenAIToolIds();
  server.enqueue(
    strict.turn({ calls: [{ name: "read_file", input: { path: "b.txt" } }] }),
    strict.turn({ text: "Both read." }),
  );
  const env = { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: KEY };
  const from = server.requests.length;
  const second = await box.run(["run", "-c", "-m", "openai/gpt-4o-mini", "-o", "json", "now b.txt"], { env });
  expect(strict.violations).toEqual([]);
  expect(second.code).toBe(0);
  expect(JSON.parse(second.stdout)).toMatchObject({ is_error: false, result: "Both read." });
  const sent = server.requests.slice(from).map((r) => JSON.stringify(r.body));
  expect(sent).toHaveLength(2);
  for (const body of sent) expect(body).not.toContain(vllmId);
  // The same mapped id in both requests: a stable prefix for prompt caching.
  const mapped = (body: string) => /"tool_call_id":"([^"]+)"/.exec(body)?.[1];
  expect(mapped(sent[0]!)).toMatch(/^[a-zA-Z0-9]{24}$/);
  expect(mapped(sent[1]!)).toBe(mapped(sent[0]!));
});

test("openrouter: a model without tool endpoints is told as such, and --no-tools works", async () => {
  using box = new Sandbox();
  await box.writeConfig({ providers: { openrouter: { api_base: `${server.url}/v1` } } });
  const env = { OPENROUTER_API_KEY: KEY };
  const strict = openRouterNoToolEndpoints();
  server.enqueue(strict.turn({ text: "hello" }));
  const failed = await box.run(["run", "-m", "openrouter/deepseek/deepseek-r1:free", "hi"], { env });
  expect(failed.code).not.toBe(0);
  expect(failed.stderr).toContain("cannot use tools");
  expect(failed.stderr).toContain("--no-tools");
  expect(failed.stderr).not.toContain("base URL");
  server.enqueue(strict.turn({ text: "hello" }));
  const plain = await box.run(["run", "-m", "openrouter/deepseek/deepseek-r1:free", "--no-tools", "hi"], {
    env,
  });
  expect(plain.code).toBe(0);
  expect(plain.stdout).toBe("hello\n");
});
