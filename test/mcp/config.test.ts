// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} written literally is what .mcp.json holds
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseMcpJson, parseMcpServers } from "../../src/mcp/config.ts";
import { expandString } from "../../src/mcp/expand.ts";

const FIXTURES = resolve(import.meta.dir, "../../../shared/fixtures/agents/mcp");

describe("${VAR} expansion", () => {
  const env = { SET: "value", EMPTY: "" };

  test("${VAR} takes the variable; ${VAR:-x} its default only when unset", () => {
    expect(expandString("a ${SET} b", env)).toEqual({ value: "a value b", missing: [] });
    expect(expandString("${UNSET:-fallback}", env)).toEqual({ value: "fallback", missing: [] });
    expect(expandString("${SET:-fallback}", env)).toEqual({ value: "value", missing: [] });
    expect(expandString("${UNSET:-}", env)).toEqual({ value: "", missing: [] });
    // Set but empty is set, as Claude Code reads it (unlike a shell's :-).
    expect(expandString("${EMPTY:-fallback}", env)).toEqual({ value: "", missing: [] });
    expect(expandString("${UNSET:-a:-b}", env)).toEqual({ value: "a:-b", missing: [] });
  });

  test("an unset variable without a default stays literal and is reported once", () => {
    expect(expandString("${NOPE}/${NOPE}", env)).toEqual({ value: "${NOPE}/${NOPE}", missing: ["NOPE"] });
  });

  test("a bare $VAR is left alone", () => {
    expect(expandString("$SET and $HOME", env)).toEqual({ value: "$SET and $HOME", missing: [] });
  });
});

describe("parseMcpServers", () => {
  test("stdio (with or without type) and remote servers, expanded in command, args, env, url and headers", () => {
    const env = { BIN: "/opt/bin", TOKEN: "test-token-123", HOST: "127.0.0.1" };
    const { servers, warnings } = parseMcpServers(
      {
        plain: { command: "${BIN}/server", args: ["--root", "${ROOT:-/srv}"], env: { T: "${TOKEN}" } },
        typed: { type: "stdio", command: "node", cwd: "tools" },
        web: { type: "http", url: "http://${HOST}:8080/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        legacy: { type: "sse", url: "https://${HOST:-example.invalid}/sse" },
      },
      ".mcp.json",
      env,
    );
    expect(warnings).toEqual([]);
    expect(servers).toEqual([
      {
        name: "plain",
        type: "stdio",
        command: "/opt/bin/server",
        args: ["--root", "/srv"],
        env: { T: "test-token-123" },
      },
      { name: "typed", type: "stdio", command: "node", args: [], env: {}, cwd: "tools" },
      {
        name: "web",
        type: "http",
        url: "http://127.0.0.1:8080/mcp",
        headers: { Authorization: "Bearer test-token-123" },
      },
      { name: "legacy", type: "sse", url: "https://127.0.0.1/sse", headers: {} },
    ]);
  });

  test("each bad entry is one warning naming it; the good ones still load", () => {
    const { servers, warnings } = parseMcpServers(
      {
        good: { command: "ok" },
        notObject: "npx server",
        noCommand: { args: ["x"] },
        badArgs: { command: "x", args: "--flag" },
        numericEnv: { command: "x", env: { PORT: 8080 } },
        websocket: { type: "ws", url: "ws://127.0.0.1" },
        untypedUrl: { url: "http://127.0.0.1/mcp" },
        badUrl: { type: "http", url: "not a url" },
        ftp: { type: "sse", url: "ftp://127.0.0.1/x" },
      },
      "config",
      {},
    );
    expect(servers.map((server) => server.name)).toEqual(["good"]);
    expect(warnings).toHaveLength(8);
    for (const warning of warnings) {
      expect(warning).toMatch(/^MCP server "\w+" \(config\): .*skipped$/);
      expect(warning).not.toContain("\n");
    }
    expect(warnings.find((w) => w.includes('"noCommand"'))).toContain("command");
    // The entry's own words, never the validator's ("Invalid input: expected string, received undefined").
    expect(warnings.find((w) => w.includes('"noCommand"'))).toBe(
      'MCP server "noCommand" (config): has no "command" (a stdio server) or "url" (a remote one); skipped',
    );
    expect(warnings.find((w) => w.includes('"badArgs"'))).toBe(
      'MCP server "badArgs" (config): "args" must be a list; skipped',
    );
    expect(warnings.find((w) => w.includes('"numericEnv"'))).toBe(
      'MCP server "numericEnv" (config): "env.PORT" must be a string; skipped',
    );
    for (const warning of warnings) expect(warning).not.toMatch(/Invalid input|received|Too small/);
    expect(warnings.find((w) => w.includes('"websocket"'))).toContain('unsupported type "ws"');
    expect(warnings.find((w) => w.includes('"untypedUrl"'))).toContain('add "type": "http"');
    expect(warnings.find((w) => w.includes('"ftp"'))).toContain("url must be http(s)");
  });

  test("an unset variable without a default warns with the server and variable, and the server is kept", () => {
    const { servers, warnings } = parseMcpServers(
      { gh: { command: "gh-server", env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } } },
      ".mcp.json",
      {},
    );
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({ env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } });
    expect(warnings).toEqual([
      'MCP server "gh" (.mcp.json): environment variable GITHUB_TOKEN is not set and has no default; the literal "${GITHUB_TOKEN}" is used',
    ]);
  });

  test("mcpServers that is not an object is one warning and no servers", () => {
    expect(parseMcpServers(["a"], "config", {})).toEqual({
      servers: [],
      warnings: ['MCP servers in config: "mcpServers" must be an object of named servers; none loaded'],
    });
  });
});

