/**
 * End to end: `ion config set model|provider` checks the value as a run would read it. A model no run
 * could use (no provider, an unknown one) is refused with one line and a hint, and the file stays
 * byte for byte as it was; a bare model is fine once `provider` names one.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";

function errorLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("ion: "));
}

describe("ion config set model", () => {
  test("a model without a provider, or with an unknown one, is refused and the file left alone", async () => {
    using box = new Sandbox();
    const file = await box.writeConfig({ model: "openai/gpt-4o-mini", thinking: "low" });
    const before = readFileSync(file, "utf8");
    const bare = await box.run(["config", "set", "model", "gpt-4o"]);
    expect(bare.code).toBe(1);
    expect(errorLines(bare.stderr)).toEqual([
      'ion: cannot set model: model "gpt-4o" does not name a provider',
    ]);
    expect(bare.stderr).toContain("`ion config set model <provider>/gpt-4o`");
    const unknown = await box.run(["config", "set", "model", "nosuch/x"]);
    expect(unknown.code).toBe(1);
    expect(errorLines(unknown.stderr)).toHaveLength(1);
    expect(unknown.stderr).toContain('ion: cannot set model: unknown provider "nosuch"');
    const provider = await box.run(["config", "set", "provider", "opnai"]);
    expect(provider.code).toBe(1);
    expect(provider.stderr).toContain(
      'ion: cannot set provider: unknown provider "opnai"\n  hint: did you mean openai?',
    );
    expect(readFileSync(file, "utf8")).toBe(before);
    // A later run still works from the file as it was (it fails only for want of a key).
    const run = await box.run(["run", "--no-session", "hi"]);
    expect(run.stderr).not.toContain("does not name a provider");
    expect(run.stderr).not.toContain("unknown provider");
  });

  test("provider/model, a configured provider, or a bare model under `provider` are accepted", async () => {
    using box = new Sandbox();
    expect((await box.run(["config", "set", "model", "anthropic/claude-sonnet-4-5"])).code).toBe(0);
    expect((await box.run(["config", "set", "provider", "groq"])).code).toBe(0);
    expect((await box.run(["config", "set", "model", "llama-3.3-70b-versatile"])).code).toBe(0);
    const local = '{"type":"openai-compatible","api_base":"http://127.0.0.1:9/v1"}';
    expect((await box.run(["config", "set", "providers.local", local])).code).toBe(0);
    expect((await box.run(["config", "set", "model", "local/qwen"])).code).toBe(0);
    const saved = JSON.parse(readFileSync(join(box.configDir, "config.json"), "utf8"));
    expect(saved).toMatchObject({ provider: "groq", model: "local/qwen" });
  });
});
