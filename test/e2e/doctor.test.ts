/**
 * `ion doctor` end to end against the fake server: a provider that answers (openai, its key in the
 * environment), one that refuses connections (anthropic, key in keys.json), one that never answers
 * (mistral, key in the config file) within a shortened --timeout; a broken config file; a data dir
 * that cannot be created. Exact ✓/!/✗ lines where the machine does not decide them (the sandbox line
 * does: bwrap may or may not be here), `--json`, the exit status, and no key anywhere in the output.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { VERSION } from "../../src/version.ts";
import { type IonRun, Sandbox } from "../support/cli.ts";
import { type FakeLLM, FIXTURES, startFakeLLM } from "../support/fake-llm.ts";

// Made-up keys, put together at run time so no committed text looks like one.
const OPENAI_KEY = ["test", "key", "openai", "123"].join("-");
const ANTHROPIC_KEY = ["test", "key", "anthropic", "456"].join("-");
const MISTRAL_KEY = ["test", "key", "mistral", "789"].join("-");
const OPENAI_MODELS = readFileSync(join(FIXTURES, "models/openai-v1-models.json"), "utf8");
const OPENAI_COUNT = (JSON.parse(OPENAI_MODELS) as { data: unknown[] }).data.length;

const CheckItem = z.strictObject({
  id: z.string(),
  status: z.enum(["ok", "warn", "fail"]),
  title: z.string(),
  detail: z.string(),
  fix: z.string().optional(),
});

let server: FakeLLM;
/** A port nothing listens on: connections to it are refused. */
let closedPort = 0;

beforeAll(async () => {
  server = await startFakeLLM();
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  closedPort = probe.port;
  probe.stop(true);
});

afterAll(() => server.stop());

/** Serves openai's model list and the release's VERSION, `times` over. */
function serveUp(times: number): void {
  for (let i = 0; i < times; i++)
    server.enqueue(
      {
        pathSuffix: "/openai/v1/models",
        headers: { "content-type": "application/json" },
        body: OPENAI_MODELS,
      },
      { pathSuffix: "/release/VERSION", body: `${VERSION}\n` },
    );
}

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: `${server.url}/openai/v1`,
    ION_INSTALL_BASE: `${server.url}/release`,
    TERM: "xterm-256color",
    TMUX: "",
    ...extra,
  };
}

function lines(run: IonRun): string[] {
  return run.stdout.trimEnd().split("\n");
}

function expectNoKeys(run: IonRun): void {
  for (const key of [OPENAI_KEY, ANTHROPIC_KEY, MISTRAL_KEY]) {
    expect(run.stdout).not.toContain(key);
    expect(run.stderr).not.toContain(key);
  }
}

const versionLine = new RegExp(
  `^✓ version: ion ${VERSION.replaceAll(".", "\\.")}( \\([0-9a-f]+\\))?, the latest release is ${VERSION.replaceAll(".", "\\.")}$`,
);

