/**
 * End to end: `ion providers` lists where each key comes from (never the key), and
 * `ion providers login|logout` store and remove keys in keys.json.
 */
import { describe, expect, test } from "bun:test";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { Sandbox } from "../support/cli.ts";

const ENV_KEY = "sk-test-providers-ENVKEY-000000000001";
const CONFIG_KEY = "sk-test-providers-CONFIGKEY-00000002";
const FILE_KEY = "sk-test-providers-FILEKEY-0000000003";
const LOGIN_KEY = "sk-test-providers-LOGINKEY-000000004";
const SECRETS = [ENV_KEY, CONFIG_KEY, FILE_KEY, LOGIN_KEY];

const ProviderItem = z.strictObject({
  id: z.string(),
  name: z.string(),
  wire: z.enum(["openai", "anthropic", "mistral", "ollama"]),
  builtin: z.boolean(),
  base_url: z.string().nullable(),
  auth: z.string().nullable(),
  error: z.string().nullable(),
});

function expectNoSecrets(text: string): void {
  for (const secret of SECRETS) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(-12)); // nor a recognisable tail of one
  }
}

/** Rows of the plain table, keyed by provider id, as arrays of cells split on runs of 2+ spaces. */
function tableRows(stdout: string): Map<string, string[]> {
  const lines = stdout.trimEnd().split("\n");
  return new Map(lines.slice(1).map((line) => [line.split(/\s{2,}/)[0]!, line.split(/\s{2,}/)]));
}

/** A sandbox with one key from each source: env (openai), config (anthropic), keys.json (mistral). */
async function sourcesBox(box: Sandbox): Promise<Record<string, string>> {
  await box.writeConfig({
    providers: {
      anthropic: { api_key: CONFIG_KEY },
      lab: { type: "openai-compatible", name: "Lab vLLM", api_base: "http://127.0.0.1:9/v1" },
    },
  });
  await box.writeConfig({ mistral: FILE_KEY }, "keys.json");
  Bun.spawnSync(["chmod", "600", join(box.configDir, "keys.json")]);
  return { OPENAI_API_KEY: ENV_KEY, OLLAMA_HOST: "127.0.0.1:5555" };
}

