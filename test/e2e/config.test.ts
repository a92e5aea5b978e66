/**
 * End to end: `ion config show|get|set|unset|path|init` through the real CLI, in sandboxed dirs.
 * The interactive `init` runs under a pseudo-terminal (`script`) against a local fake catalogue.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ionCommand, Sandbox } from "../support/cli.ts";

const KEY = "sk-proj-e2e-secret-00000000abcd";

function read(path: string): string {
  return readFileSync(path, "utf8");
}

describe("ion config set / get / unset", () => {
  test("round trips strings, numbers, nested paths and arrays", async () => {
    using box = new Sandbox();
    const file = join(box.configDir, "config.json");
    const sets: Array<[string, string, string]> = [
      ["model", "anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"],
      ["context_window", "64000", "64000"],
      ["history.compact_threshold", "0.75", "0.75"],
      ["providers.openai.api_base", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"],
      ["tools.disabled", '["bash","grep"]', '[\n  "bash",\n  "grep"\n]'],
      ["providers.local.name", "123", "123"], // a string field: the text is kept
    ];
    for (const [key, value, shown] of sets) {
      const set = await box.run(["config", "set", key, value]);
      expect(set.stderr).toBe("");
      expect(set.code).toBe(0);
      expect(set.stdout).toStartWith(`${key} = `);
      const get = await box.run(["config", "get", key]);
      expect(get.code).toBe(0);
      expect(get.stdout).toBe(`${shown}\n`);
    }
    expect(JSON.parse(read(file))).toEqual({
      model: "anthropic/claude-sonnet-4-5",
      context_window: 64000,
      history: { compact_threshold: 0.75 },
      providers: { openai: { api_base: "http://127.0.0.1:8000/v1" }, local: { name: "123" } },
      tools: { disabled: ["bash", "grep"] },
    });
    expect((await box.run(["config", "get", "tools.disabled.1"])).stdout).toBe("grep\n");

    const unset = await box.run(["config", "unset", "providers.openai.api_base"]);
    expect(unset.code).toBe(0);
    expect(unset.stdout).toBe(`removed providers.openai.api_base from ${file}\n`);
    const gone = await box.run(["config", "get", "providers.openai.api_base"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe("ion: providers.openai.api_base is not set\n");
    expect(JSON.parse(read(file)).providers).toEqual({ local: { name: "123" } });

    const again = await box.run(["config", "unset", "providers.openai.api_base"]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("not set");
  });

  test("keeps the file's key order; 2-space JSON", async () => {
    using box = new Sandbox();
    const file = await box.writeConfig('{"thinking":"low","model":"openai/gpt-4o","preamble":"hi"}');
    expect((await box.run(["config", "set", "model", "openai/gpt-4.1"])).code).toBe(0);
    expect(read(file)).toBe('{\n  "thinking": "low",\n  "model": "openai/gpt-4.1",\n  "preamble": "hi"\n}\n');
  });

  test("invalid values are refused in one line naming the field; the file stays byte-identical", async () => {
    using box = new Sandbox();
    const original = '{\n\t"model": "openai/gpt-4o"\n}';
    const file = await box.writeConfig(original);
    const cases: Array<[string[], string]> = [
      [["thinking", "max"], 'ion: cannot set thinking: expected one of "off"|"low"|"medium"|"high"\n'],
      [["context_window", "big"], "ion: cannot set context_window: expected number, received string\n"],
      [
        ["providers.openai.api_base", "not-a-url"],
        "ion: cannot set providers.openai.api_base: expected an http(s) URL, e.g. https://api.example.com/v1\n",
      ],
    ];
    for (const [args, stderr] of cases) {
      const run = await box.run(["config", "set", ...args]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(stderr);
      expect(run.stdout).toBe("");
      expect(read(file)).toBe(original);
    }
  });

  test("a negative number is the VALUE, not an unknown option", async () => {
    using box = new Sandbox();
    const name = await box.run(["config", "set", "providers.local.name", "-1"]);
    expect(name.stderr).toBe("");
    expect(name.code).toBe(0);
    expect((await box.run(["config", "get", "providers.local.name"])).stdout).toBe("-1\n");
    const timeout = await box.run(["config", "set", "mcp.startup_timeout_ms", "-0.5"]);
    expect(timeout.stderr).toStartWith("ion: cannot set mcp.startup_timeout_ms: ");
    expect(timeout.stderr).not.toContain("unknown option");
    expect(timeout.code).toBe(1);
  });

  test("unknown keys: a warning with a suggestion, and written", async () => {
    using box = new Sandbox();
    const run = await box.run(["config", "set", "modle", "openai/gpt-4o"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning: unknown key "modle"');
    expect(run.stderr).toContain("did you mean model?");
    expect(JSON.parse(read(join(box.configDir, "config.json")))).toEqual({ modle: "openai/gpt-4o" });
  });

  test("usage errors", async () => {
    using box = new Sandbox();
    expect((await box.run(["config", "bogus"])).code).toBe(64);
    expect((await box.run(["config", "set", "model"])).code).toBe(64);
    expect((await box.run(["config", "get"])).code).toBe(64);
    expect((await box.run(["config", "set", "a..b", "1"])).code).toBe(64);
    expect((await box.run(["config", "show", "--nope"])).code).toBe(64);
    const unknown = await box.run(["config", "get", "nonsense"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.split("\n")[0]).toBe("ion: nonsense is not set");
  });
});

describe("API keys go to keys.json", () => {
  test("set/get/show/unset of providers.openai.api_key never print the key", async () => {
    using box = new Sandbox();
    const original = '{\n  "model": "openai/gpt-4o"\n}\n';
    const config = await box.writeConfig(original);
    const keys = join(box.configDir, "keys.json");

    const set = await box.run(["config", "set", "providers.openai.api_key", KEY]);
    expect(set.code).toBe(0);
    expect(set.stdout).toBe(`providers.openai.api_key = sk-…abcd  (${keys})\n`);
    expect(JSON.parse(read(keys))).toEqual({ openai: KEY });
    expect(statSync(keys).mode & 0o777).toBe(0o600);
    expect(read(config)).toBe(original);

    const get = await box.run(["config", "get", "providers.openai.api_key"]);
    expect(get.stdout).toBe("sk-…abcd\n");
    const show = await box.run(["config", "show"]);
    expect(show.stdout).toMatch(/^providers\.openai\.api_key +sk-…abcd +keys\.json$/m);
    const json = await box.run(["config", "show", "--json"]);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.config.providers.openai.api_key).toBe("sk-…abcd");
    expect(parsed.sources["providers.openai.api_key"]).toBe("keys.json");
    const getAll = await box.run(["config", "get", "providers"]);
    expect(JSON.parse(getAll.stdout)).toEqual({ openai: { api_key: "sk-…abcd" } });

    const unset = await box.run(["config", "unset", "providers.openai.api_key"]);
    expect(unset.code).toBe(0);
    expect(JSON.parse(read(keys))).toEqual({});
    expect(read(config)).toBe(original);

    for (const run of [set, get, show, json, getAll, unset])
      expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  test("the key can come from stdin; the flat api_key goes to the selected provider", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: "groq/llama-3.3-70b-versatile" });
    const run = await box.run(["config", "set", "api_key", "-"], { stdin: `${KEY}\n` });
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(KEY);
    expect(JSON.parse(read(join(box.configDir, "keys.json")))).toEqual({ groq: KEY });
  });

  test("a plain-text key in config.json is moved out when a new one is set", async () => {
    using box = new Sandbox();
    const config = await box.writeConfig({
      model: "openai/gpt-4o",
      providers: { openai: { api_key: "sk-old-plain-00001111" } },
    });
    const run = await box.run(["config", "set", "providers.openai.api_key", KEY]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("removed the plain-text key for openai");
    expect(JSON.parse(read(config))).toEqual({ model: "openai/gpt-4o" });
  });

  test("keys are never written into config.json; unknown providers and --project are refused", async () => {
    using box = new Sandbox();
    const whole = await box.run(["config", "set", "providers", JSON.stringify({ openai: { api_key: KEY } })]);
    expect(whole.code).toBe(1);
    expect(whole.stderr).toStartWith("ion: API keys are not written to config.json\n");
    const typo = await box.run(["config", "set", "providers.opnai.api_key", KEY]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("did you mean openai?");
    const project = await box.run(["config", "set", "--project", "providers.openai.api_key", KEY]);
    expect(project.code).toBe(64);
    const flat = await box.run(["config", "set", "api_key", KEY]);
    expect(flat.code).toBe(1);
    expect(flat.stderr).toContain("none is selected");
    for (const run of [whole, typo, project, flat]) expect(run.stdout + run.stderr).not.toContain(KEY);
    expect(existsSync(join(box.configDir, "config.json"))).toBe(false);
    expect(existsSync(join(box.configDir, "keys.json"))).toBe(false);
  });
});

describe("ion config show", () => {
  test("names the source of each value: user file, project file, env, keys", async () => {
    using box = new Sandbox();
    const user = await box.writeConfig({ model: "openai/gpt-4o", thinking: "low", context_window: 100000 });
    const project = join(box.workspace, ".ion", "config.json");
    mkdirSync(join(box.workspace, ".ion"));
    writeFileSync(project, JSON.stringify({ thinking: "high" }));
    const env = { ION_MODEL: "anthropic/claude-sonnet-4-5", ANTHROPIC_API_KEY: "sk-ant-env-000000007777" };

    const json = await box.run(["config", "show", "--json"], { env });
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.config).toEqual({
      model: "anthropic/claude-sonnet-4-5",
      thinking: "high",
      context_window: 100000,
      providers: { anthropic: { api_key: "sk-…7777" } },
    });
    expect(parsed.sources).toEqual({
      model: "env ION_MODEL",
      thinking: project,
      context_window: user,
      "providers.anthropic.api_key": "env ANTHROPIC_API_KEY",
    });
    expect(parsed.files).toEqual({ user, project, keys: join(box.configDir, "keys.json") });

    // Rows come in the schema's order, one leaf each.
    const text = await box.run(["config"], { env });
    expect(text.stdout.split("\n")).toEqual([
      expect.stringMatching(/^model +"anthropic\/claude-sonnet-4-5" +env ION_MODEL$/),
      expect.stringMatching(new RegExp(`^context_window +100000 +${user}$`)),
      expect.stringMatching(new RegExp(`^thinking +"high" +${project}$`)),
      expect.stringMatching(/^providers\.anthropic\.api_key +sk-…7777 +env ANTHROPIC_API_KEY$/),
      "",
    ]);
    expect(text.stdout + json.stdout).not.toContain("sk-ant-env-000000007777");
  });

  test("credential headers are masked too", async () => {
    using box = new Sandbox();
    await box.writeConfig({
      providers: {
        local: {
          api_base: "http://127.0.0.1:9/v1",
          headers: { Authorization: `Bearer ${KEY}`, "X-Team": "blue" },
        },
      },
    });
    const run = await box.run(["config", "get", "providers.local.headers"]);
    expect(JSON.parse(run.stdout)).toEqual({ Authorization: "Bearer sk-…abcd", "X-Team": "blue" });
    expect((await box.run(["config", "show"])).stdout).not.toContain(KEY);
  });

  test("--project writes ./.ion/config.json, which then wins", async () => {
    using box = new Sandbox();
    await box.writeConfig({ thinking: "low" });
    const project = join(box.workspace, ".ion", "config.json");
    const set = await box.run(["config", "set", "--project", "thinking", "high"]);
    expect(set.code).toBe(0);
    expect(JSON.parse(read(project))).toEqual({ thinking: "high" });
    const show = JSON.parse((await box.run(["config", "show", "--json"])).stdout);
    expect(show.sources.thinking).toBe(project);
    const tools = await box.run(["config", "set", "--project", "tools.disabled", '["bash"]']);
    expect(tools.code).toBe(1);
    expect(tools.stderr).toContain("a project file cannot set tools");
  });

  test("an empty configuration says how to start", async () => {
    using box = new Sandbox();
    const run = await box.run(["config", "show"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("ion config init");
  });
});

test("ion config path prints every location, one per line", async () => {
  using box = new Sandbox();
  const run = await box.run(["config", "path"]);
  expect(run.code).toBe(0);
  expect(run.stdout).toBe(
    [
      `config_dir: ${box.configDir}`,
      `config_file: ${join(box.configDir, "config.json")}`,
      `keys_file: ${join(box.configDir, "keys.json")}`,
      `project_file: ${join(box.workspace, ".ion", "config.json")}`,
      `data_dir: ${box.dataDir}`,
      `cache_dir: ${join(box.root, "cache", "ion")}`,
      "",
    ].join("\n"),
  );
  expect((await box.run(["config", "path", "keys_file"])).stdout).toBe(
    `${join(box.configDir, "keys.json")}\n`,
  );
  expect((await box.run(["config", "path", "nope"])).code).toBe(64);
});

test("ion config init without a terminal prints what to run instead; exit 1", async () => {
  using box = new Sandbox();
  const run = await box.run(["config", "init"], { env: { OPENAI_API_KEY: KEY } });
  expect(run.code).toBe(1);
  expect(run.stderr).toBe(
    [
      "ion: `ion config init` needs an interactive terminal (found in the environment: OPENAI_API_KEY)",
      "  hint: run `ion config set model openai/MODEL` (`ion models --provider openai` lists them) instead",
      "",
    ].join("\n"),
  );
  expect(existsSync(join(box.configDir, "config.json"))).toBe(false);
});

// --- The interactive flow under a pseudo-terminal --------------------------------------------------

const hasScript = Bun.which("script") !== null && process.platform === "linux";

function quote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** A models.dev stand-in and an OpenAI-compatible model list. */
function fakeCatalogServer() {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/api.json") {
        const meta = (name: string, date: string, context: number, input: number, output: number) => ({
          id: name.toLowerCase().replaceAll(" ", "-"),
          name,
          release_date: date,
          limit: { context, output: 16000 },
          cost: { input, output },
        });
        return Response.json({
          openai: {
            id: "openai",
            models: {
              "gpt-test-mini": meta("GPT Test mini", "2025-04-14", 128000, 0.4, 1.6),
              "gpt-test-large": meta("GPT Test large", "2025-08-07", 400000, 2, 8),
            },
          },
        });
      }
      if (path === "/v1/models")
        return Response.json({ object: "list", data: [{ id: "gpt-test-mini" }, { id: "gpt-test-large" }] });
      return new Response("not found", { status: 404 });
    },
  });
}

