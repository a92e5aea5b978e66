/**
 * The first-run flow through its Prompter interface: answers are scripted with plain objects, the
 * catalogue is a plain object too (using the real fuzzy search), files are real temp dirs.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadCatalogOptions } from "../../src/catalog/catalog.ts";
import { type Catalog, type ModelInfo, searchModels } from "../../src/catalog/catalog.ts";
import { IonError } from "../../src/errors.ts";
import {
  CANCELLED,
  type Cancelled,
  type CatalogApi,
  type Choice,
  checkKeyText,
  firstRun,
  formatContext,
  formatPrice,
  initInstructions,
  noModelMessage,
  type Prompter,
} from "../../src/ui/first-run.ts";

interface Call {
  kind: "search" | "select" | "text" | "password";
  message: string;
  /** select: the options; search: the options for an empty query. */
  options: Choice[];
  choices?: (query: string) => Choice[];
  initialValue?: string;
  validate?: (value: string) => string | undefined;
}

type Answer = (call: Call) => string | Cancelled;

/** Answers each question with the next scripted function and records everything shown. */
class ScriptedPrompter implements Prompter {
  readonly calls: Call[] = [];
  readonly shown: string[] = [];
  constructor(private readonly answers: Answer[]) {}

  private answer(call: Call): Promise<string | Cancelled> {
    this.calls.push(call);
    this.shown.push(call.message, ...call.options.map((o) => `${o.label} ${o.hint ?? ""}`));
    const next = this.answers.shift();
    if (!next) throw new Error(`unexpected question: ${call.message}`);
    return Promise.resolve(next(call));
  }
  intro(title: string) {
    this.shown.push(title);
  }
  outro(message: string) {
    this.shown.push(message);
  }
  info(message: string) {
    this.shown.push(message);
  }
  warn(message: string) {
    this.shown.push(`warn: ${message}`);
  }
  select(o: { message: string; options: Choice[]; initialValue?: string }) {
    return this.answer({ kind: "select", ...o });
  }
  search(o: { message: string; choices: (query: string) => Choice[]; initialValue?: string }) {
    return this.answer({ kind: "search", options: o.choices(""), ...o });
  }
  text(o: { message: string; validate?: (value: string) => string | undefined }) {
    return this.answer({ kind: "text", options: [], ...o });
  }
  password(o: { message: string; validate?: (value: string) => string | undefined }) {
    return this.answer({ kind: "password", options: [], ...o });
  }
  async spin<T>(message: string, work: () => Promise<T>, done: (value: T) => string) {
    this.shown.push(message);
    const value = await work();
    this.shown.push(done(value));
    return value;
  }
}

function model(provider: string, id: string, extra: Partial<ModelInfo> = {}): ModelInfo {
  return {
    id: `${provider}/${id}`,
    provider,
    model: id,
    name: id,
    context: 128_000,
    output: 16_000,
    input_cost: 1,
    output_cost: 2,
    cache_read_cost: null,
    cache_write_cost: null,
    tool_call: true,
    reasoning: false,
    release_date: null,
    configured: true,
    ...extra,
  };
}

const MODELS = [
  model("openai", "gpt-test-mini", { name: "GPT Test mini", release_date: "2025-04-14", input_cost: 0.4 }),
  model("openai", "gpt-test-large", { name: "GPT Test large", release_date: "2025-08-07", context: 400_000 }),
  model("openai", "gpt-old", { release_date: "2023-03-01" }),
  model("anthropic", "claude-test-sonnet", { release_date: "2025-09-29", context: 200_000 }),
  model("groq", "llama-test", {}),
];

/** A catalogue that records what it was asked with. */
function fakeCatalog(
  result: Catalog | IonError = catalogOf(MODELS),
): CatalogApi & { asked: LoadCatalogOptions[] } {
  const asked: LoadCatalogOptions[] = [];
  return {
    asked,
    async loadCatalog(options) {
      asked.push(options);
      if (result instanceof IonError) throw result;
      return result;
    },
    searchModels,
  };
}

