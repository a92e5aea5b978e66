/**
 * End to end: a program written for Claude Code's stream-json (test/compat/consumer.ts, typed against
 * the Claude Agent SDK) reads ion's real output and gets every value right — a text answer, tool
 * calls, a 401, SIGINT, --partial, a compaction — and tsc checks every line ion printed against the
 * SDK's declarations (with ion's documented deviations, test/compat/claude-types.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { digest } from "../compat/consumer.ts";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer, warmCatalog } from "../support/e2e.ts";
import { errorReply } from "../support/wire-scripts.ts";

const { server, env } = useOpenAIServer("test-key-compat", (url) => ({ ION_MODELS_URL: `${url}/api.json` }));
const ROOT = resolve(import.meta.dir, "../..");
const MODEL = ["-m", "openai/gpt-4o"];
/** Every line any test printed, for the type check at the end. */
const printed: Record<string, unknown>[] = [];

function read(stdout: string) {
  const lines = jsonLines(stdout);
  printed.push(...lines);
  return digest(lines as unknown as SDKMessage[]);
}

describe("a Claude Code stream-json consumer reads ion", () => {
  test("a text answer: text, ids, cost and modelUsage", async () => {
    using box = new Sandbox();
    await warmCatalog(server, box, env, ["gpt-4o"]);
    server.enqueueReply("openai", { text: "Paris.", usage: { input: 1000, output: 500 } });
    const run = await box.run(["run", ...MODEL, "-o", "stream-json", "Capital of France?"], { env });
    expect(run.code).toBe(0);
    const d = read(run.stdout);
    expect(d.sessionIds.size).toBe(1);
    expect(d.model).toBe("gpt-4o");
    expect(d.permissionMode).toBe("default");
    expect(d.assistantText).toBe("Paris.");
    expect(d.messageIds).toHaveLength(1);
    expect(d.result).toMatchObject({
      subtype: "success",
      isError: false,
      text: "Paris.",
      inputTokens: 1000,
      outputTokens: 500,
      stopReason: "end_turn",
      turns: 1,
    });
    // gpt-4o in the snapshot: $2.50 in, $10 out per 1M tokens.
    expect(d.result?.costUSD).toBeCloseTo(0.0075, 9);
    expect(d.result?.models).toEqual([
      { model: "gpt-4o", inputTokens: 1000, outputTokens: 500, costUSD: expect.closeTo(0.0075, 9) },
    ]);
  });

  test("tool calls: tool_use blocks and their results, matched by id; denials listed", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [
        { id: "call_ls", name: "list_files", input: { path: "." } },
        { id: "call_sh", name: "bash", input: { command: "echo hi" } },
      ],
    });
    server.enqueueReply("openai", { text: "Listed; bash was refused." });
    const run = await box.run(["run", ...MODEL, "-o", "stream-json", "look around"], { env });
    expect(run.code).toBe(0);
    const d = read(run.stdout);
    expect(d.toolCalls.map((c) => [c.id, c.name])).toEqual([
      ["call_ls", "list_files"],
      ["call_sh", "bash"],
    ]);
    expect(d.toolResults).toEqual([
      { toolUseId: "call_ls", isError: false },
      { toolUseId: "call_sh", isError: true },
    ]);
    expect(d.result).toMatchObject({ subtype: "success", denials: ["bash"], turns: 2, costUSD: null });
  });

  test("a 401: an error result with the reason, is_error true", async () => {
    using box = new Sandbox();
    server.enqueue(await errorReply("openai", 401));
    const run = await box.run(["run", ...MODEL, "-o", "stream-json", "hi"], { env });
    expect(run.code).toBe(1);
    const d = read(run.stdout);
    expect(d.result?.subtype).toBe("error_during_execution");
    expect(d.result?.isError).toBe(true);
    expect(d.result?.errors[0]).toContain("invalid API key for openai");
  });

  test("SIGINT: the result still arrives, subtype error_interrupted", async () => {
    using box = new Sandbox();
    server.enqueue({
      ...(await import("../support/wire-scripts.ts")).streamReply("openai", {
        text: "a b c d e f g h i j k",
      }),
      chunkDelayMs: 400,
    });
    const child = box.spawn(["run", ...MODEL, "-o", "stream-json", "--partial", "count slowly"], { env });
    const reader = child.stdout.getReader();
    let seen = "";
    while (!seen.includes("text_delta")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    child.kill("SIGINT");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    expect(await child.exited).toBe(2);
    const d = read(seen);
    expect(d.result).toMatchObject({ subtype: "error_interrupted", isError: true });
    expect(d.partialText.length).toBeGreaterThan(0);
  });

  test("--partial: the raw events rebuild the text and the tool call's JSON", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      text: "Let me read it.",
      toolCalls: [{ id: "call_rd", name: "read_file", input: { path: "notes.txt" } }],
    });
    server.enqueueReply("openai", { text: "It says hello." });
    writeFileSync(join(box.workspace, "notes.txt"), "hello\n");
    const run = await box.run(["run", ...MODEL, "-o", "stream-json", "--include-partial-messages", "read"], {
      env,
    });
    expect(run.code).toBe(0);
    const d = read(run.stdout);
    expect(d.partialText).toBe(d.assistantText);
    expect(JSON.parse(d.partialToolJson.get("call_rd") ?? "null")).toEqual({ path: "notes.txt" });
    expect(d.streamEvents[0]).toBe("message_start");
    expect(d.streamEvents.at(-1)).toBe("message_stop");
    expect(d.streamEvents.filter((e) => e === "message_start")).toHaveLength(2);
  });

  test("a compaction: compact_boundary with Claude's trigger and the tokens before", async () => {
    using box = new Sandbox();
    // A window that the tools and a first exchange fill past 80 %, so the second run compacts first.
    await box.writeConfig({ context_window: 5_000 });
    server.enqueueReply("openai", {
      text: "first answer ".repeat(200),
      usage: { input: 4_200, output: 650 },
    });
    expect((await box.run(["run", ...MODEL, "-o", "json", "first"], { env })).code).toBe(0);
    server.enqueueReply("openai", { text: "SUMMARY" });
    server.enqueueReply("openai", { text: "second answer" });
    const run = await box.run(["run", ...MODEL, "-c", "-o", "stream-json", "second"], { env });
    expect(run.code).toBe(0);
    const d = read(run.stdout);
    expect(d.compactions).toHaveLength(1);
    expect(d.compactions[0]?.trigger).toBe("auto");
    expect(d.compactions[0]?.preTokens).toBeGreaterThan(0);
    expect(d.result?.text).toBe("second answer");
  });
});

