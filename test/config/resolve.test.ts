import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import {
  contextWindow,
  knownProviderIds,
  resolveModel,
  resolveProvider,
  resolveThinking,
  selectedProviderId,
} from "../../src/config/resolve.ts";
import type { Config } from "../../src/config/schema.ts";
import { IonError } from "../../src/errors.ts";
import { flatConfig } from "../support/stream-helpers.ts";

function thrown(fn: () => unknown): IonError {
  try {
    fn();
  } catch (err) {
    if (err instanceof IonError) return err;
    throw err;
  }
  throw new Error("expected an IonError");
}

describe("resolveModel", () => {
  test("-m provider/model sends the part after the first / unchanged", () => {
    expect(resolveModel({}, "anthropic/claude-sonnet-4-5")).toEqual({
      providerId: "anthropic",
      model: "claude-sonnet-4-5",
    });
    expect(resolveModel({}, "openrouter/anthropic/claude-3.5-sonnet")).toEqual({
      providerId: "openrouter",
      model: "anthropic/claude-3.5-sonnet",
    });
  });

  test("a first segment that is not a provider makes the whole string a model of `provider`", () => {
    expect(resolveModel({ provider: "groq" }, "meta-llama/llama-4-scout")).toEqual({
      providerId: "groq",
      model: "meta-llama/llama-4-scout",
    });
    expect(resolveModel({ provider: "ollama" }, "qwen3:8b")).toEqual({
      providerId: "ollama",
      model: "qwen3:8b",
    });
  });

  test("config model: provider/model, or a bare model with provider", () => {
    expect(resolveModel({ model: "mistral/mistral-large-latest" })).toEqual({
      providerId: "mistral",
      model: "mistral-large-latest",
    });
    expect(resolveModel({ provider: "openai", model: "gpt-4o" })).toEqual({
      providerId: "openai",
      model: "gpt-4o",
    });
    expect(resolveModel({ provider: "openai", model: "openai/gpt-4o" })).toEqual({
      providerId: "openai",
      model: "gpt-4o",
    });
    // provider and model from the same layer: the model belongs to that provider
    expect(resolveModel({ provider: "groq", model: "openai/gpt-oss-120b" })).toEqual({
      providerId: "groq",
      model: "openai/gpt-oss-120b",
    });
    // a model from a higher layer than provider selects its own provider
    expect(
      resolveModel({ provider: "openai", model: "anthropic/claude-sonnet-4-5" }, undefined, {
        provider: "user",
        model: "env",
      }),
    ).toEqual({ providerId: "anthropic", model: "claude-sonnet-4-5" });
  });

  test("configured custom providers count as known", () => {
    const config: Config = { providers: { local: { type: "openai-compatible", api_base: "http://h:1/v1" } } };
    expect(resolveModel(config, "local/qwen/qwen3")).toEqual({ providerId: "local", model: "qwen/qwen3" });
    expect(knownProviderIds(config)).toContain("local");
  });

  test("no model is a config error with a hint", () => {
    const err = thrown(() => resolveModel({ provider: "openai" }));
    expect(err.code).toBe("config");
    expect(err.message).toBe("no model configured");
    expect(err.hint).toContain("ion config set model");
  });

  test("unknown provider ids list the known ones", () => {
    let err = thrown(() => resolveModel({}, "nope/model"));
    expect(err.code).toBe("config");
    expect(err.message).toContain('unknown provider "nope"');
    expect(err.message).toContain("openai, anthropic, google, mistral, ollama, openrouter, groq");
    err = thrown(() => resolveModel({ provider: "nope", model: "m" }));
    expect(err.message).toContain('unknown provider "nope"');
    expect(thrown(() => resolveModel({}, "gpt-4o")).message).toContain("does not name a provider");
  });
});

