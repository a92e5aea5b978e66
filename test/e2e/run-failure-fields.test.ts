/**
 * End to end: a failed `ion run` says why in fields (`error_kind`, `api_error_status`), in one stderr
 * line (plus at most one `hint:` line), and names a session that exists — the prompt kept in it.
 */
import { describe, expect, test } from "bun:test";
import { SessionStore } from "../../src/history/store.ts";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { AnyResultSchema, parseStreamJson, ResultSchema } from "../support/output-schemas.ts";
import { dropMidStream, errorReply } from "../support/wire-scripts.ts";

const KEY = "sk-test-failure-fields-0000000000abcd";
const { server, env } = useOpenAIServer(KEY);
const MODEL = ["-m", "openai/gpt-4o-mini"];

/** stderr is `ion: …` and at most one `  hint: …` line. */
function expectOneErrorLine(stderr: string, message: string): void {
  const lines = stderr.trimEnd().split("\n");
  expect(lines[0]).toStartWith("ion: ");
  expect(lines[0]).toContain(message);
  expect(lines.length).toBeLessThanOrEqual(2);
  if (lines[1] !== undefined) expect(lines[1]).toStartWith("  hint: ");
}

/** `ion sessions show ID`: the session exists and holds the prompt and the failed run's end. */
async function expectSavedPrompt(box: Sandbox, id: string, prompt: string): Promise<void> {
  const show = await box.run(["sessions", "show", id], { env });
  expect(show.code).toBe(0);
  expect(show.stdout).toContain(prompt);
  expect(show.stdout).toContain("run end #1: error_during_execution");
}

describe("error_kind and api_error_status", () => {
  test("401: auth, status 401, in -o json and in the saved run end", async () => {
    using box = new Sandbox();
    server.enqueue({ ...(await errorReply("openai", 401)), pathSuffix: "/chat/completions" });
    const run = await box.run(["run", ...MODEL, "-o", "json", "hi"], { env });
    expect(run.code).toBe(1);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({ is_error: true, error_kind: "auth", api_error_status: 401 });
    const saved = await SessionStore.forDataDir(box.dataDir).load(result.session_id);
    const end = saved.entries.find((entry) => entry.type === "run_end");
    expect(end).toMatchObject({ error_kind: "auth", api_error_status: 401 });
  });

  test("429 on every attempt: rate_limit, status 429, in stream-json", async () => {
    using box = new Sandbox();
    for (let i = 0; i < 4; i++)
      server.enqueue({
        ...(await errorReply("openai", 429, { retryAfterMs: 5 })),
        pathSuffix: "/chat/completions",
      });
    const run = await box.run(["run", ...MODEL, "-o", "stream-json", "hi"], { env });
    expect(run.code).toBe(1);
    const { result } = parseStreamJson(jsonLines(run.stdout));
    expect(result).toMatchObject({ error_kind: "rate_limit", api_error_status: 429 });
  });

  test("a dropped stream: stream_dropped, no status, the partial text in result", async () => {
    using box = new Sandbox();
    server.enqueue(dropMidStream("openai", { text: "This answer will be cut off before it ends, sadly." }));
    const run = await box.run(["run", ...MODEL, "-o", "json", "hi"], { env });
    expect(run.code).toBe(1);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.error_kind).toBe("stream_dropped");
    expect(result.api_error_status).toBeUndefined();
    expect(result.result).toStartWith("This answer");
  });

  test("success carries neither field", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "fine" });
    const run = await box.run(["run", ...MODEL, "-o", "json", "hi"], { env });
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.is_error).toBe(false);
    expect("error_kind" in result || "api_error_status" in result).toBe(false);
  });
});

describe("failures before the run: one line, a session that exists", () => {
  test("-f /nonexistent: io, one line, the prompt saved in the named session", async () => {
    using box = new Sandbox();
    const run = await box.run(["run", ...MODEL, "-o", "json", "-f", "/nonexistent", "keep this prompt"], {
      env,
    });
    expect(run.code).toBe(1);
    expectOneErrorLine(run.stderr, "cannot read /nonexistent");
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.error_kind).toBe("io");
    await expectSavedPrompt(box, result.session_id, "keep this prompt");
  });

  test("a bad -m: usage, one line and a hint, the prompt saved; -c afterwards uses the configured model", async () => {
    using box = new Sandbox();
    const run = await box.run(["run", "-m", "nope/x", "-o", "stream-json", "typed with a typo"], { env });
    expect(run.code).toBe(64);
    expectOneErrorLine(run.stderr, 'unknown provider "nope"');
    const lines = jsonLines(run.stdout);
    expect(lines).toHaveLength(1);
    const result = ResultSchema.parse(lines[0]);
    expect(result.error_kind).toBe("usage");
    await expectSavedPrompt(box, result.session_id, "typed with a typo");
    // The saved session records no model: continuing it takes -m (or the configured one), not "nope".
    server.enqueueReply("openai", { text: "continued" });
    const next = await box.run(["run", ...MODEL, "-c", "-o", "json", "again"], { env });
    expect(ResultSchema.parse(JSON.parse(next.stdout))).toMatchObject({
      session_id: result.session_id,
      result: "continued",
    });
  });

  test("no model configured: config, errors[0] one line, stderr one line and a hint", async () => {
    using box = new Sandbox();
    const run = await box.run(["run", "-o", "json", "hi"], { env });
    expect(run.code).toBe(1);
    expectOneErrorLine(run.stderr, "no model configured");
    expect(run.stderr).toContain("hint: run `ion config set model openai/MODEL`");
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.error_kind).toBe("config");
    expect(result.errors[0]).not.toContain("\n");
    await expectSavedPrompt(box, result.session_id, "hi");
  });

  test("an unknown option: usage, one line and a hint, no session (null)", async () => {
    using box = new Sandbox();
    const run = await box.run(["run", "--bogus", "-o", "json", "hi"], { env });
    expect(run.code).toBe(64);
    expectOneErrorLine(run.stderr, "unknown option --bogus");
    const result = AnyResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({ session_id: null, error_kind: "usage" });
  });

  test("no prompt: one line and a hint, no session (null)", async () => {
    using box = new Sandbox();
    const run = await box.run(["run", ...MODEL, "-o", "json"], { env });
    expect(run.code).toBe(64);
    expectOneErrorLine(run.stderr, "no prompt given");
    expect(AnyResultSchema.parse(JSON.parse(run.stdout)).session_id).toBeNull();
  });
});
