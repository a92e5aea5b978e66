// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} written literally is what .mcp.json holds
/**
 * The MCP client against real servers from npm (server-filesystem, server-everything) run from
 * node_modules with this bun, plus the tests' own servers: start-up, tools, results, failures.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseMcpServers } from "../../src/mcp/config.ts";
import { type McpServers, startMcpServers } from "../../src/mcp/servers.ts";
import {
  bunServer,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  MANY_TOOLS_SERVER,
  SILENT_SERVER,
  toolContext,
  toolNamed,
} from "./support.ts";

const base = realpathSync(mkdtempSync(join(tmpdir(), "ion-mcp-servers-")));
const files = join(base, "files");
const logs = join(base, "logs");
const logFile = (server: string) => join(logs, `${server}.log`);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("real servers over stdio", () => {
  let servers: McpServers;

  beforeAll(async () => {
    mkdirSync(join(files, "sub"), { recursive: true });
    writeFileSync(join(files, "notes.txt"), "first line\nsecond line\n");
    const { servers: definitions, warnings } = parseMcpServers(
      {
        files: { command: process.execPath, args: [FILESYSTEM_SERVER, "${ION_TEST_FILES}"] },
        everything: {
          command: process.execPath,
          args: [EVERYTHING_SERVER, "stdio"],
          env: { ION_FROM_VAR: "${ION_TEST_SET}", ION_DEFAULTED: "${ION_TEST_UNSET:-fallback-value}" },
        },
        exits: {
          command: process.execPath,
          args: ["-e", "console.error('cannot start: no config'); process.exit(3)"],
        },
      },
      ".mcp.json",
      { ION_TEST_FILES: files, ION_TEST_SET: "from-environment" },
    );
    expect(warnings).toEqual([]);
    servers = await startMcpServers(definitions, { logFile });
  });

  afterAll(() => servers.close());

  test("each server has a status; the one that exits at once is failed with its reason, the others connect", () => {
    expect(servers.statuses).toEqual([
      { name: "files", status: "connected" },
      { name: "everything", status: "connected" },
      {
        name: "exits",
        status: "failed",
        error: "the server exited during start-up; last output: cannot start: no config",
      },
    ]);
    expect(servers.warnings).toEqual([
      'MCP server "exits" failed to start: the server exited during start-up; last output: cannot start: no config',
    ]);
  });

  test("tools are named mcp__<server>__<tool> and read-only only when annotated readOnlyHint", () => {
    const names = servers.tools.map((tool) => tool.spec.name);
    expect(names).toContain("mcp__files__list_directory");
    expect(names).toContain("mcp__everything__echo");
    expect(names.filter((name) => name.startsWith("mcp__exits__"))).toEqual([]);
    expect(toolNamed(servers, "mcp__files__read_text_file").readOnly).toBe(true);
    expect(toolNamed(servers, "mcp__files__write_file").readOnly).toBe(false);
    expect(toolNamed(servers, "mcp__everything__echo").readOnly).toBe(true);
    expect(toolNamed(servers, "mcp__everything__toggle-simulated-logging").readOnly).toBe(false);
    const echo = toolNamed(servers, "mcp__everything__echo");
    expect(echo.server).toBe("everything");
    expect(echo.mcpName).toBe("echo");
    expect(echo.spec.input_schema).toMatchObject({
      type: "object",
      properties: { message: { type: "string" } },
    });
  });

  test("server-filesystem lists and reads the temp directory", async () => {
    const listing = await toolNamed(servers, "mcp__files__list_directory").execute(
      { path: files },
      toolContext(),
    );
    expect(listing).toEqual({ content: "[DIR] sub\n[FILE] notes.txt", is_error: false });
    const read = await toolNamed(servers, "mcp__files__read_text_file").execute(
      { path: join(files, "notes.txt") },
      toolContext(),
    );
    expect(read).toEqual({ content: "first line\nsecond line\n", is_error: false });
    const outside = await toolNamed(servers, "mcp__files__read_text_file").execute(
      { path: "/etc/hostname" },
      toolContext(),
    );
    expect(outside.is_error).toBe(true);
    expect(outside.content).toContain("outside allowed directories");
  });

  test("server-everything's tools: text, structured content, an image as a note", async () => {
    const ctx = toolContext();
    expect(await toolNamed(servers, "mcp__everything__echo").execute({ message: "hi there" }, ctx)).toEqual({
      content: "Echo: hi there",
      is_error: false,
    });
    const sum = await toolNamed(servers, "mcp__everything__get-sum").execute({ a: 2, b: 40 }, ctx);
    expect(sum).toEqual({ content: "The sum of 2 and 40 is 42.", is_error: false });
    const weather = await toolNamed(servers, "mcp__everything__get-structured-content").execute(
      { location: "Chicago" },
      ctx,
    );
    expect(JSON.parse(weather.content)).toHaveProperty("temperature");
    const image = await toolNamed(servers, "mcp__everything__get-tiny-image").execute({}, ctx);
    expect(image.content).toMatch(/^\[image: image\/png, [\d,]+ bytes\]$/m);
    expect(image.content.length).toBeLessThan(300);
  });

  test("bad arguments come back as an error outcome, not a throw", async () => {
    const outcome = await toolNamed(servers, "mcp__everything__get-sum").execute({ a: "two" }, toolContext());
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain("get-sum");
  });

  test("${VAR} and ${VAR:-default} in env reach the server's environment", async () => {
    const outcome = await toolNamed(servers, "mcp__everything__get-env").execute({}, toolContext());
    const env = JSON.parse(outcome.content) as Record<string, string>;
    expect(env.ION_FROM_VAR).toBe("from-environment");
    expect(env.ION_DEFAULTED).toBe("fallback-value");
  });

  test("a call honours the abort signal, with progress reported on the way", async () => {
    const controller = new AbortController();
    const progress: string[] = [];
    const started = Date.now();
    const outcome = await toolNamed(servers, "mcp__everything__trigger-long-running-operation").execute(
      { duration: 20, steps: 100 },
      {
        ...toolContext(controller.signal),
        onUpdate(update) {
          progress.push(update.output_tail ?? "");
          controller.abort();
        },
      },
    );
    expect(progress[0]).toBe("1/100");
    expect(outcome).toEqual({ content: "cancelled by the user", is_error: true });
    expect(Date.now() - started).toBeLessThan(5000);
    // The server is still fine after the cancel.
    expect(
      (await toolNamed(servers, "mcp__everything__echo").execute({ message: "again" }, toolContext()))
        .content,
    ).toBe("Echo: again");
  });

  test("a server's stderr goes to its log file", () => {
    expect(readFileSync(logFile("files"), "utf8")).toContain("Secure MCP Filesystem Server running on stdio");
    expect(readFileSync(logFile("exits"), "utf8")).toContain("cannot start: no config");
  });
});

describe("a server that never answers the handshake", () => {
  test("times out within the start-up timeout and fails alone", async () => {
    const started = Date.now();
    const servers = await startMcpServers(
      [bunServer("silent", [SILENT_SERVER]), bunServer("ok", [MANY_TOOLS_SERVER], { TOOL_COUNT: "3" })],
      { logFile, startupTimeoutMs: 1000 },
    );
    const elapsed = Date.now() - started;
    try {
      expect(servers.statuses).toEqual([
        {
          name: "silent",
          status: "failed",
          error:
            "no answer within the start-up timeout (1000 ms); last output: silent: reading stdin, answering nothing",
        },
        { name: "ok", status: "connected" },
      ]);
      expect(servers.tools.filter((tool) => tool.server === "ok")).toHaveLength(3 + 4);
      expect(elapsed).toBeGreaterThanOrEqual(1000);
      expect(elapsed).toBeLessThan(1000 + 1500);
    } finally {
      await servers.close();
    }
  });

  test("a start aborted by its signal (ion is ending) fails at once instead of waiting", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const starting = startMcpServers([bunServer("silent", [SILENT_SERVER])], {
      logFile,
      signal: controller.signal,
    });
    controller.abort();
    const servers = await starting;
    const [status] = servers.statuses;
    expect(status?.status === "failed" && status.error).toStartWith("start cancelled");
    expect(Date.now() - started).toBeLessThan(1000);
    await servers.close();
  });

  test("a command that does not exist fails at once with its name", async () => {
    const servers = await startMcpServers(
      [{ name: "nothing", type: "stdio", command: "ion-test-no-such-command", args: [], env: {} }],
      { logFile },
    );
    expect(servers.statuses).toEqual([
      { name: "nothing", status: "failed", error: "command not found: ion-test-no-such-command" },
    ]);
    expect(servers.tools).toEqual([]);
    await servers.close();
  });
});