describe("resolveProvider", () => {
  test("the flat form resolves provider, model, key and base", () => {
    const config = flatConfig();
    const { providerId, model } = resolveModel(config);
    expect([providerId, model]).toEqual(["openai", "gpt-4o"]);
    const provider = resolveProvider(config, providerId, {});
    expect(provider).toEqual({
      id: "openai",
      name: "OpenAI",
      wire: "openai",
      baseURL: "https://api.openai.com/v1",
      apiKey: "sk-test-flat-0000000000001234",
      keySource: "config",
      headers: {},
      quirks: { maxTokensParam: "max_completion_tokens" },
      idleTimeoutMs: 120_000,
    });
    expect(contextWindow(config, "openai")).toBe(128000);
    // top-level key and base belong to the selected provider only
    const other = resolveProvider({ ...config, api_base: "http://proxy/v1" }, "anthropic", {});
    expect(other.apiKey).toBeUndefined();
    expect(other.keySource).toBe("none");
    expect(other.baseURL).toBe("https://api.anthropic.com");
  });

  test("key precedence: config › keys.json › env", () => {
    const env = { OPENAI_API_KEY: "sk-test-env-00000000000003" };
    const keys = { openai: "sk-test-keys-0000000000002" };
    const config: Config = { providers: { openai: { api_key: "sk-test-conf-0000000000001" } } };
    expect(resolveProvider(config, "openai", env, keys)).toMatchObject({
      apiKey: "sk-test-conf-0000000000001",
      keySource: "config",
    });
    expect(resolveProvider({}, "openai", env, keys)).toMatchObject({
      apiKey: "sk-test-keys-0000000000002",
      keySource: "keys.json",
    });
    expect(resolveProvider({}, "openai", env)).toMatchObject({
      apiKey: "sk-test-env-00000000000003",
      keySource: "env OPENAI_API_KEY",
    });
    expect(
      resolveProvider({}, "google", { GOOGLE_API_KEY: "g-test-2", GEMINI_API_KEY: "g-test-1" }).keySource,
    ).toBe("env GEMINI_API_KEY");
    expect(resolveProvider({}, "google", { GOOGLE_API_KEY: "g-test-2" }).keySource).toBe(
      "env GOOGLE_API_KEY",
    );
    expect(resolveProvider({}, "ollama", {})).toMatchObject({ apiKey: undefined, keySource: "none" });
  });

  test("base URL env vars, each in its SDK's form", () => {
    expect(resolveProvider({}, "openai", { OPENAI_BASE_URL: "http://gw.local/v1/" }).baseURL).toBe(
      "http://gw.local/v1",
    );
    expect(resolveProvider({}, "anthropic", { ANTHROPIC_BASE_URL: "http://gw.local" }).baseURL).toBe(
      "http://gw.local",
    );
    expect(resolveProvider({}, "mistral", { MISTRAL_BASE_URL: "http://gw.local:9000" }).baseURL).toBe(
      "http://gw.local:9000",
    );
    expect(resolveProvider({}, "ollama", { OLLAMA_HOST: "127.0.0.1:11434" }).baseURL).toBe(
      "http://127.0.0.1:11434/v1",
    );
    expect(resolveProvider({}, "ollama", { OLLAMA_HOST: "http://gpu-box:8080" }).baseURL).toBe(
      "http://gpu-box:8080/v1",
    );
    expect(resolveProvider({}, "ollama", {}).baseURL).toBe("http://127.0.0.1:11434/v1");
    // the env var of one SDK does not leak into another provider
    expect(resolveProvider({}, "groq", { OPENAI_BASE_URL: "http://gw.local/v1" }).baseURL).toBe(
      "https://api.groq.com/openai/v1",
    );
  });

  test("base URL precedence: providers.<id>.api_base › top-level api_base › env › default", () => {
    const env = { OPENAI_BASE_URL: "http://env/v1" };
    const full: Config = {
      provider: "openai",
      api_base: "http://top/v1",
      providers: { openai: { api_base: "http://entry/v1" } },
    };
    expect(resolveProvider(full, "openai", env).baseURL).toBe("http://entry/v1");
    expect(resolveProvider({ provider: "openai", api_base: "http://top/v1" }, "openai", env).baseURL).toBe(
      "http://top/v1",
    );
    expect(resolveProvider({ provider: "openai" }, "openai", env).baseURL).toBe("http://env/v1");
    expect(
      resolveProvider({ providers: { ollama: { api_base: "localhost:1234" } } }, "ollama", {}).baseURL,
    ).toBe("http://localhost:1234/v1");
    expect(thrown(() => resolveProvider({}, "openai", { OPENAI_BASE_URL: "not a url" })).message).toContain(
      "OPENAI_BASE_URL",
    );
  });

  test("where the base URL came from is kept for error messages", () => {
    const source = (config: Config, env: Record<string, string>) =>
      resolveProvider(config, "anthropic", env).baseURLSource;
    expect(source({}, {})).toBeUndefined();
    expect(source({}, { ANTHROPIC_BASE_URL: "http://gw.local" })).toBe("ANTHROPIC_BASE_URL");
    expect(source({ provider: "anthropic", api_base: "http://top" }, {})).toBe("api_base");
    expect(source({ providers: { anthropic: { api_base: "http://entry" } } }, {})).toBe(
      "providers.anthropic.api_base",
    );
  });

  test("network.idle_timeout_s reaches every provider in ms; 120 s by default", () => {
    expect(resolveProvider({}, "openai", {}).idleTimeoutMs).toBe(120_000);
    const config: Config = {
      network: { idle_timeout_s: 1.5 },
      providers: { lab: { api_base: "http://lab/v1" } },
    };
    expect(resolveProvider(config, "anthropic", {}).idleTimeoutMs).toBe(1500);
    expect(resolveProvider(config, "lab", {}).idleTimeoutMs).toBe(1500);
  });

  test("custom openai-compatible providers", () => {
    const config: Config = {
      providers: {
        vllm: {
          type: "openai-compatible",
          name: "vLLM box",
          api_base: "http://gpu:8000/v1",
          headers: { "X-Team": "ion" },
          context_window: 32768,
        },
        broken: { type: "openai-compatible" },
      },
      context_window: 8192,
    };
    expect(resolveProvider(config, "vllm", {}, { vllm: "sk-test-vllm-000000004444" })).toEqual({
      id: "vllm",
      name: "vLLM box",
      wire: "openai",
      baseURL: "http://gpu:8000/v1",
      apiKey: "sk-test-vllm-000000004444",
      keySource: "keys.json",
      headers: { "X-Team": "ion" },
      quirks: {},
      idleTimeoutMs: 120_000,
      baseURLSource: "providers.vllm.api_base",
    });
    expect(contextWindow(config, "vllm")).toBe(32768);
    expect(contextWindow(config, "openai")).toBe(8192);
    expect(contextWindow({}, "openai")).toBeUndefined();
    const err = thrown(() => resolveProvider(config, "broken", {}));
    expect(err.code).toBe("config");
    expect(err.message).toContain('"broken" has no api_base');
    expect(thrown(() => resolveProvider(config, "nope", {})).message).toContain("vllm");
  });

  test("thinking: flag › config › off", () => {
    expect(resolveThinking({})).toBe("off");
    expect(resolveThinking({ thinking: "medium" })).toBe("medium");
    expect(resolveThinking({ thinking: "medium" }, "high")).toBe("high");
  });

  test("selected provider: `provider`, else the model's prefix", () => {
    expect(selectedProviderId({ provider: "groq", model: "openai/gpt-oss-120b" })).toBe("groq");
    expect(selectedProviderId({ model: "anthropic/claude-sonnet-4-5" })).toBe("anthropic");
    expect(selectedProviderId({ model: "gpt-4o" })).toBeUndefined();
  });
});