function catalogOf(models: ModelInfo[], warnings: string[] = []): Catalog {
  return { models, warnings, fetched_at: "2026-01-01T00:00:00Z", age_ms: 0, from_cache: false, stale: false };
}

const pick =
  (value: string): Answer =>
  () =>
    value;

let root: string;
let configDir: string;
let env: Record<string, string>;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "ion-first-run-"));
  configDir = join(root, "config");
  env = { HOME: join(root, "home"), ION_CONFIG_DIR: configDir, XDG_CACHE_HOME: join(root, "cache") };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const readConfig = async () => JSON.parse(await readFile(join(configDir, "config.json"), "utf8"));
const files = async () => readdir(configDir).catch(() => [] as string[]);

describe("firstRun", () => {
  test("keeps an env key, searches the provider's models newest first, saves only the model", async () => {
    env.OPENAI_API_KEY = "sk-env-key-0000000000abcd";
    const catalog = fakeCatalog();
    const ui = new ScriptedPrompter([
      pick("openai"),
      pick("keep"),
      (call) => {
        // Typing narrows with fuzzy search; text not in the list can be used as an id.
        const found = call.choices!("mini");
        expect(found[0]?.value).toBe("gpt-test-mini");
        expect(found.at(-1)).toMatchObject({ value: "mini", label: 'use "mini"' });
        expect(call.choices!("gpt-test-mini").some((c) => c.label.startsWith("use"))).toBe(false);
        return found[0]!.value;
      },
    ]);
    const result = await firstRun({ cwd: root, env, prompter: ui, catalog });
    expect(result).toEqual({ provider: "openai", model: "gpt-test-mini" });

    const [provider, key, pickModel] = ui.calls;
    expect(provider?.kind).toBe("search");
    expect(provider?.initialValue).toBe("openai"); // the provider with a key is preselected
    const labels = provider!.options.map((o) => o.label);
    expect(labels).toContain("OpenAI (OPENAI_API_KEY set)");
    expect(labels).toContain("Ollama (no key needed)");
    expect(labels).toContain("Anthropic (needs a key)");
    expect(key?.options.map((o) => o.label)).toEqual(["keep using $OPENAI_API_KEY", "paste a new key"]);
    expect(pickModel?.options.map((o) => o.value)).toEqual(["gpt-test-large", "gpt-test-mini", "gpt-old"]);
    expect(pickModel?.options[0]?.label).toMatch(/^gpt-test-large\s+400k ctx {2}\$1\/\$2 per 1M$/);

    expect(await readConfig()).toEqual({ model: "openai/gpt-test-mini" });
    expect(await files()).toEqual(["config.json"]); // no keys.json
    expect(ui.shown.join("\n")).not.toContain("sk-env-key");
  });

  test("a pasted key goes to keys.json (0600) and is used for the model list, never shown", async () => {
    // A fake key in a real key's shape, assembled so the source holds no key-shaped literal.
    const secret = ["sk-ant", "test", "0000000000009876"].join("-");
    const catalog = fakeCatalog();
    const ui = new ScriptedPrompter([
      pick("anthropic"),
      (call) => {
        expect(call.kind).toBe("password"); // no key anywhere: straight to the masked prompt
        expect(call.validate?.("")).toBeString();
        expect(call.validate?.("sk-with space")).toBeString();
        expect(call.validate?.(secret)).toBeUndefined();
        return `  ${secret}\n`;
      },
      pick("claude-test-sonnet"),
    ]);
    await firstRun({ cwd: root, env, prompter: ui, catalog });

    const keysFile = join(configDir, "keys.json");
    expect(JSON.parse(await readFile(keysFile, "utf8"))).toEqual({ anthropic: secret });
    expect((await stat(keysFile)).mode & 0o777).toBe(0o600);
    expect(catalog.asked[0]?.keys).toEqual({ anthropic: secret });
    expect(await readConfig()).toEqual({ model: "anthropic/claude-test-sonnet" });
    expect(ui.shown.join("\n")).not.toContain(secret);
  });

  for (const step of [0, 1, 2]) {
    test(`cancelling at question ${step + 1} writes nothing and says "setup cancelled"`, async () => {
      const answers: Answer[] = [
        pick("anthropic"),
        pick("sk-ant-test-000000001111"),
        pick("claude-test-sonnet"),
      ];
      answers[step] = () => CANCELLED;
      const ui = new ScriptedPrompter(answers);
      const err = await firstRun({ cwd: root, env, prompter: ui, catalog: fakeCatalog() }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(IonError);
      expect((err as IonError).message).toBe("setup cancelled");
      expect(await files()).toEqual([]);
    });
  }

  test("cancelling while a saved key is offered writes nothing", async () => {
    env.OPENAI_API_KEY = "sk-env-key-0000000000abcd";
    const ui = new ScriptedPrompter([pick("openai"), pick("new"), () => CANCELLED]);
    const err = await firstRun({ cwd: root, env, prompter: ui, catalog: fakeCatalog() }).catch(
      (e: unknown) => e,
    );
    expect((err as IonError).message).toBe("setup cancelled");
    expect(await files()).toEqual([]);
  });

  test("ollama needs no key; without a model list the id is typed (a provider prefix is dropped)", async () => {
    const offline = new IonError("provider", "cannot fetch the model catalogue and there is no cached copy");
    const ui = new ScriptedPrompter([
      pick("ollama"),
      (call) => {
        expect(call.kind).toBe("text");
        expect(call.validate?.("  ")).toBeString();
        return "ollama/llama3.2";
      },
    ]);
    const result = await firstRun({ cwd: root, env, prompter: ui, catalog: fakeCatalog(offline) });
    expect(result).toEqual({ provider: "ollama", model: "llama3.2" });
    expect(await readConfig()).toEqual({ model: "ollama/llama3.2" });
    expect(ui.shown).toContain("Ollama needs no API key");
    expect(ui.shown.some((line) => line.startsWith("warn: no model list: cannot fetch"))).toBe(true);
  });

  test("catalogue warnings are shown; an id typed into the search is used as is", async () => {
    env.GROQ_API_KEY = "gsk-test-00000000000000ab";
    const catalog = fakeCatalog(catalogOf(MODELS, ["models.dev: HTTP 503"]));
    const ui = new ScriptedPrompter([
      pick("groq"),
      pick("keep"),
      (call) => call.choices!("groq/brand-new-model").at(-1)!.value,
    ]);
    const result = await firstRun({ cwd: root, env, prompter: ui, catalog });
    expect(result.model).toBe("brand-new-model");
    expect(ui.shown).toContain("warn: models.dev: HTTP 503");
  });

  test("switching away from a flat-form config keeps the old key with its provider", async () => {
    const oldKey = "sk-old-flat-000000000000ffff";
    await Bun.write(
      join(configDir, "config.json"),
      JSON.stringify({ provider: "openai", model: "gpt-4o", api_key: oldKey, thinking: "low" }, null, 2),
    );
    const ui = new ScriptedPrompter([
      (call) => {
        expect(call.initialValue).toBe("openai"); // the configured provider comes first
        return "anthropic";
      },
      pick("sk-ant-test-000000002222"),
      pick("claude-test-sonnet"),
    ]);
    await firstRun({ cwd: root, env, prompter: ui, catalog: fakeCatalog() });
    expect(await readConfig()).toEqual({
      provider: "anthropic",
      model: "anthropic/claude-test-sonnet",
      thinking: "low",
      providers: { openai: { api_key: oldKey } },
    });
  });

  test("a new key replaces a plain-text one in config.json (which would otherwise win)", async () => {
    await Bun.write(
      join(configDir, "config.json"),
      JSON.stringify({
        model: "openai/gpt-old",
        providers: { openai: { api_key: "sk-plain-0000000000001111" } },
      }),
    );
    const ui = new ScriptedPrompter([
      pick("openai"),
      (call) => {
        expect(call.options[0]?.label).toBe("keep the key in config.json (sk-…1111)");
        return "new";
      },
      pick("sk-new-key-0000000000002222"),
      pick("gpt-test-large"),
    ]);
    await firstRun({ cwd: root, env, prompter: ui, catalog: fakeCatalog() });
    expect(await readConfig()).toEqual({ model: "openai/gpt-test-large" });
    expect(JSON.parse(await readFile(join(configDir, "keys.json"), "utf8"))).toEqual({
      openai: "sk-new-key-0000000000002222",
    });
  });

  test("ION_MODEL overriding the saved model is pointed out", async () => {
    env.ION_MODEL = "groq/llama-test";
    env.GROQ_API_KEY = "gsk-test-00000000000000ab";
    const ui = new ScriptedPrompter([pick("groq"), pick("keep"), pick("llama-test")]);
    await firstRun({ cwd: root, env, prompter: ui, catalog: fakeCatalog(), continuing: true });
    expect(ui.shown.some((line) => line.startsWith("warn: ION_MODEL is set"))).toBe(true);
    expect(ui.shown.at(-1)).toBe(`saved model groq/llama-test to ${join(configDir, "config.json")}`);
  });
});

describe("noModelMessage and initInstructions", () => {
  test("without keys: one line, and a hint naming set model, init and login", () => {
    expect(noModelMessage({})).toEqual({
      message: "no model configured",
      hint: "run `ion config set model anthropic/claude-sonnet-4-5` (or any id from `ion models`), or `ion config init` on a terminal, or pass -m provider/model",
    });
    expect(initInstructions({})).toEqual({
      message: "`ion config init` needs an interactive terminal",
      hint: "run `ion config set model anthropic/claude-sonnet-4-5` (or any id from `ion models`) instead, and `ion providers login anthropic` (or set ANTHROPIC_API_KEY)",
    });
  });

  test("names the key variables already set, never their values; no line holds a newline", () => {
    const env = {
      OPENAI_API_KEY: "sk-secret-value-0001",
      GROQ_API_KEY: "gsk-secret-0002",
      MISTRAL_API_KEY: "",
    };
    for (const { message, hint } of [noModelMessage(env), initInstructions(env)]) {
      const text = `${message}\n${hint}`;
      expect(text).toContain("ion config set model openai/MODEL");
      expect(text).toContain("`ion models --provider openai` lists them");
      expect(message).toEndWith("(found in the environment: OPENAI_API_KEY, GROQ_API_KEY)");
      expect(text).not.toContain("secret");
      expect(text).not.toContain("MISTRAL");
      expect(message).not.toContain("\n");
      expect(hint).not.toContain("\n");
    }
  });

  test("with an Anthropic key there is nothing to log in to", () => {
    expect(initInstructions({ ANTHROPIC_API_KEY: "x".repeat(20) })).toEqual({
      message:
        "`ion config init` needs an interactive terminal (found in the environment: ANTHROPIC_API_KEY)",
      hint: "run `ion config set model anthropic/claude-sonnet-4-5` (or any id from `ion models`) instead",
    });
  });
});

describe("helpers", () => {
  test("context, price and key checks", () => {
    expect(formatContext(200_000)).toBe("200k");
    expect(formatContext(1_048_576)).toBe("1M");
    expect(formatContext(2_000_000)).toBe("2M");
    expect(formatContext(null)).toBe("?");
    expect(formatPrice({ input_cost: 3, output_cost: 15 })).toBe("$3/$15 per 1M");
    expect(formatPrice({ input_cost: 0.075, output_cost: 0.3 })).toBe("$0.075/$0.3 per 1M");
    expect(formatPrice({ input_cost: 0, output_cost: 0 })).toBe("free");
    expect(formatPrice({ input_cost: null, output_cost: 1 })).toBe("price unknown");
    expect(checkKeyText("sk-abc")).toBeUndefined();
    expect(checkKeyText("")).toBeString();
  });
});