describe("tsc reads ion's lines as the SDK's types", () => {
  const dir = join(ROOT, ".compat-samples");
  afterAll(() => process.env.KEEP_SAMPLES || rmSync(dir, { recursive: true, force: true }));

  test("every line printed above type-checks against the Claude Agent SDK's declarations", async () => {
    expect(printed.length).toBeGreaterThan(20);
    const typeOf = (line: Record<string, unknown>): string => {
      if (line.type === "system")
        return line.subtype === "init"
          ? "IonInit"
          : line.subtype === "compact_boundary"
            ? "IonCompact"
            : "IonRetry";
      return { assistant: "IonAssistant", user: "IonUser", stream_event: "IonPartial", result: "IonResult" }[
        String(line.type)
      ] as string;
    };
    const body = printed.map((line, i) => `export const l${i}: ${typeOf(line)} = ${JSON.stringify(line)};`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "samples.ts"),
      [
        'import type { IonAssistant, IonCompact, IonInit, IonPartial, IonResult, IonRetry, IonUser } from "../test/compat/claude-types.ts";',
        ...body,
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../tsconfig.json",
        include: ["samples.ts"],
        compilerOptions: { noUnusedLocals: false },
      }),
    );
    const tsc = Bun.spawnSync([process.execPath, join(ROOT, "node_modules/typescript/bin/tsc"), "-p", dir], {
      cwd: ROOT,
    });
    const output = tsc.stdout.toString() + tsc.stderr.toString();
    expect(output).toBe("");
    expect(tsc.exitCode).toBe(0);
  }, 60_000);
});