describe("load + resolve end to end", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "ion-resolve-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test("ION_MODEL with a provider prefix overrides the user file's provider", async () => {
    const configDir = join(root, "config");
    await mkdir(configDir, { recursive: true });
    await writeFile(join(configDir, "config.json"), JSON.stringify({ provider: "openai", model: "gpt-4o" }));
    await writeFile(join(configDir, "keys.json"), JSON.stringify({ anthropic: "sk-ant-test-000000009999" }), {
      mode: 0o600,
    });
    const env = { HOME: root, ION_CONFIG_DIR: configDir, ION_MODEL: "anthropic/claude-sonnet-4-5" };
    const loaded = await loadConfig({ cwd: root, env });
    const { providerId, model } = resolveModel(loaded.config, undefined, loaded.sources);
    expect([providerId, model]).toEqual(["anthropic", "claude-sonnet-4-5"]);
    const provider = resolveProvider(loaded.config, providerId, env, loaded.keys);
    expect(provider.keySource).toBe("keys.json");
    expect(resolveModel(loaded.config, "openrouter/openai/gpt-4o", loaded.sources)).toEqual({
      providerId: "openrouter",
      model: "openai/gpt-4o",
    });
  });
});

describe("a base URL that is not a valid URL", () => {
  test("the error names the field and never shows its user info or query", () => {
    const config: Config = {
      providers: { local: { api_base: "http://me:hunter2@gpu box/v1?token=s3cr3t" } },
    };
    let message = "";
    try {
      resolveProvider(config, "local", {});
    } catch (err) {
      if (!(err instanceof IonError)) throw err;
      message = err.message;
    }
    expect(message).toBe('providers.local.api_base: "http://***@gpu box/v1?token=***" is not a valid URL');
  });
});
