/**
 * End to end: the agent acting through tools, on every wire — the write → run → answer loop, headless
 * denials, max turns, interrupting a running command, and the workspace guard.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { MISTRAL_TOOL_IDS, toolIdMap } from "../../src/providers/tool-ids.ts";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm.ts";
import { parseStreamJson, ResultSchema } from "../support/output-schemas.ts";
import type { Wire } from "../support/wire-scripts.ts";

const KEY = "sk-test-tools-key-00000000000000000042";
let server: FakeLLM;
beforeAll(async () => {
  server = await startFakeLLM();
});
afterAll(async () => {
  await server.stop();
});

const WIRES: { wire: Wire; model: string; env: (url: string) => Record<string, string> }[] = [
  {
    wire: "openai",
    model: "openai/gpt-4o-mini",
    env: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: KEY }),
  },
  {
    wire: "anthropic",
    model: "anthropic/claude-sonnet-4-5",
    env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: KEY }),
  },
  {
    wire: "mistral",
    model: "mistral/mistral-small-latest",
    env: (url) => ({ MISTRAL_BASE_URL: url, MISTRAL_API_KEY: KEY }),
  },
];

/** Alive means present and not a zombie: orphans may linger unreaped in /proc after they have died. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Every request body ion sent since `from`, as text, to check what reached the provider. */
function sentSince(from: number): string {
  return server.requests
    .slice(from)
    .map((r) => JSON.stringify(r.body))
    .join("\n");
}

describe.each(WIRES)("tools over the $wire wire", ({ wire, model, env }) => {
  test("write_file → bash reads it back → final answer, with -y", async () => {
    using box = new Sandbox();
    const from = server.requests.length;
    server.enqueueReply(wire, {
      toolCalls: [
        {
          id: "call_write01",
          name: "write_file",
          input: { path: "notes/hello.txt", content: "hi from ion\n" },
        },
      ],
    });
    server.enqueueReply(wire, {
      toolCalls: [{ id: "call_bash001", name: "bash", input: { command: "cat notes/hello.txt" } }],
    });
    server.enqueueReply(wire, { text: "The file says hi." });
    const run = await box.run(["run", "-m", model, "-y", "-o", "stream-json", "write a file and read it"], {
      env: env(server.url),
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(await Bun.file(join(box.workspace, "notes/hello.txt")).text()).toBe("hi from ion\n");

    const { init, middle, result } = parseStreamJson(jsonLines(run.stdout));
    expect(init.tools).toEqual([
      "read_file",
      "list_files",
      "glob",
      "grep",
      "symbols",
      "edit_file",
      "write_file",
      "bash",
      "web_fetch",
      // ion's built-in skills are always there, so the model can always read one.
      "skill",
      "plan",
      "task",
    ]);
    expect(init.skills).toEqual(expect.arrayContaining(["designer", "developer", "refactor"]));
    expect(init.permission_mode).toBe("auto");
    expect(middle.map((l) => l.type)).toEqual(["assistant", "user", "assistant", "user", "assistant"]);
    const uses = middle.flatMap((l) => (l.type === "assistant" && "message" in l ? l.message.content : []));
    const results = middle.flatMap((l) => (l.type === "user" && "message" in l ? l.message.content : []));
    expect(uses.filter((b) => b.type === "tool_use").map((b) => ("id" in b ? b.id : ""))).toEqual([
      "call_write01",
      "call_bash001",
    ]);
    expect(results.map((r) => r.tool_use_id)).toEqual(["call_write01", "call_bash001"]);
    expect(results.every((r) => !r.is_error)).toBe(true);
    expect(JSON.parse(results[1]?.content ?? "{}")).toMatchObject({ stdout: "hi from ion\n", exit_code: 0 });
    expect(result).toMatchObject({
      subtype: "success",
      result: "The file says hi.",
      num_turns: 3,
      permission_denials: [],
    });
    // The provider got each result back with its call id (on Mistral, in the only id form it accepts).
    const sentId = wire === "mistral" ? toolIdMap([], MISTRAL_TOOL_IDS)("call_bash001") : "call_bash001";
    expect(sentSince(from)).toContain(`"${sentId}"`);
    expect(sentSince(from)).toContain("hi from ion");
  });

  test("without -y and without a TTY, bash is denied at once and never runs", async () => {
    using box = new Sandbox();
    const from = server.requests.length;
    server.enqueueReply(wire, {
      toolCalls: [{ id: "call_touch01", name: "bash", input: { command: "touch marker" } }],
    });
    server.enqueueReply(wire, { text: "I was not allowed to." });
    const run = await box.run(["run", "-m", model, "-o", "json", "make a marker"], { env: env(server.url) });
    expect(run.code).toBe(0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.permission_denials).toEqual([
      { tool_name: "bash", tool_use_id: "call_touch01", tool_input: { command: "touch marker" } },
    ]);
    expect(result.result).toBe("I was not allowed to.");
    expect(existsSync(join(box.workspace, "marker"))).toBe(false);
    expect(sentSince(from)).toContain("permission denied");
  });
});

describe("loop limits and cancellation", () => {
  const openai = WIRES[0]!;

  test("--max-turns 2 on a model that calls tools forever: exit 3", async () => {
    using box = new Sandbox();
    for (let i = 0; i < 2; i++)
      server.enqueueReply("openai", { toolCalls: [{ name: "list_files", input: { path: "." } }] });
    const run = await box.run(["run", "-m", openai.model, "--max-turns", "2", "-o", "json", "loop"], {
      env: openai.env(server.url),
    });
    expect(run.code).toBe(3);
    expect(ResultSchema.parse(JSON.parse(run.stdout))).toMatchObject({
      subtype: "error_max_turns",
      num_turns: 2,
    });
    expect(server.pending()).toBe(0);
  });

  test("SIGINT during `bash sleep 30`: exit 2 within 5 s and the sleep is gone", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ name: "bash", input: { command: "sleep 30 & echo $! > sleep.pid; wait" } }],
    });
    // The unsandboxed path's process group (sandbox.test.ts checks the sandboxed tree).
    const child = box.spawn(["run", "-m", openai.model, "-y", "--sandbox", "off", "-o", "json", "sleep"], {
      env: openai.env(server.url),
    });
    const pidFile = join(box.workspace, "sleep.pid");
    for (let i = 0; i < 200 && !(existsSync(pidFile) && (await Bun.file(pidFile).text()).trim()); i++)
      await Bun.sleep(25);
    const sleepPid = Number((await Bun.file(pidFile).text()).trim());
    expect(sleepPid).toBeGreaterThan(0);
    const started = performance.now();
    child.kill("SIGINT");
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(code).toBe(2);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(ResultSchema.parse(JSON.parse(stdout)).subtype).toBe("error_interrupted");
    await Bun.sleep(100);
    expect(isRunning(sleepPid)).toBe(false);
  });
});

