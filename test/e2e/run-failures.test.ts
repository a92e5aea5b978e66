/**
 * End to end: how `ion run` fails — retries, drops, interrupts, bad config, bad flags — and that
 * every output format still gets its result and the documented exit code.
 */
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { AnyResultSchema, ApiRetrySchema, parseStreamJson, ResultSchema } from "../support/output-schemas.ts";
import { dropMidStream, errorReply, stallMidStream } from "../support/wire-scripts.ts";

const KEY = "sk-test-failures-key-000000000000abcd";
const { server, env } = useOpenAIServer(KEY);

const MODEL = ["-m", "openai/gpt-4o-mini"];

describe("provider failures", () => {
  test("429 then success: one api_retry event, then the answer", async () => {
    using box = new Sandbox();
    server.enqueue({
      ...(await errorReply("openai", 429, { retryAfterMs: 20 })),
      pathSuffix: "/chat/completions",
    });
    server.enqueueReply("openai", { text: "after the retry" });
    const run = await box.run(["run", ...MODEL, "-o", "stream-json", "hi"], { env });
    expect(run.code).toBe(0);
    const { middle, result } = parseStreamJson(jsonLines(run.stdout));
    const retries = middle.filter((l) => l.type === "system").map((l) => ApiRetrySchema.parse(l));
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, max_retries: 3, retry_delay_ms: 20, error_status: 429 });
    expect(result).toMatchObject({ subtype: "success", result: "after the retry", num_turns: 1 });
  });

  test("5xx on every attempt: gives up after 3 retries with exit 1", async () => {
    using box = new Sandbox();
    for (let i = 0; i < 4; i++) {
      server.enqueue({
        ...(await errorReply("openai", 500, { retryAfterMs: 5 })),
        pathSuffix: "/chat/completions",
      });
    }
    const before = server.requests.length;
    const run = await box.run(["run", ...MODEL, "-o", "json", "hi"], { env });
    expect(run.code).toBe(1);
    expect(server.requests.length - before).toBe(4);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.errors[0]).toContain("server error 500 from openai");
  });

  test("the server dies mid-stream: exit 1, a valid result, no retry after content", async () => {
    using box = new Sandbox();
    server.enqueue(dropMidStream("openai", { text: "This answer will be cut off before it ends, sadly." }));
    const before = server.requests.length;
    const run = await box.run(["run", ...MODEL, "-o", "json", "hi"], { env });
    expect(run.code).toBe(1);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({ subtype: "error_during_execution", is_error: true });
    expect(result.errors[0]).toMatch(/openai/);
    expect(server.requests.length - before).toBe(1);
    expect(run.stderr).toMatch(/^ion: /m);
  });

  test("a context overflow is reported as such", async () => {
    using box = new Sandbox();
    server.enqueue({
      ...(await errorReply("openai", 400, { kind: "context" })),
      pathSuffix: "/chat/completions",
    });
    const run = await box.run(["run", ...MODEL, "hi"], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("context window exceeded from openai");
  });

  test("an unknown model is reported as such", async () => {
    using box = new Sandbox();
    // Ollama's /api/show says so first (server/routes.go: "model '%s' not found"), then its /api/chat.
    server.enqueue(
      { pathSuffix: "/api/show", status: 404, body: JSON.stringify({ error: "model 'nope:1b' not found" }) },
      { ...(await errorReply("ollama", 404)), pathSuffix: "/api/chat" },
    );
    const run = await box.run(["run", "-m", "ollama/nope:1b", "hi"], {
      env: { OLLAMA_HOST: `127.0.0.1:${server.port}` },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unknown model "nope:1b" for ollama');
  });

  test("nothing listening: a clear network error after retries", async () => {
    using box = new Sandbox();
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = dead.port;
    await dead.stop(true);
    const run = await box.run(["run", ...MODEL, "-o", "json", "hi"], {
      env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: KEY },
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(1);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).errors[0]).toContain(
      `cannot reach openai at http://127.0.0.1:${port}/v1`,
    );
  }, 30_000);
});

describe("interrupts", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    test(`${signal} while streaming: exit 2 and an interrupted result`, async () => {
      using box = new Sandbox();
      server.enqueue(stallMidStream("openai", { text: "I will never finish this sentence because" }));
      const before = server.requests.length;
      const child = box.spawn(["run", ...MODEL, "-o", "json", "hi"], { env });
      await server.waitForRequests(before + 1, 10_000);
      await Bun.sleep(150);
      const started = performance.now();
      child.kill(signal);
      const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      expect(code).toBe(2);
      expect(performance.now() - started).toBeLessThan(5000);
      const result = ResultSchema.parse(JSON.parse(stdout));
      expect(result).toMatchObject({ subtype: "error_interrupted", is_error: true });
    });
  }
});

