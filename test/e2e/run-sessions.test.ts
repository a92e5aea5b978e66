/**
 * End to end: `ion run` saves every run into a session and continues it — including failed and
 * interrupted runs, corrupt files, concurrent use, and compaction with a tiny context window.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zstdDecode } from "../history/support/fixtures.ts";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { parseStreamJson, ResultSchema } from "../support/output-schemas.ts";
import { errorReply, stallMidStream } from "../support/wire-scripts.ts";

const KEY = "sk-test-sessions-key-0000000000000777";
const MODEL = ["-m", "openai/gpt-4o-mini"];
const { server, env } = useOpenAIServer(KEY);

/** Decodes a session file as a user would, with the zstd CLI (CI has it; Bun's libzstd stands in elsewhere). */
function decode(box: Sandbox, id: string): Record<string, unknown>[] {
  const path = join(box.dataDir, "sessions", `${id}.jsonl.zst`);
  return jsonLines(zstdDecode(path));
}

type Body = { messages: { role: string; content: unknown }[] };
const lastBody = () => server.requests.at(-1)?.body as Body;

describe("every run is saved", () => {
  test("a run's session file decodes with zstd -dc to the documented JSON Lines", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Paris.", usage: { input: 11, output: 2 } });
    const run = await box.run(["run", ...MODEL, "-o", "json", "Capital of France?\nAnswer briefly."], {
      env,
    });
    expect(run.code).toBe(0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(box.sessionFiles()).toEqual([`${result.session_id}.jsonl.zst`]);
    const lines = decode(box, result.session_id);
    expect(lines[0]).toMatchObject({
      type: "session",
      version: 1,
      id: result.session_id,
      cwd: box.workspace,
      provider: "openai",
      model: "gpt-4o-mini",
      title: "Capital of France?",
    });
    expect(lines.slice(1).map((l) => [l.type, (l.message as { role?: string } | undefined)?.role])).toEqual([
      ["message", "user"],
      ["message", "assistant"],
      ["run_end", undefined],
    ]);
    expect(lines[2]).toMatchObject({
      stop_reason: "end_turn",
      usage: { input_tokens: 11, output_tokens: 2 },
    });
    expect(lines[3]).toMatchObject({ subtype: "success", num_turns: 1 });
  });

  test("--no-session leaves no file", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "ok" });
    const run = await box.run(["run", ...MODEL, "--no-session", "hi"], { env });
    expect(run.code).toBe(0);
    expect(box.sessionFiles()).toEqual([]);
  });

  test("a failed run still saves what the user typed", async () => {
    using box = new Sandbox();
    server.enqueue({ ...(await errorReply("openai", 401)), pathSuffix: "/chat/completions" });
    const run = await box.run(["run", ...MODEL, "-o", "json", "please remember this prompt"], { env });
    expect(run.code).toBe(1);
    const { session_id } = ResultSchema.parse(JSON.parse(run.stdout));
    const lines = decode(box, session_id);
    expect(JSON.stringify(lines[1])).toContain("please remember this prompt");
    expect(lines.at(-1)).toMatchObject({ type: "run_end", subtype: "error_during_execution" });
  });

  test("an interrupted run keeps the prompt and the partial answer", async () => {
    using box = new Sandbox();
    server.enqueue(stallMidStream("openai", { text: "The first words arrive and then nothing" }));
    const before = server.requests.length;
    const child = box.spawn(["run", ...MODEL, "-o", "json", "tell me a long story"], { env });
    await server.waitForRequests(before + 1, 10_000);
    await Bun.sleep(200);
    child.kill("SIGINT");
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(code).toBe(2);
    const { session_id } = ResultSchema.parse(JSON.parse(stdout));
    const lines = decode(box, session_id);
    expect(JSON.stringify(lines)).toContain("tell me a long story");
    const assistant = lines.find((l) => (l.message as { role?: string } | undefined)?.role === "assistant");
    expect(assistant).toMatchObject({ stop_reason: null });
    expect(JSON.stringify(assistant)).toContain("The first");
    expect(lines.at(-1)).toMatchObject({ type: "run_end", subtype: "error_interrupted" });
  });
});

