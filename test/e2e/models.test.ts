/**
 * End to end: `ion models` through the real CLI, against the fake server serving the recorded model
 * lists (OpenAI `/v1/models`, Anthropic `/v1/models`, Ollama `/api/tags`) and the models.dev snapshot.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { type IonRun, Sandbox } from "../support/cli.ts";
import { type FakeLLM, FIXTURES, startFakeLLM } from "../support/fake-llm.ts";

const FAKE_KEY = "sk-test-models-e2e-SECRET-0000000042";
const MODELS_DEV = "/models-dev/api.json";

const ModelItem = z.strictObject({
  id: z.string(),
  provider: z.string(),
  model: z.string(),
  name: z.string(),
  context: z.number().int().positive().nullable(),
  output: z.number().int().positive().nullable(),
  input_cost: z.number().nonnegative().nullable(),
  output_cost: z.number().nonnegative().nullable(),
  cache_read_cost: z.number().nonnegative().nullable(),
  cache_write_cost: z.number().nonnegative().nullable(),
  tool_call: z.boolean().nullable(),
  reasoning: z.boolean().nullable(),
  release_date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .nullable(),
  configured: z.boolean(),
});
const ModelList = z.array(ModelItem);

const HEADER = /^Model\s+Provider\s+Context\s+Output\s+In \$\/1M\s+Out \$\/1M\s+Caps$/;
const SONNET_ROW =
  "anthropic/claude-sonnet-4-5-20250929  anthropic     200k     64k    $3.00    $15.00  tools,reasoning";
const HAIKU_ROW =
  "anthropic/claude-haiku-4-5-20251001   anthropic     200k     64k    $1.00     $5.00  tools,reasoning,images";

/** A fake server answering the catalogue's requests, each route as often as asked (up to `copies`). */
async function catalogServer(copies = 12): Promise<FakeLLM> {
  const server = await startFakeLLM();
  const routes: [string, string][] = [
    [MODELS_DEV, "models-dev-snapshot.json"],
    ["/openai/v1/models", "models/openai-v1-models.json"],
    ["/anthropic/v1/models", "models/anthropic-v1-models.json"],
    ["/api/tags", "models/ollama-api-tags.json"],
  ];
  for (const [pathSuffix, file] of routes) {
    const body = readFileSync(join(FIXTURES, file), "utf8");
    for (let i = 0; i < copies; i++)
      server.enqueue({ pathSuffix, headers: { "content-type": "application/json" }, body });
  }
  return server;
}

/** openai, anthropic (keys in env, base URLs at the fake server) and ollama (OLLAMA_HOST) configured. */
function configured(server: FakeLLM): Record<string, string> {
  return {
    ION_MODELS_URL: `${server.url}${MODELS_DEV}`,
    OPENAI_API_KEY: FAKE_KEY,
    OPENAI_BASE_URL: `${server.url}/openai/v1`,
    ANTHROPIC_API_KEY: FAKE_KEY,
    ANTHROPIC_BASE_URL: `${server.url}/anthropic`,
    OLLAMA_HOST: `127.0.0.1:${server.port}`,
  };
}

function lines(run: IonRun): string[] {
  return run.stdout.trimEnd().split("\n");
}

function ids(run: IonRun): string[] {
  return lines(run)
    .slice(1)
    .map((line) => line.split(/\s+/)[0]!);
}

function requestsTo(server: FakeLLM, suffix: string): number {
  return server.requests.filter((r) => r.path.split("?")[0]!.endsWith(suffix)).length;
}

function expectClean(run: IonRun): void {
  expect(run.stdout + run.stderr).not.toContain(FAKE_KEY);
  expect(run.stdout).not.toContain("\x1b");
}