/** Runs `ion config init` in a pty; `steps` wait for a text on screen, then type. */
async function interactiveInit(box: Sandbox, env: Record<string, string>, steps: Array<[string, string[]]>) {
  const command = `stty cols 120 rows 40; exec ${ionCommand().map(quote).join(" ")} config init`;
  const child = Bun.spawn(["script", "-qfec", command, "/dev/null"], {
    cwd: box.workspace,
    env: box.env({ TERM: "xterm", ...env }),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  let screen = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) screen += decoder.decode(chunk, { stream: true });
  })();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  try {
    for (const [wait, keys] of steps) {
      const started = Date.now();
      while (!Bun.stripANSI(screen).includes(wait)) {
        if (Date.now() - started > 10_000)
          throw new Error(`never saw "${wait}" in:\n${Bun.stripANSI(screen)}`);
        await Bun.sleep(20);
      }
      for (const key of keys) {
        child.stdin.write(key);
        await child.stdin.flush();
        await Bun.sleep(60);
      }
    }
    const code = await child.exited;
    await reading;
    return { code, screen: Bun.stripANSI(screen) };
  } finally {
    clearTimeout(timer);
    child.kill();
  }
}

describe.skipIf(!hasScript)("ion config init on a terminal", () => {
  test("provider (env key kept) → model search → saved", async () => {
    using box = new Sandbox();
    const server = fakeCatalogServer();
    try {
      const env = {
        ION_MODELS_URL: `${server.url}api.json`,
        OPENAI_BASE_URL: `${server.url}v1`,
        OPENAI_API_KEY: KEY,
      };
      const { code, screen } = await interactiveInit(box, env, [
        ["Which provider?", ["open", "\r"]],
        ["keep using $OPENAI_API_KEY", ["\r"]],
        ["Which OpenAI model?", ["mini", "\r"]],
      ]);
      expect(screen).toContain("OpenAI (OPENAI_API_KEY set)");
      expect(screen).toMatch(/gpt-test-large +400k ctx {2}\$2\/\$8 per 1M/);
      expect(screen).toContain(`saved model openai/gpt-test-mini to ${join(box.configDir, "config.json")}`);
      expect(screen).not.toContain(KEY);
      expect(code).toBe(0);
      expect(JSON.parse(read(join(box.configDir, "config.json")))).toEqual({ model: "openai/gpt-test-mini" });
      expect(existsSync(join(box.configDir, "keys.json"))).toBe(false);
    } finally {
      server.stop(true);
    }
  });

  test("Ctrl+C at the key prompt: setup cancelled, exit 1, nothing written", async () => {
    using box = new Sandbox();
    const { code, screen } = await interactiveInit(box, {}, [
      ["Which provider?", ["anthropic", "\r"]],
      ["Paste your Anthropic API key", ["sk-ant-partial", "\x03"]],
    ]);
    expect(code).toBe(1);
    expect(screen).toContain("ion: setup cancelled");
    expect(screen).not.toContain("sk-ant-partial");
    expect(existsSync(join(box.configDir, "config.json"))).toBe(false);
    expect(existsSync(join(box.configDir, "keys.json"))).toBe(false);
  });
});