describe("continuing sessions", () => {
  test("-c sends the previous exchange; the session id stays the same", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Your name is Ada." });
    const first = await box.run(["run", ...MODEL, "-o", "json", "My name is Ada."], { env });
    const id = ResultSchema.parse(JSON.parse(first.stdout)).session_id;
    server.enqueueReply("openai", { text: "Ada." });
    const second = await box.run(["run", ...MODEL, "-c", "-o", "json", "What is my name?"], { env });
    expect(second.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(second.stdout)).session_id).toBe(id);
    const sent = lastBody().messages.map((m) => [m.role, JSON.stringify(m.content)]);
    expect(sent.map(([role]) => role)).toEqual(["system", "user", "assistant", "user"]);
    expect(sent[1]?.[1]).toContain("My name is Ada.");
    expect(sent[2]?.[1]).toContain("Your name is Ada.");
    expect(box.sessionFiles()).toHaveLength(1);
  });

  test("-c and -r keep the session's model when no -m is given and none is configured", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Noted." });
    const first = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "Remember 42."], { env });
    const id = ResultSchema.parse(JSON.parse(first.stdout)).session_id;
    server.enqueueReply("openai", { text: "42." });
    const second = await box.run(["run", "-c", "-o", "json", "What number?"], { env });
    expect(second.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(second.stdout))).toMatchObject({ session_id: id, model: "gpt-4o" });
    expect((server.requests.at(-1)!.body as { model: string }).model).toBe("gpt-4o");
    server.enqueueReply("openai", { text: "Still 42." });
    const third = await box.run(["run", "-r", id.slice(0, 12), "-m", "openai/gpt-4o-mini", "And now?"], {
      env,
    });
    expect(third.code).toBe(0);
    expect((server.requests.at(-1)!.body as { model: string }).model).toBe("gpt-4o-mini");
    const lines = decode(box, id);
    expect(lines.filter((l) => l.type === "model_change")).toEqual([
      expect.objectContaining({ provider: "openai", model: "gpt-4o-mini" }),
    ]);
  });

  test("-c in a directory without a session starts one and says so", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "fresh" });
    const run = await box.run(["run", ...MODEL, "-c", "hi"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("no earlier session in this directory; starting a new one");
    expect(box.sessionFiles()).toHaveLength(1);
  });

  test("-r takes an id prefix; unknown and ambiguous prefixes are usage errors", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "one" });
    server.enqueueReply("openai", { text: "two" });
    const a = ResultSchema.parse(
      JSON.parse((await box.run(["run", ...MODEL, "-o", "json", "first"], { env })).stdout),
    );
    await box.run(["run", ...MODEL, "-o", "json", "second"], { env });
    server.enqueueReply("openai", { text: "resumed" });
    const resumed = await box.run(["run", ...MODEL, "-r", a.session_id.slice(0, 30), "-o", "json", "again"], {
      env,
    });
    expect(resumed.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(resumed.stdout)).session_id).toBe(a.session_id);
    expect(JSON.stringify(lastBody().messages)).toContain("first");

    const missing = await box.run(["run", ...MODEL, "-r", "ffffffff", "x"], { env });
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain("no session matches ffffffff");
    const ambiguous = await box.run(["run", ...MODEL, "-r", a.session_id.slice(0, 2), "x"], { env });
    expect(ambiguous.code).toBe(64);
    // The failed `-r ffffffff x` kept its prompt in a session of its own: 3 ids now start alike.
    expect(ambiguous.stderr).toMatch(/matches 3 sessions/);
  });

  test("a corrupt session is moved aside, never overwritten, and a new session starts", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "saved" });
    const first = ResultSchema.parse(
      JSON.parse((await box.run(["run", ...MODEL, "-o", "json", "hello"], { env })).stdout),
    );
    const path = join(box.dataDir, "sessions", `${first.session_id}.jsonl.zst`);
    writeFileSync(path, "this is not zstd at all");
    server.enqueueReply("openai", { text: "new" });
    const run = await box.run(["run", ...MODEL, "-c", "-o", "json", "continue"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("moved it to");
    const moved = readdirSync(join(box.dataDir, "sessions")).filter((f) => f.includes(".corrupt-"));
    expect(moved).toHaveLength(1);
    expect(await Bun.file(join(box.dataDir, "sessions", moved[0]!)).text()).toBe("this is not zstd at all");
    expect(ResultSchema.parse(JSON.parse(run.stdout)).session_id).not.toBe(first.session_id);
  });

  test("a second ion process on the same session is refused with a clear message", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "first" });
    const first = ResultSchema.parse(
      JSON.parse((await box.run(["run", ...MODEL, "-o", "json", "one"], { env })).stdout),
    );
    server.enqueue(stallMidStream("openai", { text: "holding the session open for a while" }));
    const before = server.requests.length;
    const holder = box.spawn(["run", ...MODEL, "-r", first.session_id, "two"], { env });
    await server.waitForRequests(before + 1, 10_000);
    const second = await box.run(["run", ...MODEL, "-r", first.session_id, "three"], { env });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("is in use by another ion process");
    holder.kill("SIGINT");
    expect(await holder.exited).toBe(2);
    // The interrupted holder released its lock and its turn was saved.
    const lines = decode(box, first.session_id);
    expect(JSON.stringify(lines)).toContain("two");
  });
});

