/**
 * End to end: MCP servers in `ion run` sessions, through the real CLI against the fake LLM and real
 * servers (server-everything from node_modules, the MCP tests' many-tools and silent servers, run with
 * this bun). Tools listed and called, read-only and mutating calls in a headless ask-mode run, a
 * server that exits at once, init statuses, project trust, lazy loading, and no server left behind
 * after SIGINT or SIGTERM.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EVERYTHING_SERVER, MANY_TOOLS_SERVER, SILENT_SERVER } from "../mcp/support.ts";
import { collect, ionCommand, jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import type { RecordedRequest } from "../support/fake-llm.ts";

const { server, env } = useOpenAIServer("test-key-mcp-session-123");
const RUN = ["run", "-m", "openai/gpt-4o-mini"];
const BUN = process.execPath;
const HAS_PROC = existsSync("/proc/self/stat");

/** A stdio server entry, as `.mcp.json` and config `mcpServers` write it. */
function stdio(args: string[], extraEnv: Record<string, string> = {}) {
  return { command: BUN, args, env: extraEnv };
}

/** Live processes anywhere whose command line holds `marker` (an orphan is reparented, so all of /proc). */
function processesMarked(marker: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
        return cmdline.includes(marker) && state !== "Z" && state !== "X";
      } catch {
        return false; // it ended while being read
      }
    })
    .map(Number);
}

async function waitUntil(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(20);
  }
}

interface ChatBody {
  tools?: { function: { name: string } }[];
  messages: { role: string; content?: unknown; tool_call_id?: string }[];
}

function toolNames(request: RecordedRequest | undefined): string[] {
  return ((request?.body as ChatBody | undefined)?.tools ?? []).map((t) => t.function.name);
}

function toolResult(request: RecordedRequest | undefined, id: string): string {
  if (!request) throw new Error(`no request carries the result of ${id}`);
  const message = (request.body as ChatBody).messages.find((m) => m.tool_call_id === id);
  return typeof message?.content === "string" ? message.content : JSON.stringify(message?.content);
}

function initOf(stdout: string): { mcp_servers: unknown; tools: string[] } {
  const init = jsonLines(stdout).find((line) => line.type === "system" && line.subtype === "init");
  if (!init) throw new Error(`no init in ${stdout}`);
  return init as unknown as { mcp_servers: unknown; tools: string[] };
}

function resultOf(stdout: string): Record<string, unknown> {
  const result = jsonLines(stdout).find((line) => line.type === "result");
  if (!result) throw new Error(`no result in ${stdout}`);
  return result;
}

