/**
 * End to end: the CI flags that bound and shape a run — `--max-budget-usd`, `--json-schema` and
 * `--fallback-model` (Claude Code's names) — against a fake OpenAI-wire server.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, type WireMessage, warmCatalog } from "../support/e2e.ts";
import type { FakeResponse } from "../support/fake-llm.ts";
import { ResultSchema } from "../support/output-schemas.ts";

const { server, env } = useOpenAIServer("sk-test-ci-limits-000000000000abcd", (url) => ({
  ION_MODELS_URL: `${url}/api.json`,
}));
const CHAT = "/chat/completions";
const chatRequests = (from: number) => server.requests.slice(from).filter((r) => r.path.endsWith(CHAT));

describe("--max-budget-usd", () => {
  test("a tool loop whose cost passes the budget stops before the next request, exit 1", async () => {
    using box = new Sandbox();
    await warmCatalog(server, box, env, ["gpt-4o"]);
    const from = server.requests.length;
    // gpt-4o at $2.5/M input: 10 000 tokens cost $0.025, over a $0.01 budget.
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_touch01", name: "bash", input: { command: "touch marker" } }],
      usage: { input: 10_000, output: 20 },
    });
    const args = ["run", "-m", "openai/gpt-4o", "-y", "-o", "json", "--max-budget-usd", "0.01", "go"];
    const run = await box.run(args, { env });
    expect(run.code).toBe(1);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({ subtype: "error_max_budget_usd", is_error: true });
    expect(result.total_cost_usd).toBeGreaterThan(0.01);
    expect(result.errors[0]).toContain("--max-budget-usd");
    expect(run.stderr).toMatch(/^ion: .*over the --max-budget-usd limit of \$0\.01/m);
    expect(chatRequests(from)).toHaveLength(1);
    expect(existsSync(join(box.workspace, "marker"))).toBe(false);
  });

  test("within the budget the run succeeds", async () => {
    using box = new Sandbox();
    await warmCatalog(server, box, env, ["gpt-4o"]);
    server.enqueueReply("openai", { text: "cheap", usage: { input: 100, output: 5 } });
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "--max-budget-usd", "1", "hi"], {
      env,
    });
    expect(run.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(run.stdout))).toMatchObject({ subtype: "success", result: "cheap" });
  });

  test("unknown prices: refused before any request (exit 64, still a json result)", async () => {
    using box = new Sandbox();
    const from = server.requests.length;
    const run = await box.run(
      ["run", "-m", "openai/gpt-4o-mini", "-o", "json", "--max-budget-usd", "0.5", "hi"],
      { env },
    );
    expect(run.code).toBe(64);
    expect(run.stderr).toContain("--max-budget-usd needs the price of openai/gpt-4o-mini");
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.is_error).toBe(true);
    expect(chatRequests(from)).toHaveLength(0);
  });

  test.each(["0", "-1", "abc", "1e3"])("--max-budget-usd %s is a usage error", async (value) => {
    using box = new Sandbox();
    const run = await box.run(["run", "-m", "openai/gpt-4o", "--max-budget-usd", value, "hi"], { env });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain("--max-budget-usd must be a positive number");
  });
});

const SCHEMA = '{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}';
const lastUserText = (body: unknown) => {
  const messages = (body as { messages: WireMessage[] }).messages;
  return String(messages.filter((m) => m.role === "user").at(-1)?.content ?? "");
};

describe("--json-schema", () => {
  test("native response_format with tools still offered; structured_output in the result", async () => {
    using box = new Sandbox();
    const from = server.requests.length;
    server.enqueueReply("openai", { text: '{"n": 42}' });
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "--json-schema", SCHEMA, "n?"], {
      env,
    });
    expect(run.code).toBe(0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.structured_output).toEqual({ n: 42 });
    const [request] = chatRequests(from);
    const body = request?.body as { response_format: unknown; tools: unknown[] };
    expect(body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "output", schema: JSON.parse(SCHEMA), strict: false },
    });
    expect(body.tools.length).toBeGreaterThan(0);
  });

  test("an answer that is not JSON gets one repair request, then succeeds", async () => {
    using box = new Sandbox();
    await Bun.write(join(box.workspace, "schema.json"), SCHEMA);
    const from = server.requests.length;
    server.enqueueReply("openai", { text: "The answer is forty-two." });
    server.enqueueReply("openai", { text: '```json\n{"n": 42}\n```' });
    const run = await box.run(
      ["run", "-m", "openai/gpt-4o", "-o", "json", "--json-schema", "@schema.json", "n?"],
      {
        env,
        cwd: box.workspace,
      },
    );
    expect(run.code).toBe(0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.structured_output).toEqual({ n: 42 });
    const requests = chatRequests(from);
    expect(requests).toHaveLength(2);
    expect(lastUserText(requests[1]?.body)).toContain("not valid JSON");
  });

  test("still invalid after the repair: exit 1 naming the first problem", async () => {
    using box = new Sandbox();
    const from = server.requests.length;
    server.enqueueReply("openai", { text: "no idea" });
    server.enqueueReply("openai", { text: '{"n": "forty-two"}' });
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "--json-schema", SCHEMA, "n?"], {
      env,
    });
    expect(run.code).toBe(1);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({ subtype: "error_during_execution", is_error: true });
    expect(result.structured_output).toBeUndefined();
    expect(result.errors[0]).toMatch(/does not match --json-schema: n: .*number/);
    expect(chatRequests(from)).toHaveLength(2);
  });

  test.each([
    ["{not json", "not valid JSON"],
    ["[1]", "must be a JSON Schema object"],
    ["@missing.json", "cannot read missing.json (no such file, ENOENT)"],
  ])("a bad schema %s is a usage error before any request", async (schema, said) => {
    using box = new Sandbox();
    const from = server.requests.length;
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "--json-schema", schema, "hi"], {
      env,
    });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain(said);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).is_error).toBe(true);
    expect(chatRequests(from)).toHaveLength(0);
  });
});

const overloaded = (): FakeResponse => ({
  status: 529,
  headers: { "content-type": "application/json", "retry-after-ms": "5" },
  body: '{"error":{"message":"Overloaded","type":"overloaded_error"}}',
  pathSuffix: CHAT,
});

describe("--fallback-model", () => {
  test("529 after every retry: the run goes on once on the fallback model and says so", async () => {
    using box = new Sandbox();
    await warmCatalog(server, box, env, ["gpt-4o", "gpt-4o-mini"]);
    const from = server.requests.length;
    server.enqueue(overloaded(), overloaded(), overloaded(), overloaded());
    server.enqueueReply("openai", { text: "from the fallback", usage: { input: 100, output: 5 } });
    const args = ["run", "-m", "openai/gpt-4o", "--fallback-model", "openai/gpt-4o-mini", "-o", "json", "hi"];
    const run = await box.run(args, { env });
    expect(run.code).toBe(0);
    const models = chatRequests(from).map((r) => (r.body as { model: string }).model);
    expect(models).toEqual(["gpt-4o", "gpt-4o", "gpt-4o", "gpt-4o", "gpt-4o-mini"]);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({ subtype: "success", result: "from the fallback", model: "gpt-4o-mini" });
    expect(result.errors).toEqual([]);
    expect(Object.keys(result.modelUsage).sort()).toEqual(["gpt-4o", "gpt-4o-mini"]);
    expect(result.modelUsage["gpt-4o-mini"]?.inputTokens).toBe(100);
    expect(result.total_cost_usd).toBeCloseTo((100 * 0.15 + 5 * 0.6) / 1e6, 12);
    expect(run.stderr).toMatch(
      /^ion: overloaded from openai.*continuing on openai\/gpt-4o-mini \(--fallback-model\)$/m,
    );
  });

  test.each([
    ["openai/gpt-4o", "must differ from the model"],
    ["nosuchprovider/x", "--fallback-model: "],
    ["nonsense", "--fallback-model: "],
  ])("--fallback-model %s is a usage error before any request", async (fallback, said) => {
    using box = new Sandbox();
    const from = server.requests.length;
    const run = await box.run(["run", "-m", "openai/gpt-4o", "--fallback-model", fallback, "hi"], { env });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain(said);
    expect(run.stderr).not.toContain("ion config set model");
    expect(chatRequests(from)).toHaveLength(0);
  });
});
