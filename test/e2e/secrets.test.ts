/**
 * End to end: no secret is printed, logged or saved. A base URL with `user:password@` and `?token=`,
 * configured secret headers and the key itself never appear in error lines, `-o json` / stream-json
 * results, the session file, `ion providers`, `ion config show|get|set`, nor in `-v` logs of any wire.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { zstdDecode } from "../history/support/fixtures.ts";
import { type IonRun, Sandbox } from "../support/cli.ts";
import { ResultSchema } from "../support/output-schemas.ts";
import { useFakeLLM } from "../support/stream-helpers.ts";
import { errorReply, type Wire, wirePathSuffix } from "../support/wire-scripts.ts";

// Fake credentials only.
const KEY = "sk-test-secrets-e2e-key-000000000000wxyz";
const PASSWORD = "hunter2pw";
const TOKEN = "s3cretTokenValue";
const GATEWAY_KEY = "abc123gatewaysecret";
const BEARER = "gw-bearer-0000000000qrst";
const SECRETS = [KEY, PASSWORD, TOKEN, GATEWAY_KEY, BEARER];

const server = useFakeLLM();

/** `http://user:PASSWORD@127.0.0.1:PORT/v1?token=TOKEN`, and how ion must show it. */
const secretURL = (path = "/v1") =>
  `${server.url.replace("http://", `http://user:${PASSWORD}@`)}${path}?token=${TOKEN}`;
const maskedURL = (path = "/v1") => `${server.url.replace("http://", "http://***@")}${path}?token=***`;

const HEADERS = { "x-gateway-key": GATEWAY_KEY, "X-Title": "ion-e2e" };

interface ProviderEntry {
  api_key: string;
  api_base: string;
  headers: Record<string, string>;
}

/** A config whose one provider (`gw` on the OpenAI wire, else the built-in one) has every kind of secret. */
function gatewayConfig(wire: Wire = "openai", entry: Partial<ProviderEntry> = {}) {
  const id = wire === "openai" ? "gw" : wire;
  const base = wire === "openai" ? secretURL() : secretURL("");
  return {
    model: `${id}/test-model`,
    providers: { [id]: { api_key: KEY, api_base: base, headers: HEADERS, ...entry } },
  };
}

function expectNoSecrets(...texts: string[]): void {
  for (const text of texts) for (const secret of SECRETS) expect(text).not.toContain(secret);
}

/** Every session file of the sandbox, decompressed. */
function savedSessions(box: Sandbox): string {
  const dir = join(box.dataDir, "sessions");
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl.zst"));
  expect(files.length).toBeGreaterThan(0);
  return files.map((f) => zstdDecode(join(dir, f))).join("\n");
}

function errorLines(run: IonRun): string[] {
  return run.stderr.split("\n").filter((l) => l.startsWith("ion: ") && !l.startsWith("ion: warning"));
}

describe("a failed run with credentials in the base URL and headers", () => {
  test("404 names the base URL masked: error line, -o json errors and the session's run end", async () => {
    using box = new Sandbox();
    await box.writeConfig(gatewayConfig());
    // The server echoes what it was sent, as some proxies do.
    server.enqueue({
      status: 404,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        error: { message: `no route for /v1/chat/completions?token=${TOKEN} (gateway key ${GATEWAY_KEY})` },
      }),
    });
    const run = await box.run(["run", "-o", "json", "hi"]);
    expect(run.code).toBe(1);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.errors[0]).toContain(`check the base URL: ${maskedURL()}`);
    expect(errorLines(run)[0]).toContain(`check the base URL: ${maskedURL()}`);
    const saved = savedSessions(box);
    expect(saved).toContain('"type":"run_end"');
    expect(saved).toContain(maskedURL());
    expectNoSecrets(run.stdout, run.stderr, saved);
  });

  test("401 quoting the key and the URL: stream-json and -v logs stay clean", async () => {
    using box = new Sandbox();
    await box.writeConfig(gatewayConfig());
    server.enqueue({
      status: 401,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ error: { message: `key ${KEY} is not valid for ${secretURL()}` } }),
    });
    const run = await box.run(["run", "-v", "-o", "stream-json", "hi"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('"subtype":"error_during_execution"');
    expect(run.stdout).toContain(`is not valid for ${maskedURL()}`);
    expectNoSecrets(run.stdout, run.stderr, savedSessions(box));
  });

  test("5xx after retries: the server's echo of the password is masked in every line", async () => {
    using box = new Sandbox();
    await box.writeConfig(gatewayConfig());
    for (let i = 0; i < 4; i++) {
      const reply = await errorReply("openai", 500, { retryAfterMs: 5 });
      server.enqueue({ ...reply, body: `upstream http://user:${PASSWORD}@10.0.0.1/ failed`, pathSuffix: "" });
    }
    const run = await box.run(["run", "-v", "-o", "json", "hi"]);
    expect(run.code).toBe(1);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).errors[0]).toContain(
      "upstream http://***@10.0.0.1/ failed",
    );
    expectNoSecrets(run.stdout, run.stderr, savedSessions(box));
  });
});

