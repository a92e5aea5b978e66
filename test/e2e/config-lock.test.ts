/**
 * End to end: `ion config set` run many at once keeps every write (the file's lock serialises the
 * read-modify-write), waits for a live holder of the lock, and takes over the lock of a dead one.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";

const KEYS = Array.from({ length: 16 }, (_, i) => `providers.p${i}.api_base`);

describe("config writes under a lock", () => {
  test("16 parallel sets on different keys: every one exits 0 and every key is kept", async () => {
    using box = new Sandbox();
    const runs = await Promise.all(
      KEYS.map((key, i) => box.run(["config", "set", key, `http://127.0.0.1:${9000 + i}/v1`])),
    );
    for (const run of runs) {
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
    }
    const saved = JSON.parse(readFileSync(join(box.configDir, "config.json"), "utf8"));
    expect(Object.keys(saved.providers).sort()).toEqual(KEYS.map((k) => k.split(".")[1]!).sort());
    expect(existsSync(join(box.configDir, "config.json.lock"))).toBe(false);
  });

  test("6 parallel key saves to keys.json are all kept", async () => {
    using box = new Sandbox();
    const ids = ["openai", "anthropic", "google", "mistral", "openrouter", "groq"];
    const runs = await Promise.all(
      ids.map((id, i) =>
        box.run(["config", "set", `providers.${id}.api_key`, "-"], { stdin: `sk-fake-${i}-000000000000\n` }),
      ),
    );
    for (const run of runs) {
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
    }
    const keys = JSON.parse(readFileSync(join(box.configDir, "keys.json"), "utf8"));
    expect(Object.keys(keys).sort()).toEqual([...ids].sort());
  });

  test("a set waits while a live process holds the lock, then succeeds", async () => {
    using box = new Sandbox();
    const lock = join(box.configDir, "config.json.lock");
    // This test's own process is a live holder.
    writeFileSync(lock, `${process.pid}\n`);
    const started = Date.now();
    const child = box.spawn(["config", "set", "context_window", "64000"]);
    await Bun.sleep(700);
    expect(existsSync(join(box.configDir, "config.json"))).toBe(false); // still waiting, nothing written
    rmSync(lock);
    const code = await child.exited;
    expect(code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    expect(JSON.parse(readFileSync(join(box.configDir, "config.json"), "utf8"))).toEqual({
      context_window: 64000,
    });
  });

  test("the stale lock of a dead process is taken over", async () => {
    using box = new Sandbox();
    const dead = Bun.spawnSync(["true"]).pid; // exited and reaped: no longer running
    writeFileSync(join(box.configDir, "config.json.lock"), `${dead} 1\n`);
    const run = await box.run(["config", "set", "context_window", "32000"], { timeoutMs: 5000 });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(existsSync(join(box.configDir, "config.json.lock"))).toBe(false);
  });
});