describe("input", () => {
  test("the prompt from piped stdin", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "ok" });
    const run = await box.run(["run", ...MODEL], { env, stdin: "summarise this please\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("ok\n");
    const body = server.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
    expect(body.messages.at(-1)).toEqual({ role: "user", content: "summarise this please" });
  });

  test('"-" reads the prompt from stdin', async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "ok" });
    const run = await box.run(["run", ...MODEL, "-"], { env, stdin: "from stdin" });
    expect(run.code).toBe(0);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("from stdin");
  });

  test("stdin is attached as context when a prompt is given; -f files too", async () => {
    using box = new Sandbox();
    await Bun.write(`${box.workspace}/notes.txt`, "line one\nline two\n");
    server.enqueueReply("openai", { text: "ok" });
    const run = await box.run(
      ["run", ...MODEL, "-f", "notes.txt", "--file", "notes.txt", "what do these say?"],
      {
        env,
        stdin: "piped context",
      },
    );
    expect(run.code).toBe(0);
    const body = server.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
    const user = body.messages.at(-1)?.content ?? "";
    expect(user).toContain("<stdin>\npiped context\n</stdin>");
    expect(user.split('<file path="notes.txt">\nline one\nline two\n</file>').length).toBe(3);
    expect(user.endsWith("what do these say?")).toBe(true);
  });

  test("--system replaces the preamble; --thinking is sent", async () => {
    using box = new Sandbox();
    await box.writeConfig({ preamble: "PREAMBLE-FROM-CONFIG" });
    server.enqueueReply("openai", { text: "ok" });
    // A reasoning model: gpt-4o-mini takes no reasoning_effort.
    const args = ["-m", "openai/o4-mini", "--system", "SYSTEM-FROM-FLAG", "--thinking", "high", "hi"];
    const run = await box.run(["run", ...args], { env });
    expect(run.code).toBe(0);
    const body = server.requests.at(-1)?.body as {
      messages: { role: string; content: string }[];
      reasoning_effort: string;
    };
    expect(body.messages[0]?.role).toBe("system");
    expect(body.messages[0]?.content).toContain("SYSTEM-FROM-FLAG");
    expect(body.messages[0]?.content).not.toContain("PREAMBLE-FROM-CONFIG");
    expect(body.reasoning_effort).toBe("high");
  });

  test("a missing -f file is a clear error and nothing is sent", async () => {
    using box = new Sandbox();
    const before = server.requests.length;
    const run = await box.run(["run", ...MODEL, "-f", "missing.txt", "hi"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("ion: cannot read missing.txt: no such file\n");
    expect(server.requests.length).toBe(before);
  });
});