describe("commands that show the configuration", () => {
  test("ion providers (table and --json) shows the base URL without credentials", async () => {
    using box = new Sandbox();
    await box.writeConfig(gatewayConfig());
    const table = await box.run(["providers"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(maskedURL());
    const json = await box.run(["providers", "--json"]);
    const gw = (JSON.parse(json.stdout) as { id: string; base_url: string }[]).find((p) => p.id === "gw");
    expect(gw?.base_url).toBe(maskedURL());
    expectNoSecrets(table.stdout, table.stderr, json.stdout, json.stderr);
  });

  test("ion config show and get mask api_base credentials and secret headers, and keep the rest", async () => {
    using box = new Sandbox();
    await box.writeConfig(gatewayConfig());
    const show = await box.run(["config", "show"]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/providers\.gw\.headers\.x-gateway-key +"…cret"/);
    expect(show.stdout).toMatch(/providers\.gw\.headers\.X-Title +"ion-e2e"/);
    expect(show.stdout).toContain(`"${maskedURL()}"`);
    const json = await box.run(["config", "show", "--json"]);
    const base = await box.run(["config", "get", "providers.gw.api_base"]);
    expect(base.stdout).toBe(`${maskedURL()}\n`);
    const entry = await box.run(["config", "get", "providers.gw"]);
    expect(JSON.parse(entry.stdout)).toEqual({
      api_key: "sk-…wxyz",
      api_base: maskedURL(),
      headers: { "x-gateway-key": "…cret", "X-Title": "ion-e2e" },
    });
    expectNoSecrets(show.stdout, show.stderr, json.stdout, base.stdout, entry.stdout, entry.stderr);
  });

  test("ion config set echoes header values and URL credentials masked, and writes them as given", async () => {
    using box = new Sandbox();
    await box.writeConfig({
      model: "gw/test-model",
      providers: { gw: { api_base: "http://127.0.0.1:9/v1" } },
    });
    const headers = await box.run([
      "config",
      "set",
      "providers.gw.headers",
      JSON.stringify({ "x-gateway-key": GATEWAY_KEY, authorization: `Bearer ${BEARER}`, "X-Title": "t" }),
    ]);
    expect(headers.code).toBe(0);
    expect(headers.stdout).toStartWith(
      'providers.gw.headers = {"x-gateway-key":"…cret","authorization":"Bearer …qrst","X-Title":"t"}',
    );
    const one = await box.run(["config", "set", "providers.gw.headers.x-api-key", GATEWAY_KEY]);
    expect(one.stdout).toStartWith('providers.gw.headers.x-api-key = "…cret"');
    const base = await box.run(["config", "set", "providers.gw.api_base", secretURL()]);
    expect(base.stdout).toStartWith(`providers.gw.api_base = "${maskedURL()}"`);
    expectNoSecrets(headers.stdout, headers.stderr, one.stdout, base.stdout, base.stderr);
    const written = JSON.parse(readFileSync(join(box.configDir, "config.json"), "utf8"));
    expect(written.providers.gw.headers["x-gateway-key"]).toBe(GATEWAY_KEY);
    expect(written.providers.gw.api_base).toBe(secretURL());
  });
});

describe("-v logs of each wire", () => {
  const WIRES: Wire[] = ["mistral", "openai", "anthropic"];
  for (const wire of WIRES) {
    test(`${wire}: configured headers and the key are masked in the SDK's debug output`, async () => {
      using box = new Sandbox();
      // The query string would not survive every SDK's URL joining: these wires get user info only.
      const withPassword = server.url.replace("http://", `http://user:${PASSWORD}@`);
      const config = gatewayConfig(wire, {
        api_base: wire === "openai" ? `${withPassword}/v1` : withPassword,
        headers: { ...HEADERS, authorization: `Bearer ${BEARER}` },
      });
      await box.writeConfig(config);
      server.enqueueReply(wire, { text: "fine" });
      const run = await box.run(["run", "-v", "hi"]);
      expect(run.stdout).toBe("fine\n");
      expect(run.code).toBe(0);
      expect(server.requests.at(-1)?.path).toEndWith(wirePathSuffix(wire));
      expectNoSecrets(run.stdout, run.stderr, savedSessions(box));
      if (wire === "mistral") expect(run.stderr).toContain("x-gateway-key: …cret");
    });
  }
});
