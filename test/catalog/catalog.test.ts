import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Catalog,
  cachedCatalog,
  findModel,
  formatAge,
  loadCatalog,
  type ModelInfo,
  searchModels,
  suggestModels,
} from "../../src/catalog/catalog.ts";
import type { Config, Keys } from "../../src/config/schema.ts";
import { IonError } from "../../src/errors.ts";
import { type FakeLLM, type FakeResponse, FIXTURES, startFakeLLM } from "../support/fake-llm.ts";

const HOUR = 60 * 60 * 1000;
const T0 = new Date("2026-07-01T12:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

const ANTHROPIC_KEY = "sk-ant-test-key-1234";
const OPENAI_KEY = "sk-openai-test-key-5678";

let root: string;
let server: FakeLLM;
let baseEnv: Record<string, string>;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "ion-catalog-"));
  server = await startFakeLLM();
  baseEnv = {
    HOME: join(root, "home"),
    XDG_CACHE_HOME: join(root, "cache"),
    ION_MODELS_URL: `${server.url}/models-dev/api.json`,
  };
});
afterEach(async () => {
  await server.stop();
  await rm(root, { recursive: true, force: true });
});

const cachePath = () => join(root, "cache", "ion", "models.json");

async function fixture(name: string): Promise<string> {
  return readFile(join(FIXTURES, name), "utf8");
}