describe("MCP servers in ion run", () => {
  test("a user-config server's tool is listed, called, and its result reaches the next request", async () => {
    using box = new Sandbox();
    await box.writeConfig({ mcpServers: { everything: stdio([EVERYTHING_SERVER, "stdio"]) } });
    const from = server.requests.length;
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_echo01", name: "mcp__everything__echo", input: { message: "hello mcp" } }],
    });
    server.enqueueReply("openai", { text: "It echoed." });
    const run = await box.run([...RUN, "-o", "stream-json", "echo something"], { env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const [first, second] = server.requests.slice(from);
    expect(toolNames(first)).toContain("mcp__everything__echo");
    expect(toolNames(first)).toContain("read_file");
    expect(toolResult(second, "call_echo01")).toContain("hello mcp");
    expect(initOf(run.stdout).mcp_servers).toEqual([{ name: "everything", status: "connected" }]);
    expect(initOf(run.stdout).tools).toContain("mcp__everything__echo");
  });

  test("headless ask mode: a read-only tool runs without approval, a mutating one is denied", async () => {
    using box = new Sandbox();
    await box.writeConfig({ mcpServers: { everything: stdio([EVERYTHING_SERVER, "stdio"]) } });
    const from = server.requests.length;
    server.enqueueReply("openai", {
      toolCalls: [
        { id: "call_read01", name: "mcp__everything__get-sum", input: { a: 2, b: 3 } },
        { id: "call_mut001", name: "mcp__everything__toggle-simulated-logging", input: {} },
      ],
    });
    server.enqueueReply("openai", { text: "Done." });
    const run = await box.run([...RUN, "-o", "json", "add and toggle"], { env });
    expect(run.code).toBe(0);
    const second = server.requests[from + 1];
    expect(toolResult(second, "call_read01")).toContain("5");
    const result = resultOf(run.stdout) as { permission_denials: { tool_name: string }[] };
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual([
      "mcp__everything__toggle-simulated-logging",
    ]);
  });

  test("with -y a mutating MCP tool runs", async () => {
    using box = new Sandbox();
    await box.writeConfig({ mcpServers: { everything: stdio([EVERYTHING_SERVER, "stdio"]) } });
    const from = server.requests.length;
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_mut002", name: "mcp__everything__toggle-simulated-logging", input: {} }],
    });
    server.enqueueReply("openai", { text: "Toggled." });
    const run = await box.run([...RUN, "-y", "-o", "json", "toggle"], { env });
    expect(run.code).toBe(0);
    expect((resultOf(run.stdout) as { permission_denials: unknown[] }).permission_denials).toEqual([]);
    expect(toolResult(server.requests[from + 1], "call_mut002")).toContain("logging");
  });

  test("--disallowedTools names an MCP tool or a whole server; --allowedTools lets one run without asking", async () => {
    using box = new Sandbox();
    await box.writeConfig({ mcpServers: { everything: stdio([EVERYTHING_SERVER, "stdio"]) } });
    const from = server.requests.length;
    // Denied: not offered, and a call by name is refused even with -y.
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_mut003", name: "mcp__everything__toggle-simulated-logging", input: {} }],
    });
    server.enqueueReply("openai", { text: "Could not." });
    const denied = ["--disallowedTools", "mcp__everything__toggle-simulated-logging"];
    const run = await box.run([...RUN, "-y", ...denied, "-o", "json", "toggle"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("ignoring tool");
    expect(toolNames(server.requests[from])).toContain("mcp__everything__echo");
    expect(toolNames(server.requests[from])).not.toContain("mcp__everything__toggle-simulated-logging");
    expect(toolResult(server.requests[from + 1], "call_mut003")).toContain("unknown tool");

    server.enqueueReply("openai", { text: "Nothing." });
    const whole = await box.run([...RUN, "--disallowedTools", "mcp__everything", "look"], { env });
    expect(whole.code).toBe(0);
    expect(toolNames(server.requests[from + 2]).filter((n) => n.startsWith("mcp__"))).toEqual([]);

    // Allowed: runs in mode ask without a terminal, no denial.
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_mut004", name: "mcp__everything__toggle-simulated-logging", input: {} }],
    });
    server.enqueueReply("openai", { text: "Toggled." });
    const allowed = ["--allowedTools", "mcp__everything__toggle-simulated-logging"];
    const ran = await box.run([...RUN, ...allowed, "-o", "json", "toggle"], { env });
    expect(ran.code).toBe(0);
    expect((resultOf(ran.stdout) as { permission_denials: unknown[] }).permission_denials).toEqual([]);
    expect(toolResult(server.requests[from + 4], "call_mut004")).toContain("logging");
  });

  test("mode read: a mutating MCP tool is not offered, a read-only one is", async () => {
    using box = new Sandbox();
    await box.writeConfig({ mcpServers: { everything: stdio([EVERYTHING_SERVER, "stdio"]) } });
    const from = server.requests.length;
    server.enqueueReply("openai", { text: "Fine." });
    const run = await box.run([...RUN, "--permission-mode", "plan", "look"], { env });
    expect(run.code).toBe(0);
    const names = toolNames(server.requests[from]);
    expect(names).toContain("mcp__everything__echo");
    expect(names).not.toContain("mcp__everything__toggle-simulated-logging");
  });

  test("a server that exits at once: the run still answers, init says failed, one warning", async () => {
    using box = new Sandbox();
    const script = "console.error('no database'); process.exit(3)";
    await box.writeConfig({
      mcpServers: {
        broken: { command: BUN, args: ["-e", script] },
        many: stdio([MANY_TOOLS_SERVER], { TOOL_COUNT: "2" }),
      },
    });
    server.enqueueReply("openai", { text: "Answered anyway." });
    const run = await box.run([...RUN, "-o", "stream-json", "hi"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'ion: warning: MCP server "broken" failed to start: the server exited during start-up; last output: no database\n',
    );
    expect(initOf(run.stdout).mcp_servers).toEqual([
      { name: "broken", status: "failed" },
      { name: "many", status: "connected" },
    ]);
    expect(resultOf(run.stdout).result).toBe("Answered anyway.");
  });

  test("a server that never answers the handshake fails at the start-up timeout; the run answers", async () => {
    using box = new Sandbox();
    await box.writeConfig({
      mcp: { startup_timeout_ms: 500 },
      mcpServers: { silent: stdio([SILENT_SERVER]) },
    });
    server.enqueueReply("openai", { text: "Still here." });
    const started = Date.now();
    const run = await box.run([...RUN, "-o", "stream-json", "hi"], { env });
    expect(run.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(run.stderr).toContain('MCP server "silent" failed to start');
    expect(initOf(run.stdout).mcp_servers).toEqual([{ name: "silent", status: "failed" }]);
  });

  test.skipIf(!HAS_PROC)(
    "an untrusted .mcp.json is not started even with -y; --trust-project starts it",
    async () => {
      using box = new Sandbox();
      const marker = `ion-mcp-untrusted-${process.pid}-${Date.now()}`;
      const mcpJson = { mcpServers: { project: stdio([MANY_TOOLS_SERVER, marker], { TOOL_COUNT: "2" }) } };
      writeFileSync(join(box.workspace, ".mcp.json"), JSON.stringify(mcpJson));
      // The server is watched for while ion runs: it must never appear.
      let seen = false;
      const watch = setInterval(() => {
        if (processesMarked(marker).length > 0) seen = true;
      }, 10);
      server.enqueueReply("openai", { text: "Untrusted." });
      const from = server.requests.length;
      const run = await box.run([...RUN, "-y", "-o", "stream-json", "hi"], { env });
      clearInterval(watch);
      expect(run.code).toBe(0);
      expect(seen).toBe(false);
      expect(initOf(run.stdout).mcp_servers).toEqual([]);
      expect(toolNames(server.requests[from]).some((name) => name.startsWith("mcp__"))).toBe(false);

      server.enqueueReply("openai", { text: "Trusted." });
      const trusted = server.requests.length;
      const child = box.spawn([...RUN, "--trust-project", "-o", "stream-json", "hi"], {
        env,
      });
      const done = await collect(child);
      expect(done.code).toBe(0);
      expect(initOf(done.stdout).mcp_servers).toEqual([{ name: "project", status: "connected" }]);
      expect(toolNames(server.requests[trusted])).toContain("mcp__project__tool_000");
      expect(processesMarked(marker)).toEqual([]);
    },
  );

  test("lazy loading: with 224 tools the request carries mcp_search, and a found tool is then offered", async () => {
    using box = new Sandbox();
    await box.writeConfig({ mcpServers: { many: stdio([MANY_TOOLS_SERVER]) } });
    const from = server.requests.length;
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_search1", name: "mcp_search", input: { query: "select:mcp__many__tool_007" } }],
    });
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_deferd1", name: "mcp__many__tool_010", input: { query: "rain" } }],
    });
    server.enqueueReply("openai", { text: "Found it." });
    const run = await box.run([...RUN, "-y", "-v", "-o", "stream-json", "find a tool"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/MCP: 224 tools behind mcp_search \(~\d+ tokens saved\)/);
    // Told once: -v's context breakdown that follows does not repeat it.
    expect(run.stderr.match(/tokens saved/g)).toHaveLength(1);
    const [first, second, third] = server.requests.slice(from);
    const listed = toolNames(first);
    expect(listed).toContain("mcp_search");
    expect(listed.filter((name) => name.startsWith("mcp__"))).toEqual([]);
    expect(toolResult(second, "call_search1")).toContain("mcp__many__tool_007");
    // Found by the search: offered from the next request on; the others stay out of the request.
    expect(toolNames(second)).toContain("mcp__many__tool_007");
    expect(toolNames(second).filter((name) => name.startsWith("mcp__"))).toHaveLength(1);
    // A deferred tool called by name still runs.
    expect(toolResult(third, "call_deferd1")).toContain('called tool_010 with {"query":"rain"}');
  });
});

