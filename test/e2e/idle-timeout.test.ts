/**
 * End to end: a server that stops sending without closing. `network.idle_timeout_s` (1 s here, so the
 * tests stay fast) bounds the wait; silence before any content is retried, silence after content ends
 * the run with one error line and `error_during_execution`.
 */
import { describe, expect, test } from "bun:test";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { ApiRetrySchema, parseStreamJson, ResultSchema } from "../support/output-schemas.ts";
import { stallMidStream, wirePathSuffix } from "../support/wire-scripts.ts";

const KEY = "sk-test-idle-e2e-key-00000000000000abcd";
const { server, env } = useOpenAIServer(KEY);
const MODEL = ["-m", "openai/gpt-4o-mini"];

async function withIdleTimeout(box: Sandbox, seconds: unknown): Promise<void> {
  await box.writeConfig({ network: { idle_timeout_s: seconds } });
}

describe("network.idle_timeout_s", () => {
  test("silence after content: exit 1, error_during_execution, one line naming the provider and seconds", async () => {
    using box = new Sandbox();
    await withIdleTimeout(box, 1);
    server.enqueue(stallMidStream("openai", { text: "This answer stops half way and never ends" }));
    const before = server.requests.length;
    const started = performance.now();
    const run = await box.run(["run", ...MODEL, "-o", "json", "hi"], { env });
    const elapsed = performance.now() - started;
    expect(run.code).toBe(1);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({ subtype: "error_during_execution", is_error: true });
    expect(result.errors).toEqual(["openai stopped sending for 1 s"]);
    expect(run.stderr).toContain("ion: openai stopped sending for 1 s");
    // Content had been shown: no retry.
    expect(server.requests.length - before).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(10_000);
  });

  test("silence before the first byte: retried (an api_retry line), then the answer", async () => {
    using box = new Sandbox();
    await withIdleTimeout(box, 1);
    server.enqueue({ stallBeforeHeaders: true, pathSuffix: wirePathSuffix("openai") });
    server.enqueueReply("openai", { text: "second attempt answered" });
    const before = server.requests.length;
    const run = await box.run(["run", ...MODEL, "-o", "stream-json", "hi"], { env });
    expect(run.code).toBe(0);
    const { middle, result } = parseStreamJson(jsonLines(run.stdout));
    const retries = middle.filter((l) => l.type === "system").map((l) => ApiRetrySchema.parse(l));
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1 });
    expect(result).toMatchObject({ subtype: "success", result: "second attempt answered", num_turns: 1 });
    expect(server.requests.length - before).toBe(2);
  });

  test("an invalid value is a clear configuration error, before any request", async () => {
    using box = new Sandbox();
    await withIdleTimeout(box, "2 minutes");
    const before = server.requests.length;
    const run = await box.run(["run", ...MODEL, "hi"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("network.idle_timeout_s: expected number, received string");
    expect(server.requests.length).toBe(before);
  });
});