describe("parseMcpJson", () => {
  test("Claude Code's own .mcp.json (claude-code-action) loads every server", () => {
    const text = readFileSync(`${FIXTURES}/mcp.json--anthropics-claude-code-action.json`, "utf8");
    const env = {
      CLAUDE_PLUGIN_ROOT: "/plugin",
      GITHUB_TOKEN: "test-token-123",
      GITHUB_PERSONAL_ACCESS_TOKEN: "test-token-456",
      REPO_OWNER: "o",
      REPO_NAME: "r",
      PR_NUMBER: "7",
      BRANCH_NAME: "b",
      REPO_DIR: "/repo",
    };
    const { servers, warnings } = parseMcpJson(text, ".mcp.json", env);
    expect(warnings).toEqual([]);
    expect(servers.map((s) => s.name)).toEqual([
      "github_comment",
      "github_inline_comment",
      "github_file_ops",
      "github_ci",
      "github",
    ]);
    const comment = servers[0];
    expect(comment?.type).toBe("stdio");
    if (comment?.type !== "stdio") throw new Error("stdio expected");
    expect(comment.args).toEqual([
      "--no-env-file",
      "--config=/plugin/bunfig.toml",
      "run",
      "/plugin/src/mcp/github-comment-server.ts",
    ]);
    expect(comment.env).toMatchObject({
      GITHUB_TOKEN: "test-token-123",
      CLAUDE_COMMENT_ID: "",
      GITHUB_API_URL: "https://api.github.com",
    });
  });

  test("claude_desktop_config.json's shape (no type) is a stdio server", () => {
    const text = readFileSync(
      `${FIXTURES}/claude_desktop_config--modelcontextprotocol-servers-memory.json`,
      "utf8",
    );
    const { servers, warnings } = parseMcpJson(text, "claude_desktop_config.json", {});
    expect(warnings).toEqual([]);
    expect(servers).toEqual([
      {
        name: "memory",
        type: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-memory"],
        env: { MEMORY_FILE_PATH: "/path/to/custom/memory.jsonl" },
      },
    ]);
  });

  test("a file that is not JSON, or has no mcpServers, is one warning", () => {
    const broken = parseMcpJson("{ nope", ".mcp.json", {});
    expect(broken.servers).toEqual([]);
    expect(broken.warnings).toHaveLength(1);
    expect(broken.warnings[0]).toStartWith("MCP servers in .mcp.json: not valid JSON");
    expect(parseMcpJson('{"servers": {}}', ".mcp.json", {}).warnings).toEqual([
      'MCP servers in .mcp.json: no "mcpServers" object; none loaded',
    ]);
  });
});