describe("ion doctor", () => {
  test("a provider up, one refusing connections, one too slow: exact lines, exit 1, no key shown", async () => {
    using box = new Sandbox();
    serveUp(1);
    server.enqueue({ pathSuffix: "/mistral/v1/models", stallBeforeHeaders: true });
    const user = await box.writeConfig({
      providers: { mistral: { api_key: MISTRAL_KEY, api_base: `${server.url}/mistral` } },
    });
    const keys = await box.writeConfig({ anthropic: ANTHROPIC_KEY }, "keys.json");
    const started = performance.now();
    const run = await box.run(["doctor", "--timeout", "0.5"], {
      env: baseEnv({ ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: `http://127.0.0.1:${closedPort}` }),
    });
    expect(performance.now() - started).toBeLessThan(8_000);
    const out = lines(run);
    expect(out.slice(0, 5)).toEqual([
      `✓ config: user config ${user}, keys.json ${keys}; no project config`,
      "✓ keys: openai (env OPENAI_API_KEY), anthropic (keys.json), mistral (config)",
      expect.stringMatching(
        new RegExp(
          `^✓ provider openai: ${server.url}/openai/v1 answered in \\d+ ms \\(${OPENAI_COUNT} models\\)$`,
        ),
      ),
      `✗ provider anthropic: http://127.0.0.1:${closedPort}: cannot reach 127.0.0.1:${closedPort} (ECONNREFUSED) → check that the server is up, or ANTHROPIC_BASE_URL`,
      `✗ provider mistral: no answer from ${server.url}/mistral within 0.5 s → check that the server is up, or providers.mistral.api_base`,
    ]);
    expect(out.slice(5)).toEqual([
      "✓ terminal: stdout is not a terminal, no colour, TERM=xterm-256color, NO_COLOR set",
      `✓ data dir: ${box.dataDir} writable, 0 B (sessions 0 B, memory 0 B, index 0 B)`,
      expect.stringMatching(
        /^(✓ sandbox: (bwrap|sandbox-exec) \(.+\): workspace-write, network off|! sandbox: none: .+ → .+)$/,
      ),
      "✓ MCP: no servers configured",
      expect.stringMatching(versionLine),
    ]);
    expect(run.stderr).toBe("ion: 2 checks failed (✗)\n  hint: each ✗ line says what to do\n");
    expect(run.code).toBe(1);
    expectNoKeys(run);
  });

  test("--json: an array of {id, status, title, detail, fix?}; exit 0 when nothing fails", async () => {
    using box = new Sandbox();
    serveUp(1);
    const run = await box.run(["doctor", "--json", "--timeout", "2"], { env: baseEnv() });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const checks = z.array(CheckItem).parse(JSON.parse(run.stdout));
    const byId = new Map(checks.map((c) => [c.id, c]));
    expect(checks.map((c) => c.id)).toEqual([
      "config",
      "keys",
      "provider:openai",
      "terminal",
      "data-dir",
      "sandbox",
      "mcp",
      "version",
    ]);
    expect(byId.get("keys")).toEqual({
      id: "keys",
      status: "ok",
      title: "keys",
      detail: "openai (env OPENAI_API_KEY)",
    });
    expect(byId.get("provider:openai")?.status).toBe("ok");
    expect(byId.get("version")?.status).toBe("ok");
    // A fix exactly where there is something to fix.
    for (const item of checks) expect(item.fix === undefined).toBe(item.status === "ok");
    expectNoKeys(run);
  });

  test("a broken config file: ✗ with the loader's message; the rest still checked; offline version is !", async () => {
    using box = new Sandbox();
    const user = await box.writeConfig('{ "model": "openai/gpt-4o",\n  "thinking": }\n');
    const run = await box.run(["doctor", "--timeout", "0.5"], {
      env: baseEnv({
        OPENAI_API_KEY: "",
        OPENAI_BASE_URL: "",
        ION_INSTALL_BASE: `http://127.0.0.1:${closedPort}`,
      }),
    });
    const out = lines(run);
    expect(out[0]).toMatch(
      new RegExp(
        `^✗ config: ${user}: invalid JSON at line 2, column \\d+: .+ → correct the file, or move it away; every command stops on it until then$`,
      ),
    );
    expect(out).toContain(
      "! keys: no provider has a key → ion providers login ID stores one; or set the provider's variable, e.g. OPENAI_API_KEY",
    );
    expect(out).toContain("! MCP: not checked: the configuration does not load → fix the config first");
    expect(out.at(-1)).toMatch(
      new RegExp(
        `^! version: ion \\S+( \\(\\w+\\))?; cannot tell whether a newer release exists \\(cannot download http://127\\.0\\.0\\.1:${closedPort}/VERSION \\(ECONNREFUSED\\)\\) → ion update --check asks again$`,
      ),
    );
    expect(run.stderr).toBe("ion: 1 check failed (✗)\n  hint: each ✗ line says what to do\n");
    expect(run.code).toBe(1);
  });

  test("a data dir that cannot be created (its parent is a file): ✗ with the fix", async () => {
    using box = new Sandbox();
    serveUp(1);
    const file = join(box.root, "a-file");
    await Bun.write(file, "not a directory");
    const dataDir = join(file, "data");
    const run = await box.run(["doctor", "--timeout", "2"], { env: baseEnv({ ION_DATA_DIR: dataDir }) });
    expect(lines(run)).toContain(
      `✗ data dir: ${dataDir} cannot be created: ${file} is a file, not a directory → make it writable, or set ION_DATA_DIR to a directory you can write`,
    );
    expect(run.code).toBe(1);
    const json = await box.run(["doctor", "--json", "--timeout", "2"], {
      env: baseEnv({
        ION_DATA_DIR: dataDir,
        OPENAI_API_KEY: "",
        ION_INSTALL_BASE: `http://127.0.0.1:${closedPort}`,
      }),
    });
    const checks = z.array(CheckItem).parse(JSON.parse(json.stdout));
    expect(checks.find((c) => c.id === "data-dir")?.status).toBe("fail");
    expect(checks.find((c) => c.id === "version")?.status).toBe("warn");
    expect(json.code).toBe(1);
  });

  test("an MCP server that does not start is a ✗ naming its log", async () => {
    using box = new Sandbox();
    serveUp(1);
    await box.writeConfig({ mcpServers: { broken: { command: "false" } } });
    const run = await box.run(["doctor", "--timeout", "2"], { env: baseEnv() });
    const line = lines(run).find((l) => l.includes("MCP"));
    expect(line).toMatch(
      new RegExp(`^✗ MCP broken: failed to start: .+ → its log: ${box.dataDir}/mcp-logs/broken.log$`),
    );
    expect(run.code).toBe(1);
  });

  test("--timeout must be a positive number of seconds", async () => {
    using box = new Sandbox();
    const run = await box.run(["doctor", "--timeout", "soon"]);
    expect(run.stderr).toBe('ion: --timeout takes a number of seconds above 0, got "soon"\n');
    expect(run.code).toBe(64);
  });
});