describe("configuration and usage errors", () => {
  test("a malformed config file: exit 1, one line naming the file, the file untouched", async () => {
    using box = new Sandbox();
    const path = await box.writeConfig('{ "provider": "openai", "model": "gpt-4o", }');
    const before = statSync(path);
    const text = await Bun.file(path).text();
    const run = await box.run(["run", "hi"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(path);
    expect(await Bun.file(path).text()).toBe(text);
    expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
  });

  test("a schema violation names file, field and expected value; json still gets a result", async () => {
    using box = new Sandbox();
    const path = await box.writeConfig({ provider: "openai", model: "gpt-4o", thinking: "max" });
    const run = await box.run(["run", "-o", "json", "hi"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${path}: thinking: expected one of`);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).subtype).toBe("error_during_execution");
  });

  test("the flat form of the original design works as-is", async () => {
    using box = new Sandbox();
    await box.writeConfig({
      provider: "openai",
      model: "gpt-4o",
      api_key: KEY,
      api_base: `${server.url}/v1`,
      preamble: "You are a helpful assistant.",
      context_window: 128000,
    });
    server.enqueueReply("openai", { text: "flat ok" });
    const run = await box.run(["run", "hi"], {});
    expect(run).toMatchObject({ code: 0, stdout: "flat ok\n" });
    const body = server.requests.at(-1)?.body as { model: string; messages: { content: string }[] };
    expect(body.model).toBe("gpt-4o");
    expect(body.messages[0]?.content).toContain("You are a helpful assistant.");
  });

  test("no model configured: exit 1 with the commands to run", async () => {
    using box = new Sandbox();
    const run = await box.run(["run", "hi"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("no model configured");
    expect(run.stderr).toContain("ion config set model");
  });

  test.each([
    [["run", "--bogus", "hi"], "unknown option --bogus"],
    [["run", "-o", "yaml", "hi"], "--output-format must be one of text, json, stream-json"],
    [["run", "--max-turns", "0", "hi"], "--max-turns must be a positive whole number"],
    [["run", "--thinking", "max", "hi"], "--thinking must be one of off, low, medium, high"],
    [["run", "--cwd", "/nonexistent/dir", "hi"], "--cwd /nonexistent/dir: not a directory"],
    [["run", ...MODEL], "no prompt given"],
    [["frobnicate"], 'unknown command "frobnicate"'],
    [["run", ...MODEL, "-c", "-r", "0190", "hi"], "--continue and --resume cannot be used together"],
    [
      ["run", ...MODEL, "--no-session", "-c", "hi"],
      "--no-session cannot be combined with --continue or --resume",
    ],
  ])("usage error %p → exit 64", async (args, message) => {
    using box = new Sandbox();
    const run = await box.run(args, { env });
    expect(run.code).toBe(64);
    expect(run.stderr.split("\n")[0]).toContain(message);
  });
});

describe("max turns", () => {
  test("--max-turns 1 with a model that keeps calling tools: exit 3, error_max_turns", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { toolCalls: [{ name: "read_file", input: { path: "x" } }] });
    const run = await box.run(["run", ...MODEL, "--max-turns", "1", "-o", "stream-json", "loop"], { env });
    expect(run.code).toBe(3);
    const { middle, result } = parseStreamJson(jsonLines(run.stdout));
    expect(result).toMatchObject({ subtype: "error_max_turns", num_turns: 1 });
    const toolUse = middle.find((l) => l.type === "assistant");
    const toolResult = middle.find((l) => l.type === "user");
    expect(toolUse && "message" in toolUse && toolUse.message.content[0]?.type).toBe("tool_use");
    expect(toolResult && "message" in toolResult ? toolResult.message.content[0] : undefined).toMatchObject({
      is_error: true,
    });
  });
});

describe("help and version", () => {
  test("--version, --help, run --help", async () => {
    using box = new Sandbox();
    const version = await box.run(["--version"]);
    expect(version.stdout).toMatch(/^ion \d+\.\d+\.\d+( \([0-9a-f]{7,}\))?\n$/);
    const help = await box.run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("run");
    const runHelp = await box.run(["run", "--help"]);
    expect(runHelp.code).toBe(0);
    expect(runHelp.stdout).toContain("--output-format");
    expect(runHelp.stdout).not.toContain("\x1b[");
  });
});

describe("sessions and settings that get in the way", () => {
  test("a session that cannot be saved stops the run before any model request, in one line", async () => {
    using box = new Sandbox();
    // The sessions folder is a plain file: nothing can be listed or saved there.
    await Bun.write(`${box.dataDir}/sessions`, "not a folder");
    const before = server.requests.length;
    const run = await box.run(["run", ...MODEL, "-o", "json", "hi"], { env });
    expect(run.code).toBe(1);
    expect(server.requests.length).toBe(before);
    expect(run.stderr).toMatch(/^ion: cannot list sessions in \S+sessions \(ENOTDIR/);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    // Nothing could be saved, so the result names no session, and says why.
    const result = AnyResultSchema.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({ subtype: "error_during_execution", error_kind: "io", session_id: null });
    expect(result.errors[1]).toStartWith("the prompt was not saved: ");
  });

  test("tools.disabled removes a tool from the request; an unknown name is a warning, not an error", async () => {
    using box = new Sandbox();
    // plan and skill are offered only in some sessions, MCP tools once their servers answer: known names.
    await box.writeConfig({ tools: { disabled: ["bash", "bsah", "plan", "skill", "mcp__fs__read_file"] } });
    server.enqueueReply("openai", { text: "ok" });
    const run = await box.run(["run", ...MODEL, "hi"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('tools.disabled names an unknown tool "bsah"');
    expect(run.stderr.match(/names an unknown tool/g)).toHaveLength(1);
    const body = server.requests.at(-1)?.body as { tools: { function: { name: string } }[] };
    const names = body.tools.map((t) => t.function.name);
    expect(names).toContain("read_file");
    expect(names).not.toContain("bash");
    expect(names).not.toContain("plan");
  });
});
