/**
 * End to end: `ion mcp add|list|tools|remove` through the real CLI against the real server-filesystem
 * from node_modules (run with this bun: nothing is downloaded), a server that fails at start-up, and
 * a project's `.mcp.json` that only starts when the project is trusted. Also the MCP config keys
 * through `ion config set/show`.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FILESYSTEM_SERVER, SILENT_SERVER } from "../mcp/support.ts";
import { type IonRun, Sandbox } from "../support/cli.ts";

const BUN = process.execPath;

function json<T>(run: IonRun): T {
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

function configOf(box: Sandbox): Record<string, unknown> {
  return JSON.parse(readFileSync(join(box.configDir, "config.json"), "utf8")) as Record<string, unknown>;
}

describe("ion mcp add / list / tools / remove", () => {
  test("round trip: a working server and a failing one, as tables and as JSON", async () => {
    using box = new Sandbox();
    writeFileSync(join(box.workspace, "notes.txt"), "hello\n");
    const config = join(box.configDir, "config.json");
    const addFiles = await box.run([
      "mcp",
      "add",
      "files",
      "--env",
      "ION_TEST_MODE=e2e",
      "--",
      BUN,
      FILESYSTEM_SERVER,
      box.workspace,
    ]);
    expect(addFiles.stderr).toBe("");
    expect(addFiles.code).toBe(0);
    expect(addFiles.stdout).toBe(
      `added MCP server "files" (stdio: ${BUN} ${FILESYSTEM_SERVER} ${box.workspace} with ION_TEST_MODE) to ${config}\n`,
    );
    const script = "console.error('cannot start: no database'); process.exit(3)";
    const addBroken = await box.run(["mcp", "add", "broken", "--", BUN, "-e", script]);
    expect(addBroken.code).toBe(0);
    expect(configOf(box)).toEqual({
      mcpServers: {
        files: { command: BUN, args: [FILESYSTEM_SERVER, box.workspace], env: { ION_TEST_MODE: "e2e" } },
        broken: { command: BUN, args: ["-e", script] },
      },
    });

    const [listed, table] = await Promise.all([box.run(["mcp", "list", "--json"]), box.run(["mcp", "list"])]);
    const logs = join(box.dataDir, "mcp-logs");
    expect(json(listed)).toEqual([
      {
        name: "files",
        source: config,
        scope: "user",
        transport: "stdio",
        status: "connected",
        error: null,
        tools: expect.any(Number),
        log: join(logs, "files.log"),
      },
      {
        name: "broken",
        source: config,
        scope: "user",
        transport: "stdio",
        status: "failed",
        error: "the server exited during start-up; last output: cannot start: no database",
        tools: null,
        log: join(logs, "broken.log"),
      },
    ]);
    expect((json<Array<{ tools: number }>>(listed)[0]?.tools ?? 0) > 5).toBe(true);
    expect(readFileSync(join(logs, "broken.log"), "utf8")).toContain("cannot start: no database");
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+SOURCE\s+TRANSPORT\s+STATUS\s+TOOLS\s+LOG$/);
    expect(lines[1]).toMatch(/^files\s+\S+config\.json\s+stdio\s+connected\s+\d+\s+\S+files\.log$/);
    expect(lines[2]).toMatch(/^broken\s+\S+config\.json\s+stdio\s+failed: the server exited during start-up/);

    const [tools, toolTable] = await Promise.all([
      box.run(["mcp", "tools", "files", "--json"]),
      box.run(["mcp", "tools", "files"]),
    ]);
    const items =
      json<Array<{ name: string; full_name: string; read_only: boolean; description: string }>>(tools);
    expect(items.find((item) => item.name === "read_text_file")).toMatchObject({
      full_name: "mcp__files__read_text_file",
      read_only: true,
    });
    expect(items.find((item) => item.name === "write_file")).toMatchObject({
      full_name: "mcp__files__write_file",
      read_only: false,
    });
    expect(items.every((item) => item.description.length > 0)).toBe(true);
    expect(toolTable.code).toBe(0);
    expect(toolTable.stdout).toMatch(/^TOOL\s+READ-ONLY\s+DESCRIPTION\n/);
    expect(toolTable.stdout).toMatch(/^read_text_file\s+yes\s+Read the complete contents/m);
    expect(toolTable.stdout).toMatch(/^write_file\s+no\s+/m);
    expect(toolTable.stdout.trimEnd().split("\n")).toHaveLength(items.length + 1);

    const failedTools = await box.run(["mcp", "tools", "broken"]);
    expect(failedTools.code).toBe(1);
    expect(failedTools.stderr).toBe(
      `ion: MCP server "broken" failed to start: the server exited during start-up; last output: cannot start: no database\n` +
        `  hint: its log: ${join(logs, "broken.log")}\n`,
    );

    const removed = await box.run(["mcp", "remove", "broken"]);
    expect(removed.stdout).toBe(`removed MCP server "broken" from ${config}\n`);
    expect(
      json<Array<{ name: string }>>(await box.run(["mcp", "list", "--json"])).map((s) => s.name),
    ).toEqual(["files"]);
    await box.run(["mcp", "remove", "files"]);
    expect(configOf(box)).toEqual({});
    const empty = await box.run(["mcp", "list"]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe("");
    expect(empty.stderr).toStartWith("no MCP servers configured: `ion mcp add NAME -- COMMAND [ARGS…]`");
    expect(json(await box.run(["mcp", "list", "--json"]))).toEqual([]);
  });

  test("add --url with headers: written as Claude Code writes it, secrets masked when echoed", async () => {
    using box = new Sandbox();
    const config = join(box.configDir, "config.json");
    const run = await box.run([
      "mcp",
      "add",
      "tracker",
      "--url",
      "http://127.0.0.1:9/sse",
      "--transport",
      "sse",
      "-H",
      "Authorization: Bearer test-token-123456",
      "--header",
      "X-Client:ion",
    ]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      `added MCP server "tracker" (sse: http://127.0.0.1:9/sse with Authorization: Bearer …3456, X-Client: ion) to ${config}\n`,
    );
    expect(configOf(box)).toEqual({
      mcpServers: {
        tracker: {
          type: "sse",
          url: "http://127.0.0.1:9/sse",
          headers: { Authorization: "Bearer test-token-123456", "X-Client": "ion" },
        },
      },
    });
    const show = await box.run(["config", "show"]);
    expect(show.stdout).toMatch(/^mcpServers\.tracker\.headers\.Authorization\s+"Bearer …3456"/m);
    expect(show.stdout).not.toContain("test-token-123456");
  });

  test("add refuses what could not work, and writes nothing", async () => {
    using box = new Sandbox();
    await box.writeConfig({ mcpServers: { files: { command: "x" } } });
    const before = readFileSync(join(box.configDir, "config.json"), "utf8");
    const cases: Array<[string[], number, string]> = [
      [
        ["files", "--", "y"],
        1,
        `ion: MCP server "files" already exists in ${join(box.configDir, "config.json")}`,
      ],
      [["web", "--url", "ftp://host/mcp"], 1, 'ion: cannot add web: MCP server "web"'],
      [["web", "--url", "http://h/mcp", "--", "x"], 64, "ion: give a command after -- or a --url, not both"],
      [["web", "npx", "server"], 64, 'ion: unexpected argument "npx" for "ion mcp add"'],
      [["web"], 64, 'ion: "ion mcp add web" needs a command after -- or a --url'],
      [["a.b", "--", "x"], 64, 'ion: "a.b" is not a server name'],
      [["web", "--env", "NOEQUALS", "--", "x"], 64, 'ion: --env needs KEY=VALUE, got "NOEQUALS"'],
      [["web", "--header", "X: y", "--", "x"], 64, "ion: --header is for a --url server"],
      [
        ["web", "--url", "http://h/mcp", "--transport", "ws"],
        64,
        "ion: --transport must be one of http, sse",
      ],
    ];
    const runs = await Promise.all(cases.map(([args]) => box.run(["mcp", "add", ...args])));
    for (const [i, run] of runs.entries()) {
      const [args, code, message] = cases[i]!;
      expect({ args, code: run.code, stderr: run.stderr.split("\n")[0] }).toEqual({
        args,
        code,
        stderr: expect.stringContaining(message),
      });
    }
    expect(runs[3]!.stderr).toContain(
      "hint: a server's command goes after --: `ion mcp add web -- npx server`",
    );
    expect(readFileSync(join(box.configDir, "config.json"), "utf8")).toBe(before);
  });

  test("a config that is not JSON: add, remove and list fail naming it, and it is left as it was", async () => {
    using box = new Sandbox();
    const config = join(box.configDir, "config.json");
    writeFileSync(config, "{ not json");
    for (const args of [["add", "x", "--", "true"], ["remove", "x"], ["list"]]) {
      const run = await box.run(["mcp", ...args]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`${config}: invalid JSON`);
      expect(readFileSync(config, "utf8")).toBe("{ not json");
    }
  });

  test("a command line is shown as a POSIX shell takes it: words with $ or quotes single-quoted", async () => {
    using box = new Sandbox();
    const hint = await box.run(["mcp", "add", "web", "npx", "it's $HOME"]);
    expect(hint.code).toBe(64);
    expect(hint.stderr).toContain("`ion mcp add web -- npx 'it'\\''s $HOME'`");
    const added = await box.run(["mcp", "add", "echo", "--", "echo", "a b", "$x"]);
    expect(added.code).toBe(0);
    expect(added.stdout).toStartWith(`added MCP server "echo" (stdio: echo 'a b' '$x') to `);
  });
});

describe("a project's servers", () => {
  test("untrusted: listed as not started, and nothing runs; --trust-project starts them", async () => {
    using box = new Sandbox();
    mkdirSync(join(box.workspace, ".git"));
    const marker = join(box.root, "project-server-ran");
    const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); process.exit(3)`;
    writeFileSync(
      join(box.workspace, ".mcp.json"),
      JSON.stringify({
        mcpServers: { project: { command: BUN, args: ["-e", script] }, mine: { command: "x" } },
      }),
    );
    await box.writeConfig({
      mcpServers: { mine: { command: BUN, args: [FILESYSTEM_SERVER, box.workspace] } },
    });
    const mcpJson = join(box.workspace, ".mcp.json");

    const untrusted = await box.run(["mcp", "list"]);
    expect(untrusted.code).toBe(0);
    expect(untrusted.stdout).toMatch(
      /^project\s+\S+\.mcp\.json\s+stdio\s+untrusted \(not started\)\s+-\s+-$/m,
    );
    expect(untrusted.stdout).toMatch(/^mine\s+\S+config\.json\s+stdio\s+connected\s+\d+/m);
    expect(untrusted.stderr).toBe(
      `ion: warning: untrusted project ${box.workspace}: ignored MCP servers "project", "mine" in ${mcpJson}; ` +
        "to trust it: `ion config trust`, or --trust-project or ION_TRUST_PROJECT=1 for one run\n",
    );
    expect(existsSync(marker)).toBe(false);
    const tools = await box.run(["mcp", "tools", "project"]);
    expect(tools.code).toBe(1);
    expect(tools.stderr).toBe(
      `ion: MCP server "project" is defined by ${mcpJson}, and the project is not trusted\n` +
        "  hint: `ion config trust` trusts it; `ion mcp tools project --trust-project` starts it once\n",
    );
    expect(existsSync(marker)).toBe(false);

    const trusted = await box.run(["mcp", "list", "--json", "--trust-project"]);
    expect(trusted.code).toBe(0);
    // The user's own "mine" wins over the project's: one warning, once.
    expect(trusted.stderr).toBe(
      `ion: warning: MCP server "mine" is defined in ${join(box.configDir, "config.json")} and ${mcpJson}; ` +
        `the one in ${join(box.configDir, "config.json")} is used\n`,
    );
    const items = JSON.parse(trusted.stdout) as Array<{ name: string; status: string; scope: string }>;
    expect(items.map(({ name, status, scope }) => [name, status, scope])).toEqual([
      ["mine", "connected", "user"],
      ["project", "failed", "project"],
    ]);
    expect(existsSync(marker)).toBe(true);

    // Trusted with `ion config trust`, remembered: the project's servers start without the flag.
    rmSync(marker);
    expect((await box.run(["config", "trust"])).code).toBe(0);
    const remembered = await box.run(["mcp", "list", "--json"]);
    expect(JSON.parse(remembered.stdout).map((item: { name: string }) => item.name)).toEqual([
      "mine",
      "project",
    ]);
    expect(existsSync(marker)).toBe(true);
  });

  test("remove names the project's file instead of touching it", async () => {
    using box = new Sandbox();
    mkdirSync(join(box.workspace, ".git"));
    writeFileSync(
      join(box.workspace, ".mcp.json"),
      JSON.stringify({ mcpServers: { docs: { command: "x" } } }),
    );
    const run = await box.run(["mcp", "remove", "docs"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `ion: MCP server "docs" is defined in ${join(box.workspace, ".mcp.json")}, not in your config\n` +
        `  hint: remove it from that file; \`ion mcp remove\` changes only ${join(box.configDir, "config.json")}\n`,
    );
    const unknown = await box.run(["mcp", "remove", "nosuch"]);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toStartWith(
      `ion: no MCP server "nosuch" in ${join(box.configDir, "config.json")}\n`,
    );
  });
});

describe("MCP config keys", () => {
  test("config set/show of mcp.* and mcpServers; a server that could not start is refused", async () => {
    using box = new Sandbox();
    const config = join(box.configDir, "config.json");
    const project = join(box.workspace, ".ion", "config.json");
    const set = await box.run(["config", "set", "mcp.startup_timeout_ms", "400"]);
    expect(set.stdout).toBe(`mcp.startup_timeout_ms = 400  (${config})\n`);
    const projectSet = await box.run(["config", "set", "--project", "mcp.tool_timeout_ms", "300000"]);
    expect(projectSet.stdout).toBe(`mcp.tool_timeout_ms = 300000  (${project})\n`);
    const zero = await box.run(["config", "set", "mcp.tool_timeout_ms", "0"]);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toBe("ion: cannot set mcp.tool_timeout_ms: expected number to be >0\n");
    const projectServer = await box.run(["config", "set", "--project", "mcpServers.x", '{"command":"x"}']);
    expect(projectServer.code).toBe(1);
    expect(projectServer.stderr).toStartWith(
      "ion: a project file cannot set mcpServers.x until you trust the project\n",
    );

    const noType = await box.run(["config", "set", "mcpServers.web", '{"url":"http://127.0.0.1:9/mcp"}']);
    expect(noType.code).toBe(1);
    expect(noType.stderr).toBe(
      `ion: cannot set mcpServers.web: MCP server "web" (${config}): has a "url" but no "type": add "type": "http" (or "sse")\n`,
    );
    const server = JSON.stringify({
      command: BUN,
      args: [SILENT_SERVER],
      env: { API_TOKEN: "test-token-9876" },
    });
    expect((await box.run(["config", "set", "mcpServers.silent", server])).code).toBe(0);
    const show = await box.run(["config", "show"]);
    expect(show.stdout).toMatch(new RegExp(`^mcp\\.startup_timeout_ms\\s+400\\s+${config}$`, "m"));
    expect(show.stdout).toMatch(new RegExp(`^mcp\\.tool_timeout_ms\\s+300000\\s+${project}$`, "m"));
    expect(show.stdout).toMatch(/^mcpServers\.silent\.env\.API_TOKEN\s+"…9876"/m);
    expect(show.stdout).not.toContain("test-token-9876");

    // The start-up timeout is the one set: the silent server fails after 400 ms, not 10 s.
    const started = Date.now();
    const listed = await box.run(["mcp", "list", "--json"]);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        name: "silent",
        status: "failed",
        error:
          "no answer within the start-up timeout (400 ms); last output: silent: reading stdin, answering nothing",
      }),
    ]);
  });
});