function json(body: unknown, pathSuffix: string, status = 200): FakeResponse {
  return {
    status,
    pathSuffix,
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

async function modelsDev(): Promise<FakeResponse> {
  return json(await fixture("models-dev-snapshot.json"), "/models-dev/api.json");
}

interface LoadArgs {
  env?: Record<string, string>;
  config?: Config;
  keys?: Keys;
  now?: Date;
  refresh?: boolean;
}

function load(args: LoadArgs = {}): Promise<Catalog> {
  return loadCatalog({
    config: args.config ?? {},
    keys: args.keys ?? {},
    env: { ...baseEnv, ...args.env },
    now: args.now ?? T0,
    refresh: args.refresh,
  });
}

function byId(catalog: Catalog, id: string): ModelInfo {
  const model = catalog.models.find((m) => m.id === id);
  if (!model) throw new Error(`${id} is not in the catalogue (${catalog.models.length} models)`);
  return model;
}

function ofProvider(catalog: Catalog, provider: string): string[] {
  return catalog.models.filter((m) => m.provider === provider).map((m) => m.model);
}

const anthropicEnv = () => ({
  ANTHROPIC_API_KEY: ANTHROPIC_KEY,
  ANTHROPIC_BASE_URL: `${server.url}/anthropic`,
});

/** The Anthropic fixture split into two pages, to exercise `has_more` / `last_id`. */
async function enqueueAnthropicPages(): Promise<void> {
  const page = JSON.parse(await fixture("models/anthropic-v1-models.json")) as {
    data: { id: string }[];
  };
  const [first, second] = page.data;
  server.enqueue(
    json({ data: [first], has_more: true, first_id: first!.id, last_id: first!.id }, "/anthropic/v1/models"),
    json(
      { data: [second], has_more: false, first_id: second!.id, last_id: second!.id },
      "/anthropic/v1/models",
    ),
  );
}

describe("discovery", () => {
  test("Anthropic: paginates, sends its headers, hydrates dated ids from models.dev", async () => {
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    const catalog = await load({ env: anthropicEnv() });

    const anthropic = server.requests.filter((r) => r.path.startsWith("/anthropic/"));
    expect(anthropic.map((r) => r.path)).toEqual([
      "/anthropic/v1/models?limit=1000",
      "/anthropic/v1/models?limit=1000&after_id=claude-sonnet-4-5-20250929",
    ]);
    for (const request of anthropic) {
      expect(request.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
      expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    }

    // The configured provider lists exactly what it returned, nothing more.
    expect(ofProvider(catalog, "anthropic")).toEqual([
      "claude-haiku-4-5-20251001",
      "claude-sonnet-4-5-20250929",
    ]);
    expect(byId(catalog, "anthropic/claude-sonnet-4-5-20250929")).toEqual({
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
      image_input: null,
      release_date: "2025-09-29",
      configured: true,
    });
    expect(catalog.from_cache).toBe(false);
    expect(catalog.stale).toBe(false);
    expect(catalog.age_ms).toBe(0);
    expect(catalog.fetched_at).toBe(T0.toISOString());
    expect(catalog.warnings).toEqual([]);
  });

  test("a dated id models.dev does not know is hydrated from its undated name", async () => {
    server.enqueue(
      json(
        { data: [{ type: "model", id: "claude-opus-4-6-20260301" }], has_more: false },
        "/anthropic/v1/models",
      ),
      await modelsDev(),
    );
    const catalog = await load({ env: anthropicEnv() });
    const opus = byId(catalog, "anthropic/claude-opus-4-6-20260301");
    const snapshot = JSON.parse(await fixture("models-dev-snapshot.json")) as Record<
      string,
      { models: Record<string, { name: string; limit: { context: number }; cost: { input: number } }> }
    >;
    const source = snapshot.anthropic!.models["claude-opus-4-6"]!;
    expect(opus.name).toBe(source.name);
    expect(opus.context).toBe(source.limit.context);
    expect(opus.input_cost).toBe(source.cost.input);
  });

  test("models.dev aliases hydrate ids listed under another name", async () => {
    const dev = {
      anthropic: {
        id: "anthropic",
        name: "Anthropic",
        models: {
          "claude-x": {
            id: "claude-x",
            name: "Claude X",
            aliases: ["claude-x-latest"],
            cost: { input: 1, output: 2 },
          },
        },
      },
    };
    server.enqueue(
      json({ data: [{ type: "model", id: "claude-x-latest" }], has_more: false }, "/anthropic/v1/models"),
      json(dev, "/models-dev/api.json"),
    );
    const catalog = await load({ env: anthropicEnv() });
    expect(byId(catalog, "anthropic/claude-x-latest")).toMatchObject({
      name: "Claude X",
      input_cost: 1,
      output_cost: 2,
    });
  });

  test("OpenAI: bearer key, every listed id, unknown metadata is null", async () => {
    server.enqueue(
      json(await fixture("models/openai-v1-models.json"), "/openai/v1/models"),
      await modelsDev(),
    );
    const catalog = await load({
      env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${server.url}/openai/v1` },
    });
    const request = server.requests.find((r) => r.path === "/openai/v1/models");
    expect(request?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(ofProvider(catalog, "openai")).toEqual(["model-id-0", "model-id-1", "model-id-2"]);
    expect(byId(catalog, "openai/model-id-0")).toMatchObject({
      name: "model-id-0",
      context: null,
      output: null,
      input_cost: null,
      tool_call: null,
      configured: true,
    });
  });

  test("OpenRouter: ids with a slash, its own prices and limits where models.dev has none", async () => {
    server.enqueue(
      json(await fixture("models/openrouter-api-v1-models.json"), "/or/api/v1/models"),
      await modelsDev(),
    );
    const catalog = await load({
      env: { OPENROUTER_API_KEY: "sk-or-test-0000" },
      config: { providers: { openrouter: { api_base: `${server.url}/or/api/v1` } } },
    });
    expect(ofProvider(catalog, "openrouter")).toEqual(["openai/gpt-4"]);
    expect(byId(catalog, "openrouter/openai/gpt-4")).toMatchObject({
      name: "GPT-4",
      context: 8192,
      output: 4096,
      input_cost: 30,
      output_cost: 60,
      tool_call: false,
      reasoning: false,
      configured: true,
    });
  });

  test("Google: the OpenAI endpoint's `models/` prefix is dropped and ids are hydrated", async () => {
    const list = {
      object: "list",
      data: [{ id: "models/gemini-2.5-flash", object: "model", owned_by: "google" }],
    };
    server.enqueue(json(list, "/gemini/models"), await modelsDev());
    const catalog = await load({
      env: { GEMINI_API_KEY: "gm-test-0000" },
      config: { providers: { google: { api_base: `${server.url}/gemini` } } },
    });
    expect(byId(catalog, "google/gemini-2.5-flash")).toMatchObject({
      name: "Gemini 2.5 Flash",
      context: 1048576,
      output: 65536,
      input_cost: 0.3,
      output_cost: 2.5,
    });
  });

  test("Google: the native list shape is read too; embedding-only models are left out", async () => {
    server.enqueue(
      json(await fixture("models/gemini-models-list.json"), "/gemini/models"),
      await modelsDev(),
    );
    const catalog = await load({
      env: { GEMINI_API_KEY: "gm-test-0000" },
      config: { providers: { google: { api_base: `${server.url}/gemini` } } },
    });
    expect(ofProvider(catalog, "google")).toEqual([
      "gemini-2.0-flash-thinking-exp-1219",
      "learnlm-1.5-pro-experimental",
    ]);
    expect(byId(catalog, "google/learnlm-1.5-pro-experimental")).toMatchObject({
      name: "LearnLM 1.5 Pro Experimental",
      context: 32767,
      output: 8192,
    });
  });

  test("Mistral: GET {root}/v1/models, hydrated; its own context window as a fallback", async () => {
    const list = {
      object: "list",
      data: [
        {
          id: "mistral-large-latest",
          object: "model",
          name: "mistral-large-latest",
          max_context_length: 131072,
        },
        {
          id: "my-fine-tune",
          object: "model",
          max_context_length: 32768,
          capabilities: { completion_chat: true, function_calling: true },
        },
      ],
    };
    server.enqueue(json(list, "/mistral/v1/models"), await modelsDev());
    const catalog = await load({
      env: { MISTRAL_API_KEY: "ms-test-0000", MISTRAL_BASE_URL: `${server.url}/mistral` },
    });
    expect(byId(catalog, "mistral/mistral-large-latest")).toMatchObject({
      name: "Mistral Large (latest)",
      context: 262144,
      input_cost: 0.5,
    });
    expect(byId(catalog, "mistral/my-fine-tune")).toMatchObject({
      name: "my-fine-tune",
      context: 32768,
      tool_call: true,
      input_cost: null,
    });
  });

  test("Ollama: /api/tags on the host of OLLAMA_HOST, no key needed", async () => {
    server.enqueue(json(await fixture("models/ollama-api-tags.json"), "/ollama/api/tags"), await modelsDev());
    const catalog = await load({ env: { OLLAMA_HOST: `${server.url}/ollama` } });
    expect(server.requests.find((r) => r.path === "/ollama/api/tags")?.headers.authorization).toBeUndefined();
    expect(ofProvider(catalog, "ollama")).toEqual(["deepseek-r1:latest", "llama3.2:latest"]);
    expect(byId(catalog, "ollama/llama3.2:latest")).toMatchObject({
      configured: true,
      context: null,
      input_cost: null,
    });
  });

  test("Ollama is not asked unless configured", async () => {
    server.enqueue(await modelsDev());
    const catalog = await load();
    expect(server.requests.map((r) => r.path)).toEqual(["/models-dev/api.json"]);
    expect(ofProvider(catalog, "ollama")).toEqual([]);
  });

  test("a user-defined OpenAI-compatible server: no key needed, config models added", async () => {
    server.enqueue(
      json({ object: "list", data: [{ id: "qwen3-8b" }] }, "/local/v1/models"),
      await modelsDev(),
    );
    const catalog = await load({
      config: {
        providers: {
          local: { type: "openai-compatible", api_base: `${server.url}/local/v1`, models: ["extra"] },
        },
      },
    });
    expect(server.requests.find((r) => r.path === "/local/v1/models")?.headers.authorization).toBeUndefined();
    expect(ofProvider(catalog, "local")).toEqual(["extra", "qwen3-8b"]);
    expect(byId(catalog, "local/extra").configured).toBe(true);
  });

  test("providers without a key are listed from models.dev as not configured", async () => {
    server.enqueue(await modelsDev());
    const catalog = await load();
    expect(server.requests).toHaveLength(1);
    expect(byId(catalog, "anthropic/claude-sonnet-4-5")).toMatchObject({
      name: "Claude Sonnet 4.5 (latest)",
      configured: false,
      input_cost: 3,
    });
    expect(byId(catalog, "openai/gpt-5")).toMatchObject({
      context: 400000,
      output: 128000,
      configured: false,
    });
    expect(catalog.models.every((m) => !m.configured)).toBe(true);
    // Deprecated models are not offered to someone choosing a model.
    expect(catalog.models.find((m) => m.id === "anthropic/claude-3-5-sonnet-20240620")).toBeUndefined();
    expect(searchModels(catalog.models, "claude").length).toBeGreaterThan(0);
  });

  test("configured providers come first", async () => {
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    const catalog = await load({ env: anthropicEnv() });
    const firstUnconfigured = catalog.models.findIndex((m) => !m.configured);
    expect(firstUnconfigured).toBe(2);
    expect(catalog.models.slice(firstUnconfigured).every((m) => !m.configured)).toBe(true);
  });
});

describe("failures", () => {
  test("a failing provider is a warning naming it and the key's source, never the key", async () => {
    await enqueueAnthropicPages();
    server.enqueue(
      json({ error: { message: `Incorrect API key provided: ${OPENAI_KEY}` } }, "/openai/v1/models", 401),
      await modelsDev(),
    );
    const catalog = await load({
      env: { ...anthropicEnv(), OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${server.url}/openai/v1` },
    });
    expect(ofProvider(catalog, "anthropic")).toHaveLength(2);
    expect(catalog.warnings).toHaveLength(1);
    const warning = catalog.warnings[0]!;
    expect(warning).toContain("OpenAI (openai)");
    expect(warning).toContain("HTTP 401");
    expect(warning).toContain("env OPENAI_API_KEY");
    expect(warning).not.toContain(OPENAI_KEY);
    expect(JSON.stringify(catalog)).not.toContain(OPENAI_KEY);
    // Without a cached list, models.dev's stands in, still marked configured (the key exists).
    expect(byId(catalog, "openai/gpt-5").configured).toBe(true);
  });

  test("a malformed list is a warning; the rest of the catalogue is built", async () => {
    server.enqueue(json({ models: "nope" }, "/openai/v1/models"), await modelsDev());
    const catalog = await load({
      env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${server.url}/openai/v1` },
    });
    expect(catalog.warnings).toHaveLength(1);
    expect(catalog.warnings[0]).toContain("unexpected model list response");
    expect(byId(catalog, "anthropic/claude-sonnet-4-5").configured).toBe(false);
  });

  test("entries without an id are skipped with a warning", async () => {
    server.enqueue(
      json({ data: [{ id: "good" }, { object: "model" }] }, "/openai/v1/models"),
      await modelsDev(),
    );
    const catalog = await load({
      env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${server.url}/openai/v1` },
    });
    expect(ofProvider(catalog, "openai")).toEqual(["good"]);
    expect(catalog.warnings).toEqual(["OpenAI (openai): skipped 1 malformed model entries"]);
  });

  test("models.dev unreachable: discovery alone, with a warning", async () => {
    server.enqueue(json(await fixture("models/openai-v1-models.json"), "/openai/v1/models"));
    const catalog = await load({
      env: {
        OPENAI_API_KEY: OPENAI_KEY,
        OPENAI_BASE_URL: `${server.url}/openai/v1`,
        ION_MODELS_URL: "http://127.0.0.1:1/api.json",
      },
    });
    expect(catalog.models.map((m) => m.id)).toEqual([
      "openai/model-id-0",
      "openai/model-id-1",
      "openai/model-id-2",
    ]);
    expect(catalog.warnings).toHaveLength(1);
    expect(catalog.warnings[0]).toStartWith("models.dev: cannot reach 127.0.0.1:1");
  });

  test("offline without a cache is an IonError", async () => {
    const error = await load({ env: { ION_MODELS_URL: "http://127.0.0.1:1/api.json" } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(IonError);
    expect((error as IonError).code).toBe("provider");
    expect((error as IonError).message).toStartWith(
      "cannot fetch the model catalogue and there is no cached copy: models.dev: cannot reach 127.0.0.1:1",
    );
    expect((error as IonError).message).not.toContain("unknown");
  });

  test("a user-defined provider without api_base is a warning", async () => {
    server.enqueue(await modelsDev());
    const catalog = await load({ config: { providers: { broken: { type: "openai-compatible" } } } });
    expect(catalog.warnings).toEqual(['broken: not listed (provider "broken" has no api_base)']);
    expect(ofProvider(catalog, "broken")).toEqual([]);
  });

  test("a cache that cannot be written is a warning", async () => {
    await mkdir(join(root, "cache"), { recursive: true });
    await writeFile(join(root, "cache", "ion"), "a file where the cache dir should be");
    server.enqueue(await modelsDev());
    const catalog = await load();
    expect(catalog.models.length).toBeGreaterThan(0);
    expect(catalog.warnings).toHaveLength(1);
    expect(catalog.warnings[0]).toStartWith(`could not save the model list: cannot write ${cachePath()}`);
    expect(await cachedCatalog(baseEnv)).toBeUndefined();
  });
});

describe("cache", () => {
  test("written atomically with version, time and models", async () => {
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    const catalog = await load({ env: anthropicEnv() });
    const file = JSON.parse(await readFile(cachePath(), "utf8")) as Record<string, unknown>;
    expect(file.version).toBe(1);
    expect(file.fetched_at).toBe(T0.toISOString());
    expect(file.configured).toEqual(["anthropic"]);
    expect(file.complete).toBe(true);
    expect(file.models).toEqual(catalog.models);
    expect(await readFile(cachePath(), "utf8")).not.toContain(ANTHROPIC_KEY);
  });

  test("the 24 h TTL is honoured and refresh forces a fetch", async () => {
    server.enqueue(await modelsDev());
    await load();
    expect(server.requests).toHaveLength(1);

    const warm = await load({ now: at(23 * HOUR) });
    expect(server.requests).toHaveLength(1);
    expect(warm.from_cache).toBe(true);
    expect(warm.stale).toBe(false);
    expect(warm.age_ms).toBe(23 * HOUR);
    expect(warm.fetched_at).toBe(T0.toISOString());

    server.enqueue(await modelsDev());
    const expired = await load({ now: at(25 * HOUR) });
    expect(server.requests).toHaveLength(2);
    expect(expired.from_cache).toBe(false);
    expect(expired.fetched_at).toBe(at(25 * HOUR).toISOString());

    server.enqueue(await modelsDev());
    const refreshed = await load({ now: at(25 * HOUR + 60_000), refresh: true });
    expect(server.requests).toHaveLength(3);
    expect(refreshed.from_cache).toBe(false);
  });

  test("a change in the configured providers makes the cache expire", async () => {
    server.enqueue(await modelsDev());
    await load();
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    const catalog = await load({ env: anthropicEnv(), now: at(HOUR) });
    expect(catalog.from_cache).toBe(false);
    expect(byId(catalog, "anthropic/claude-haiku-4-5-20251001").configured).toBe(true);
  });

  test("a cache written after a failure expires after an hour", async () => {
    server.enqueue(json({}, "/openai/v1/models", 500), await modelsDev());
    const env = { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${server.url}/openai/v1` };
    await load({ env });
    expect((await load({ env, now: at(30 * 60_000) })).from_cache).toBe(true);
    server.enqueue(
      json(await fixture("models/openai-v1-models.json"), "/openai/v1/models"),
      await modelsDev(),
    );
    const retried = await load({ env, now: at(2 * HOUR) });
    expect(retried.from_cache).toBe(false);
    expect(ofProvider(retried, "openai")).toEqual(["model-id-0", "model-id-1", "model-id-2"]);
  });

  test("offline: the cache is used, even expired, with its age", async () => {
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    const online = await load({ env: anthropicEnv() });
    const env = anthropicEnv();
    await server.stop();

    const refreshed = await load({ env, now: at(3 * HOUR), refresh: true });
    expect(refreshed.models).toEqual(online.models);
    expect(refreshed.from_cache).toBe(true);
    expect(refreshed.stale).toBe(false);
    expect(refreshed.warnings[0]).toBe("using the model list cached 3 h ago (offline?)");
    expect(refreshed.warnings.slice(1).join("\n")).toContain("Anthropic (anthropic): could not list models");

    const expired = await load({ env, now: at(30 * HOUR) });
    expect(expired.stale).toBe(true);
    expect(expired.age_ms).toBe(30 * HOUR);
    expect(expired.warnings[0]).toBe("using the model list cached 30 h ago (offline?)");
  });

  test("a failing provider falls back to its cached list", async () => {
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    await load({ env: anthropicEnv() });
    server.enqueue(json({}, "/anthropic/v1/models", 503), await modelsDev());
    const catalog = await load({ env: anthropicEnv(), refresh: true, now: at(HOUR) });
    expect(ofProvider(catalog, "anthropic")).toEqual([
      "claude-haiku-4-5-20251001",
      "claude-sonnet-4-5-20250929",
    ]);
    expect(catalog.warnings).toEqual([
      "Anthropic (anthropic): could not list models: HTTP 503 Service Unavailable; showing the cached list",
    ]);
  });

  test("the cache records where each provider's own list came from: base URL and key source", async () => {
    server.enqueue(json({}, "/openai/v1/models", 500));
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    const env = { ...anthropicEnv(), OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${server.url}/openai/v1` };
    const catalog = await load({ env });
    // OpenAI's list failed: what it shows is models.dev's, which says nothing about that endpoint.
    expect(catalog.listedFrom).toEqual({ anthropic: `${server.url}/anthropic env ANTHROPIC_API_KEY` });
    const file = JSON.parse(await readFile(cachePath(), "utf8")) as Record<string, unknown>;
    expect(file.endpoints).toEqual(catalog.listedFrom);
    expect((await cachedCatalog({ ...baseEnv, ...env }))?.listedFrom).toEqual(catalog.listedFrom);
  });

  test("another key source for the same base URL is another cache", async () => {
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    await load({ env: anthropicEnv() });
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    const other = await load({
      env: { ANTHROPIC_BASE_URL: `${server.url}/anthropic` },
      keys: { anthropic: "sk-ant-test-other-key-0000" },
      now: at(HOUR),
    });
    expect(other.from_cache).toBe(false);
    expect(other.listedFrom).toEqual({ anthropic: `${server.url}/anthropic keys.json` });
  });

  test("cachedCatalog reads the cache without the network", async () => {
    const env = { ...baseEnv, ...anthropicEnv() };
    expect(await cachedCatalog(env)).toBeUndefined();
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    const online = await load({ env: anthropicEnv(), now: new Date() });
    const requests = server.requests.length;

    const cached = await cachedCatalog(env);
    expect(server.requests.length).toBe(requests);
    expect(cached?.models).toEqual(online.models);
    expect(cached?.from_cache).toBe(true);
    expect(cached?.stale).toBe(false);
    expect(cached?.fetched_at).toBe(online.fetched_at);
  });

  test("a corrupt cache is no cache (cachedCatalog) and is replaced (loadCatalog)", async () => {
    await mkdir(join(root, "cache", "ion"), { recursive: true });
    await writeFile(cachePath(), "{not json");
    expect(await cachedCatalog(baseEnv)).toBeUndefined();
    await writeFile(cachePath(), JSON.stringify({ version: 99, models: [] }));
    expect(await cachedCatalog(baseEnv)).toBeUndefined();

    server.enqueue(await modelsDev());
    const catalog = await load();
    expect(catalog.warnings).toEqual([`ignored the model cache ${cachePath()}: unknown version 99`]);
    expect(await cachedCatalog(baseEnv)).toBeDefined();
  });
});

describe("lookup", () => {
  async function catalog(): Promise<Catalog> {
    await enqueueAnthropicPages();
    server.enqueue(await modelsDev());
    return load({ env: anthropicEnv() });
  }

  test("findModel: exact id, then the undated alias", async () => {
    const c = await catalog();
    expect(findModel(c, "anthropic", "claude-haiku-4-5-20251001")?.id).toBe(
      "anthropic/claude-haiku-4-5-20251001",
    );
    expect(findModel(c, "anthropic", "claude-sonnet-4-5")?.id).toBe("anthropic/claude-sonnet-4-5-20250929");
    expect(findModel(c, "openai", "gpt-5")?.input_cost).toBe(1.25);
    expect(findModel(c, "anthropic", "gpt-5")).toBeUndefined();
    expect(findModel(c, "anthropic", "claude-nope")).toBeUndefined();
  });

  test("searchModels: fuzzy over id and name", async () => {
    const c = await catalog();
    const found = searchModels(c.models, "sonet");
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]!.name).toContain("Sonnet");
    expect(searchModels(c.models, "  ")).toHaveLength(c.models.length);
    expect(searchModels(c.models, "gpt-4o")[0]!.id).toBe("openai/gpt-4o");
  });

  test("suggestModels: the closest ids of that provider", async () => {
    const c = await catalog();
    const suggestions = suggestModels(c, "anthropic", "claude-sonet-4-5");
    expect(suggestions[0]).toBe("anthropic/claude-sonnet-4-5-20250929");
    expect(suggestions.length).toBeLessThanOrEqual(3);
    expect(suggestions.every((id) => id.startsWith("anthropic/"))).toBe(true);
    expect(suggestModels(c, "openai", "gpt5", 1)).toHaveLength(1);
    expect(suggestModels(c, "nobody", "gpt-5")).toEqual([]);
  });

  test("formatAge", () => {
    expect(formatAge(10_000)).toBe("less than a minute");
    expect(formatAge(5 * 60_000)).toBe("5 min");
    expect(formatAge(3 * HOUR + 59 * 60_000)).toBe("3 h");
    expect(formatAge(72 * HOUR)).toBe("3 days");
  });
});