describe("the workspace guard", () => {
  test("../x, /etc/passwd and a symlink pointing outside are refused; nothing leaks to the provider", async () => {
    using box = new Sandbox();
    const outside = join(box.root, "outside");
    mkdirSync(outside);
    await Bun.write(join(outside, "secret.txt"), "TOPSECRET-0451\n");
    symlinkSync(join(outside, "secret.txt"), join(box.workspace, "link.txt"));
    const from = server.requests.length;
    server.enqueueReply("openai", {
      toolCalls: [
        { id: "call_up", name: "read_file", input: { path: "../outside/secret.txt" } },
        { id: "call_abs", name: "read_file", input: { path: "/etc/passwd" } },
        { id: "call_link", name: "read_file", input: { path: "link.txt" } },
      ],
    });
    server.enqueueReply("openai", { text: "refused" });
    const run = await box.run(["run", "-m", "openai/gpt-4o-mini", "-o", "stream-json", "read secrets"], {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: KEY },
    });
    expect(run.code).toBe(0);
    const { middle } = parseStreamJson(jsonLines(run.stdout));
    const results = middle.flatMap((l) => (l.type === "user" && "message" in l ? l.message.content : []));
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ["call_up", true],
      ["call_abs", true],
      ["call_link", true],
    ]);
    for (const r of results) expect(r.content).toContain("outside the workspace");
    const sent = sentSince(from);
    expect(sent).not.toContain("TOPSECRET");
    expect(sent).not.toContain("root:x:0:0");
  });

  test("a directory in workspace.allow is reachable; --no-tools sends no tools", async () => {
    using box = new Sandbox();
    const shared = join(box.root, "shared-docs");
    mkdirSync(shared);
    await Bun.write(join(shared, "doc.md"), "ALLOWED-CONTENT\n");
    await box.writeConfig({ workspace: { allow: [shared] } });
    const env = { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: KEY };
    const from = server.requests.length;
    server.enqueueReply("openai", {
      toolCalls: [{ name: "read_file", input: { path: join(shared, "doc.md") } }],
    });
    server.enqueueReply("openai", { text: "read it" });
    const run = await box.run(["run", "-m", "openai/gpt-4o-mini", "read the doc"], { env });
    expect(run).toMatchObject({ code: 0, stdout: "read it\n" });
    expect(sentSince(from)).toContain("ALLOWED-CONTENT");

    server.enqueueReply("openai", { text: "no tools" });
    const bare = await box.run(["run", "-m", "openai/gpt-4o-mini", "--no-tools", "hi"], { env });
    expect(bare.code).toBe(0);
    const body = server.requests.at(-1)?.body as { tools?: unknown; messages: unknown[] };
    expect(body.messages).toHaveLength(2);
    expect(body.tools).toBeUndefined();
  });
});