describe("compaction", () => {
  test("a tiny context window compacts: a summary request, a smaller next request, originals kept", async () => {
    using box = new Sandbox();
    await box.writeConfig({ context_window: 800 });
    const long = "word ".repeat(120);
    server.enqueueReply("openai", { text: `First answer. ${long}` });
    await box.run(["run", ...MODEL, "--no-tools", `first question ${long}`], { env });
    server.enqueueReply("openai", { text: `Second answer. ${long}` });
    await box.run(["run", ...MODEL, "--no-tools", "-c", `second question ${long}`], { env });

    const before = server.requests.length;
    server.enqueueReply("openai", { text: "Summary: the user asked two long questions." });
    server.enqueueReply("openai", { text: "third answer" });
    const run = await box.run(["run", ...MODEL, "--no-tools", "-c", "-o", "stream-json", "third question"], {
      env,
    });
    expect(run.code).toBe(0);
    const { middle, result } = parseStreamJson(jsonLines(run.stdout));
    expect(result.result).toBe("third answer");
    expect(
      middle.some((l) => l.type === "system" && "subtype" in l && l.subtype === "compact_boundary"),
    ).toBe(true);

    const [summaryRequest, nextRequest] = server.requests
      .slice(before)
      .map((r) => r.body as Body & { tools?: unknown });
    expect(summaryRequest?.tools).toBeUndefined();
    expect(JSON.stringify(summaryRequest?.messages)).toContain("first question");
    expect(JSON.stringify(nextRequest?.messages)).toContain("Summary: the user asked two long questions.");
    expect(JSON.stringify(nextRequest).length).toBeLessThan(JSON.stringify(summaryRequest).length);
    expect(JSON.stringify(nextRequest?.messages)).not.toContain("first question");

    // The originals are still in the file.
    const lines = decode(box, result.session_id);
    expect(JSON.stringify(lines)).toContain("first question");
    expect(lines.some((l) => l.type === "compaction")).toBe(true);
  });

  test("a context-overflow error compacts once and retries once", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "an earlier answer" });
    await box.run(["run", ...MODEL, "--no-tools", "an earlier question"], { env });
    server.enqueueReply("openai", { text: "a second answer" });
    await box.run(["run", ...MODEL, "--no-tools", "-c", "a second question"], { env });
    const before = server.requests.length;
    server.enqueue({
      ...(await errorReply("openai", 400, { kind: "context" })),
      pathSuffix: "/chat/completions",
    });
    server.enqueueReply("openai", { text: "Summary of the earlier conversation." });
    server.enqueueReply("openai", { text: "after compaction" });
    const run = await box.run(["run", ...MODEL, "--no-tools", "-c", "-o", "json", "go on"], { env });
    expect(run.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).result).toBe("after compaction");
    expect(server.requests.length - before).toBe(3);
  });
});