describe("ion models", () => {
  test("a table of the configured providers' models, by provider then newest first", async () => {
    await using server = await catalogServer();
    using box = new Sandbox();
    const run = await box.run(["models"], { env: configured(server) });
    expect(run.code).toBe(0);
    expectClean(run);
    expect(run.stderr).not.toContain("warning");
    expect(run.stderr).toMatch(/^note: \d+ more models of providers without a key; --all lists them\n$/);
    expect(lines(run)[0]).toMatch(HEADER);
    expect(ids(run)).toEqual([
      "openai/model-id-0",
      "openai/model-id-1",
      "openai/model-id-2",
      "anthropic/claude-haiku-4-5-20251001", // 2025-10-15
      "anthropic/claude-sonnet-4-5-20250929", // 2025-09-29
      "ollama/deepseek-r1:latest",
      "ollama/llama3.2:latest",
    ]);
    // Aligned columns: numbers right-aligned under their headers; an unknown context window says so
    // (SPEC §4), other unknowns are "-".
    expect(lines(run)).toContain(SONNET_ROW);
    expect(lines(run)).toContain(HAIKU_ROW);
    expect(lines(run)).toContain(
      "openai/model-id-0                     openai     unknown       -        -         -  -",
    );
    const header = lines(run)[0]!;
    const contextEnd = header.indexOf("Context") + "Context".length;
    for (const line of lines(run).slice(1)) expect(line[contextEnd - 1]).toMatch(/\S/);
    for (const line of lines(run)) expect(line).toBe(line.trimEnd());
    // In JSON the same unknown is null, not a string.
    const json = ModelList.parse(
      JSON.parse((await box.run(["models", "--json"], { env: configured(server) })).stdout),
    );
    expect(json.find((m) => m.id === "openai/model-id-0")).toMatchObject({ context: null, output: null });
  });

  test("a fuzzy QUERY finds misspelt models, best match first", async () => {
    await using server = await catalogServer();
    using box = new Sandbox();
    const env = configured(server);
    const sonet = await box.run(["models", "sonet"], { env });
    expect(sonet.code).toBe(0);
    expect(ids(sonet)[0]).toBe("anthropic/claude-sonnet-4-5-20250929");
    expect(ids(sonet)).not.toContain("anthropic/claude-haiku-4-5-20251001");
    // several words are one query
    const words = await box.run(["models", "claude", "haiku"], { env });
    expect(ids(words)[0]).toBe("anthropic/claude-haiku-4-5-20251001");
    // nothing matches: a line on stderr, exit 0, no table
    const none = await box.run(["models", "zzzzqqqq"], { env });
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toBe('no models match "zzzzqqqq"\n');
    // matches only among providers without a key: say so, and --all shows them
    const gemini = await box.run(["models", "gemini-3"], { env });
    expect(gemini.code).toBe(0);
    expect(gemini.stdout).toBe("");
    expect(gemini.stderr).toMatch(
      /no models match "gemini-3"\nnote: \d+ models of providers without a key match; --all lists them\n$/,
    );
    const all = await box.run(["models", "gemini-3", "--all"], { env });
    expect(ids(all).length).toBeGreaterThan(0);
    expect(ids(all)[0]).toContain("gemini-3");
    expect(lines(all)[1]).toContain("(no key)");
  });

  test("--provider filters; an unknown provider is a usage error listing the known ids", async () => {
    await using server = await catalogServer();
    using box = new Sandbox();
    const env = configured(server);
    const anthropic = await box.run(["models", "--provider", "anthropic"], { env });
    expect(anthropic.code).toBe(0);
    expect(ids(anthropic)).toEqual([
      "anthropic/claude-haiku-4-5-20251001",
      "anthropic/claude-sonnet-4-5-20250929",
    ]);

    const unknown = await box.run(["models", "--provider", "nope"], { env });
    expect(unknown.code).toBe(64);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain('unknown provider "nope"');
    expect(unknown.stderr).toContain("openai, anthropic, google, mistral, ollama, openrouter, groq");

    // a provider without a key is listed when asked for by name, marked
    const groq = await box.run(["models", "-p", "groq"], { env });
    expect(groq.code).toBe(0);
    expect(ids(groq).length).toBeGreaterThan(0);
    for (const line of lines(groq).slice(1)) expect(line).toMatch(/^groq\/\S+\s+groq \(no key\)\s/);
  });

  test("--json prints the SPEC §4 objects", async () => {
    await using server = await catalogServer();
    using box = new Sandbox();
    const run = await box.run(["models", "claude", "--json"], { env: configured(server) });
    expect(run.code).toBe(0);
    expectClean(run);
    const models = ModelList.parse(JSON.parse(run.stdout));
    expect(models.length).toBeGreaterThan(0);
    for (const m of models) {
      expect(m.id).toBe(`${m.provider}/${m.model}`);
      expect(m.configured).toBe(true);
    }
    expect(models.find((m) => m.model === "claude-sonnet-4-5-20250929")).toEqual({
      id: "anthropic/claude-sonnet-4-5-20250929",
      provider: "anthropic",
      model: "claude-sonnet-4-5-20250929",
      name: "Claude Sonnet 4.5",
      context: 200000,
      output: 64000,
      input_cost: 3,
      output_cost: 15,
      cache_read_cost: null,
      cache_write_cost: null,
      tool_call: true,
      reasoning: true,
      release_date: "2025-09-29",
      configured: true,
    });
    // keys in SPEC order
    expect(Object.keys(models[0]!)).toEqual(Object.keys(ModelItem.shape));
  });

  test("--all adds the unconfigured providers' models, marked", async () => {
    await using server = await catalogServer();
    using box = new Sandbox();
    const env = configured(server);
    const table = await box.run(["models", "--all"], { env });
    expect(table.code).toBe(0);
    expect(table.stderr).not.toContain("--all lists them");
    // wider columns than without --all, same cells
    expect(lines(table).map((line) => line.split(/\s{2,}/))).toContainEqual(SONNET_ROW.split(/\s{2,}/));
    const google = lines(table).filter((line) => line.startsWith("google/"));
    expect(google.length).toBeGreaterThan(0);
    for (const line of google) expect(line).toContain("google (no key)");
    // configured providers come first
    const firstUnconfigured = lines(table).findIndex((line) => line.includes("(no key)"));
    const lastConfigured = lines(table).findLastIndex((line) => /^(openai|anthropic|ollama)\//.test(line));
    expect(lastConfigured).toBeLessThan(firstUnconfigured);

    const json = ModelList.parse(JSON.parse((await box.run(["models", "--all", "--json"], { env })).stdout));
    const unconfigured = json.filter((m) => !m.configured);
    expect(unconfigured.length).toBeGreaterThan(0);
    expect(new Set(unconfigured.map((m) => m.provider))).toEqual(
      new Set(["google", "mistral", "openrouter", "groq"]),
    );
    // what the default run said --all would add
    const plain = await box.run(["models"], { env });
    expect(plain.stderr).toContain(`note: ${unconfigured.length} more models of providers`);
  });

  test("with no provider configured it lists the whole models.dev catalogue, with a note", async () => {
    await using server = await catalogServer();
    using box = new Sandbox();
    const run = await box.run(["models", "--json"], {
      env: { ION_MODELS_URL: `${server.url}${MODELS_DEV}` },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("no provider has a key yet");
    const models = ModelList.parse(JSON.parse(run.stdout));
    expect(models.length).toBeGreaterThan(100);
    expect(models.every((m) => !m.configured)).toBe(true);
    expect(models.map((m) => m.id)).toContain("anthropic/claude-sonnet-4-5");
  });

  test("the cache is used while fresh; --refresh fetches again", async () => {
    await using server = await catalogServer();
    using box = new Sandbox();
    const env = configured(server);
    const first = await box.run(["models"], { env });
    expect(first.code).toBe(0);
    expect(requestsTo(server, MODELS_DEV)).toBe(1);
    expect(requestsTo(server, "/openai/v1/models")).toBe(1);
    const total = server.requests.length;

    const second = await box.run(["models"], { env });
    expect(second.stdout).toBe(first.stdout);
    expect(server.requests.length).toBe(total);

    const refreshed = await box.run(["models", "--refresh"], { env });
    expect(refreshed.code).toBe(0);
    expect(refreshed.stdout).toBe(first.stdout);
    expect(requestsTo(server, MODELS_DEV)).toBe(2);
    expect(requestsTo(server, "/openai/v1/models")).toBe(2);
    expect(requestsTo(server, "/anthropic/v1/models")).toBe(2);
    expect(requestsTo(server, "/api/tags")).toBe(2);
  });

  test("a warm cache needs no network: with the server gone it lists the same, without warnings", async () => {
    await using server = await catalogServer();
    using box = new Sandbox();
    const env = configured(server);
    const warm = await box.run(["models", "--all"], { env });
    expect(warm.code).toBe(0);
    await server.stop();
    const offline = await box.run(["models", "--all"], { env });
    expect(offline.code).toBe(0);
    expect(offline.stdout).toBe(warm.stdout);
    expect(offline.stderr).toBe("");
    const json = await box.run(["models", "sonnet", "--json"], { env });
    expect(json.code).toBe(0);
    expect(ModelList.parse(JSON.parse(json.stdout)).length).toBeGreaterThan(0);
  });

  test("offline with an expired cache: the cached list, with a warning giving its age", async () => {
    await using server = await catalogServer();
    using box = new Sandbox();
    const env = configured(server);
    const warm = await box.run(["models"], { env });
    expect(warm.code).toBe(0);
    await server.stop();
    // Age the cache two days (its documented `fetched_at`), past the 24 h TTL.
    const file = join(box.root, "cache", "ion", "models.json");
    const cache = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    cache.fetched_at = new Date(Date.now() - 2 * 24 * 3600_000 - 60_000).toISOString();
    await Bun.write(file, JSON.stringify(cache));

    const run = await box.run(["models"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(warm.stdout);
    expect(run.stderr).toContain("ion: warning: using the model list cached 2 days ago");
    expectClean(run);

    // --refresh offline says the same about a fresh cache
    const refresh = await box.run(["models", "--refresh"], { env });
    expect(refresh.code).toBe(0);
    expect(refresh.stderr).toContain("ion: warning: using the model list cached");
  });

  test("offline without a cache: exit 1 with a clear message", async () => {
    const server = await catalogServer();
    const env = configured(server);
    await server.stop();
    using box = new Sandbox();
    const run = await box.run(["models"], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toStartWith("ion: cannot fetch the model catalogue and there is no cached copy");
    expect(run.stderr).toContain("ion models --refresh");
    expect(run.stderr).not.toContain("    at "); // no stack trace
    expectClean(run);
  });

  test("unknown flags and a flag without its value are usage errors", async () => {
    using box = new Sandbox();
    expect((await box.run(["models", "--bogus"])).code).toBe(64);
    expect((await box.run(["models", "--provider"])).code).toBe(64);
  });

  test("--help loads nothing and names the flags", async () => {
    using box = new Sandbox();
    const run = await box.run(["models", "--help"]);
    expect(run.code).toBe(0);
    for (const flag of ["--provider", "--all", "--json", "--refresh"]) expect(run.stdout).toContain(flag);
  });

  test("listing from the cache never imports a provider SDK", () => {
    const root = resolve(import.meta.dir, "../..");
    const script = [
      `await import(${JSON.stringify(join(root, "src/commands/models-list.ts"))});`,
      "const sdk = Object.keys(require.cache).filter((p) => /node_modules\\/(openai|@anthropic-ai|@mistralai)\\//.test(p));",
      "console.log(JSON.stringify(sdk));",
    ].join("\n");
    const run = Bun.spawnSync([process.execPath, "-e", script], {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(run.stderr.toString()).toBe("");
    expect(JSON.parse(run.stdout.toString())).toEqual([]);
  });
});
