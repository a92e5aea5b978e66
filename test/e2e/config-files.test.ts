/**
 * End to end: the files ion writes in its config directory are private — the directory is created
 * 0700, config.json and keys.json 0600 — and a config.json holding a key that other accounts can read
 * is pointed out with the chmod that fixes it.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type IonRun, Sandbox } from "../support/cli.ts";

const KEY = "sk-test-config-files-key-00000000abcd";

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** A config directory that does not exist yet, as on a first run. */
function freshConfigDir(box: Sandbox): { dir: string; env: Record<string, string> } {
  const dir = join(box.root, "fresh", "ion");
  return { dir, env: box.env({ ION_CONFIG_DIR: dir }) };
}

function warningsOf(run: IonRun): string[] {
  return run.stderr.split("\n").filter((line) => line.startsWith("ion: warning: "));
}

describe("files ion writes in its config directory", () => {
  test("config set into a fresh config directory: directory 0700, config.json 0600", async () => {
    using box = new Sandbox();
    const { dir, env } = freshConfigDir(box);
    const run = await box.run(["config", "set", "model", "openai/gpt-4o"], { env });
    expect(run.code).toBe(0);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, "config.json"))).toBe(0o600);
  });

  test("the first providers login into a fresh config directory: directory 0700, keys.json 0600", async () => {
    using box = new Sandbox();
    const { dir, env } = freshConfigDir(box);
    const run = await box.run(["providers", "login", "openai"], { env, stdin: `${KEY}\n` });
    expect(run.code).toBe(0);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, "keys.json"))).toBe(0o600);
  });

  test("an existing 0644 config.json becomes 0600 once a secret header is written to it", async () => {
    using box = new Sandbox();
    const file = await box.writeConfig({
      model: "gw/m",
      providers: { gw: { api_base: "http://127.0.0.1:9/v1" } },
    });
    chmodSync(file, 0o644);
    const plain = await box.run(["config", "set", "thinking", "high"]);
    expect(plain.code).toBe(0);
    expect(modeOf(file)).toBe(0o644); // nothing secret in it: the user's mode stays
    const secret = await box.run([
      "config",
      "set",
      "providers.gw.headers.x-gateway-key",
      "gateway-secret-0000",
    ]);
    expect(secret.code).toBe(0);
    expect(modeOf(file)).toBe(0o600);
  });
});

describe("a config.json holding a key that others can read", () => {
  test("is named in one warning with the chmod that fixes it", async () => {
    using box = new Sandbox();
    const file = await box.writeConfig({ model: "openai/gpt-4o", providers: { openai: { api_key: KEY } } });
    chmodSync(file, 0o644);
    const run = await box.run(["config", "show"]);
    expect(run.code).toBe(0);
    expect(warningsOf(run)).toEqual([
      `ion: warning: ${file} is readable by other users (mode 644); run: chmod 600 ${file}`,
    ]);
    expect(run.stderr).not.toContain(KEY);
  });

  test("a top-level api_key or a secret header counts as a key too", async () => {
    using box = new Sandbox();
    for (const config of [
      { model: "openai/gpt-4o", api_key: KEY },
      {
        model: "gw/m",
        providers: { gw: { api_base: "http://127.0.0.1:9/v1", headers: { authorization: "Bearer x" } } },
      },
    ]) {
      const file = await box.writeConfig(config);
      chmodSync(file, 0o640);
      const run = await box.run(["providers"]);
      expect(warningsOf(run)).toEqual([
        `ion: warning: ${file} is readable by other users (mode 640); run: chmod 600 ${file}`,
      ]);
    }
  });

  test("no warning when the file is private, or holds no secret", async () => {
    using box = new Sandbox();
    const file = await box.writeConfig({ model: "openai/gpt-4o", providers: { openai: { api_key: KEY } } });
    chmodSync(file, 0o600);
    expect(warningsOf(await box.run(["config", "show"]))).toEqual([]);
    writeFileSync(file, JSON.stringify({ model: "openai/gpt-4o", thinking: "low" }));
    chmodSync(file, 0o644);
    expect(warningsOf(await box.run(["config", "show"]))).toEqual([]);
  });
});