describe("ion providers", () => {
  test("lists every built-in and configured provider with its key's source, never the key", async () => {
    using box = new Sandbox();
    const env = await sourcesBox(box);
    const run = await box.run(["providers"], { env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expectNoSecrets(run.stdout + run.stderr);
    expect(run.stdout).not.toContain("\x1b");
    const [header] = run.stdout.split("\n");
    expect(header).toMatch(/^ID\s+NAME\s+WIRE\s+BASE URL\s+AUTH$/);
    const rows = tableRows(run.stdout);
    expect([...rows.keys()]).toEqual([
      "openai",
      "anthropic",
      "google",
      "mistral",
      "ollama",
      "openrouter",
      "groq",
      "lab",
    ]);
    expect(rows.get("openai")).toEqual([
      "openai",
      "OpenAI",
      "openai",
      "https://api.openai.com/v1",
      "env OPENAI_API_KEY",
    ]);
    expect(rows.get("anthropic")).toEqual([
      "anthropic",
      "Anthropic",
      "anthropic",
      "https://api.anthropic.com",
      "config",
    ]);
    expect(rows.get("mistral")?.at(-1)).toBe("keys.json");
    expect(rows.get("google")?.at(-1)).toBe("none");
    expect(rows.get("ollama")).toEqual([
      "ollama",
      "Ollama",
      "ollama",
      "http://127.0.0.1:5555/v1",
      "not needed",
    ]);
    expect(rows.get("lab")).toEqual(["lab", "Lab vLLM", "openai", "http://127.0.0.1:9/v1", "none"]);
    // columns line up: every row's BASE URL starts where the header's does
    const at = header!.indexOf("BASE URL");
    for (const line of run.stdout.trimEnd().split("\n").slice(1)) expect(line.slice(at)).toMatch(/^\S/);
  });

  test("--json gives the same facts as objects, still without keys", async () => {
    using box = new Sandbox();
    const env = await sourcesBox(box);
    const run = await box.run(["providers", "--json"], { env });
    expect(run.code).toBe(0);
    expectNoSecrets(run.stdout + run.stderr);
    const items = z.array(ProviderItem).parse(JSON.parse(run.stdout));
    const byId = new Map(items.map((item) => [item.id, item]));
    expect(byId.get("openai")).toEqual({
      id: "openai",
      name: "OpenAI",
      wire: "openai",
      builtin: true,
      base_url: "https://api.openai.com/v1",
      auth: "env OPENAI_API_KEY",
      error: null,
    });
    expect(byId.get("anthropic")?.auth).toBe("config");
    expect(byId.get("mistral")?.auth).toBe("keys.json");
    expect(byId.get("ollama")?.auth).toBe("not needed");
    expect(byId.get("lab")).toMatchObject({ builtin: false, name: "Lab vLLM", auth: "none" });
    // `ion providers list --json` is the same command
    const list = await box.run(["providers", "list", "--json"], { env });
    expect(list.stdout).toBe(run.stdout);
  });

  test("a custom provider without api_base is listed with a warning, not a failure", async () => {
    using box = new Sandbox();
    await box.writeConfig({ providers: { broken: { type: "openai-compatible" } } });
    const run = await box.run(["providers"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('provider "broken" has no api_base');
    expect(tableRows(run.stdout).get("broken")).toEqual(["broken", "broken", "openai", "-", "-"]);
  });

  test("unknown subcommands and flags are usage errors", async () => {
    using box = new Sandbox();
    for (const args of [
      ["providers", "bogus"],
      ["providers", "--bogus"],
      ["providers", "--json", "login", "x"],
    ]) {
      const run = await box.run(args);
      expect(run.code).toBe(64);
      expect(run.stderr).toStartWith("ion: ");
    }
  });
});

describe("ion providers login / logout", () => {
  test("login reads the key from stdin, stores it 0600, and the listing then says keys.json", async () => {
    using box = new Sandbox();
    const keysFile = join(box.configDir, "keys.json");
    const login = await box.run(["providers", "login", "groq"], { stdin: `  ${LOGIN_KEY}  \nsecond line\n` });
    expect(login.stderr).toBe("");
    expect(login.code).toBe(0);
    expect(login.stdout).toBe(`saved the key for groq to ${keysFile}\n`);
    expectNoSecrets(login.stdout + login.stderr);
    expect((await stat(keysFile)).mode & 0o777).toBe(0o600);
    expect(await Bun.file(keysFile).json()).toEqual({ groq: LOGIN_KEY });

    const list = await box.run(["providers"]);
    expect(tableRows(list.stdout).get("groq")?.at(-1)).toBe("keys.json");
    expectNoSecrets(list.stdout + list.stderr);

    const logout = await box.run(["providers", "logout", "groq"]);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toBe(`removed the key for groq from ${keysFile}\n`);
    expect(await Bun.file(keysFile).json()).toEqual({});
    expect((await stat(keysFile)).mode & 0o777).toBe(0o600);
    const after = await box.run(["providers"]);
    expect(tableRows(after.stdout).get("groq")?.at(-1)).toBe("none");
  });

  test("login keeps the other stored keys and replaces this provider's", async () => {
    using box = new Sandbox();
    await box.writeConfig({ mistral: FILE_KEY, groq: "sk-old-key-to-be-replaced" }, "keys.json");
    Bun.spawnSync(["chmod", "600", join(box.configDir, "keys.json")]);
    const run = await box.run(["providers", "login", "groq"], { stdin: `${LOGIN_KEY}\n` });
    expect(run.code).toBe(0);
    expect(await Bun.file(join(box.configDir, "keys.json")).json()).toEqual({
      mistral: FILE_KEY,
      groq: LOGIN_KEY,
    });
  });

  test("login says when a config key still takes precedence", async () => {
    using box = new Sandbox();
    await box.writeConfig({ providers: { anthropic: { api_key: CONFIG_KEY } } });
    const run = await box.run(["providers", "login", "anthropic"], { stdin: `${LOGIN_KEY}\n` });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("anthropic's key still comes from the api_key in ion's config");
    expectNoSecrets(run.stdout + run.stderr);
  });

  test("empty input, a missing id and an unknown provider are errors; nothing is written", async () => {
    using box = new Sandbox();
    const keysFile = join(box.configDir, "keys.json");
    const empty = await box.run(["providers", "login", "openai"], { stdin: `   \n${LOGIN_KEY}` });
    expect(empty.code).toBe(64);
    expect(empty.stderr).toContain("no key given for openai");
    const closed = await box.run(["providers", "login", "openai"]); // stdin is /dev/null
    expect(closed.code).toBe(64);
    const missing = await box.run(["providers", "login"], { stdin: `${LOGIN_KEY}\n` });
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain("needs a provider id");
    const unknown = await box.run(["providers", "login", "nope"], { stdin: `${LOGIN_KEY}\n` });
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('unknown provider "nope"');
    expect(unknown.stderr).toContain("openai, anthropic, google");
    expect(await Bun.file(keysFile).exists()).toBe(false);
    const logoutUnknown = await box.run(["providers", "logout", "nope"]);
    expect(logoutUnknown.code).toBe(64);
  });

  test("logout without a stored key is a friendly line and exit 0; it names a key still in the env", async () => {
    using box = new Sandbox();
    const run = await box.run(["providers", "logout", "openai"], { env: { OPENAI_API_KEY: ENV_KEY } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`no key for openai in ${join(box.configDir, "keys.json")}`);
    expect(run.stderr).toContain("openai's key still comes from $OPENAI_API_KEY");
    expectNoSecrets(run.stdout + run.stderr);
  });

  test("logout removes a key stored for a provider that is no longer configured", async () => {
    using box = new Sandbox();
    await box.writeConfig({ gone: "sk-key-of-a-removed-provider", groq: LOGIN_KEY }, "keys.json");
    Bun.spawnSync(["chmod", "600", join(box.configDir, "keys.json")]);
    const run = await box.run(["providers", "logout", "gone"]);
    expect(run.code).toBe(0);
    expect(await Bun.file(join(box.configDir, "keys.json")).json()).toEqual({ groq: LOGIN_KEY });
  });
});