describe.skipIf(!HAS_PROC)("no MCP server outlives ion run", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    test(`${signal} during a slow MCP tool call`, async () => {
      using box = new Sandbox();
      const marker = `ion-mcp-${signal}-${process.pid}-${Date.now()}`;
      await box.writeConfig({ mcpServers: { slow: stdio([EVERYTHING_SERVER, "stdio", marker]) } });
      server.enqueueReply("openai", {
        toolCalls: [
          {
            id: "call_slow01",
            name: "mcp__slow__trigger-long-running-operation",
            input: { duration: 30, steps: 30 },
          },
        ],
      });
      const from = server.requests.length;
      const child = box.spawn([...RUN, "-o", "stream-json", "wait"], { env });
      await server.waitForRequests(from + 1, 10_000);
      await waitUntil("the server", () => processesMarked(marker).length > 0);
      // The call is running once its start is reported.
      await Bun.sleep(300);
      child.kill(signal);
      const done = await collect(child);
      expect(done.code).toBe(2);
      await waitUntil("no server process", () => processesMarked(marker).length === 0, 5000);
      expect(processesMarked(marker)).toEqual([]);
    });
  }
});

describe("MCP servers in ion chat", () => {
  test("/mcp lists each server with its status; the servers' tools reach the model", async () => {
    using box = new Sandbox();
    const script = "console.error('no database'); process.exit(3)";
    await box.writeConfig({
      model: "openai/gpt-4o-mini",
      mcpServers: {
        many: stdio([MANY_TOOLS_SERVER], { TOOL_COUNT: "2" }),
        broken: { command: BUN, args: ["-e", script] },
      },
    });
    server.enqueueReply("openai", { text: "Hi." });
    const from = server.requests.length;
    const run = await box.run(["chat"], { env, stdin: "/mcp\nhello\n/quit\n" });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("many    connected · 6 tools\n");
    expect(run.stderr).toContain(
      "broken  failed · the server exited during start-up; last output: no database\n",
    );
    expect(toolNames(server.requests[from])).toContain("mcp__many__tool_001");
  });

  test("/context tells the tokens mcp_search saves when the tools are behind it", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: "openai/gpt-4o-mini", mcpServers: { many: stdio([MANY_TOOLS_SERVER]) } });
    const run = await box.run(["chat"], { env, stdin: "/context\n/quit\n" });
    expect(run.code).toBe(0);
    const saved = /mcp_search keeps 224 MCP tools out of the window: ~(\d+) tokens saved/.exec(run.stderr);
    expect(Number(saved?.[1])).toBeGreaterThan(1000);
  });

  test.skipIf(!HAS_PROC)("SIGTERM and SIGHUP end an idle chat and its servers", async () => {
    for (const signal of ["SIGTERM", "SIGHUP"] as const) {
      using box = new Sandbox();
      const marker = `ion-mcp-chat-${signal}-${process.pid}-${Date.now()}`;
      await box.writeConfig({
        model: "openai/gpt-4o-mini",
        mcpServers: { many: stdio([MANY_TOOLS_SERVER, marker], { TOOL_COUNT: "2" }) },
      });
      const child = Bun.spawn([...ionCommand(), "chat"], {
        cwd: box.workspace,
        env: box.env(env),
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      // Idle: the chat has greeted (its signal handling is in place) and the server runs.
      const stderr = child.stderr.getReader();
      let said = "";
      while (!said.includes("new session")) {
        const { value, done } = await stderr.read();
        if (done) throw new Error(`the chat ended: ${said}`);
        said += new TextDecoder().decode(value);
      }
      await waitUntil("the server", () => processesMarked(marker).length > 0);
      child.kill(signal);
      while (!(await stderr.read()).done) {
        // Drained to its end: the chat's last words.
      }
      expect(await child.exited).toBe(2);
      await waitUntil("no server process", () => processesMarked(marker).length === 0, 5000);
    }
  });
});
