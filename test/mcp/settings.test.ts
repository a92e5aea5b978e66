// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} written literally is what config files hold
/**
 * The MCP settings of ion's config: `mcp.startup_timeout_ms` / `mcp.tool_timeout_ms` (validated, a
 * project may set them), `mcpServers` (only a trusted project; secrets in its env, headers and urls
 * masked), the check before a server is written, and where a server's log goes.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { filterProjectConfig, projectKeyRule } from "../../src/config/project-rules.ts";
import { ConfigSchema, validate } from "../../src/config/schema.ts";
import { mcpLogFile } from "../../src/mcp/log-path.ts";
import { mcpSettingProblem } from "../../src/mcp/setting.ts";
import { holdsSecret, maskConfigSecrets } from "../../src/util/secrets.ts";

describe("mcp.startup_timeout_ms and mcp.tool_timeout_ms", () => {
  test("positive whole milliseconds up to a day; anything else names the field", () => {
    expect(validate(ConfigSchema, { mcp: { startup_timeout_ms: 5000, tool_timeout_ms: 600_000 } })).toEqual({
      ok: true,
      value: { mcp: { startup_timeout_ms: 5000, tool_timeout_ms: 600_000 } },
      unknownKeys: [],
    });
    expect(validate(ConfigSchema, { mcp: { startup_timeout_ms: 0 } })).toEqual({
      ok: false,
      error: "mcp.startup_timeout_ms: expected number to be >0",
    });
    expect(validate(ConfigSchema, { mcp: { tool_timeout_ms: 1.5 } })).toEqual({
      ok: false,
      error: "mcp.tool_timeout_ms: expected int, received number",
    });
    expect(validate(ConfigSchema, { mcp: { tool_timeout_ms: 86_400_001 } })).toEqual({
      ok: false,
      error: "mcp.tool_timeout_ms: expected number to be <=86400000",
    });
    expect(validate(ConfigSchema, { mcp: { startup_timeout: 1 } })).toMatchObject({
      ok: true,
      unknownKeys: ["mcp.startup_timeout"],
    });
  });

  test("an untrusted project may set the timeouts, not servers", () => {
    expect(projectKeyRule(["mcp", "startup_timeout_ms"])).toBe("project");
    expect(projectKeyRule(["mcp", "tool_timeout_ms"])).toBe("project");
    expect(projectKeyRule(["mcpServers", "x", "command"])).toBe("trusted");
    const raw = { mcp: { tool_timeout_ms: 300_000 }, mcpServers: { x: { command: "x" } } };
    expect(filterProjectConfig(raw, { trusted: false })).toEqual({
      kept: { mcp: { tool_timeout_ms: 300_000 } },
      ignored: [{ path: "mcpServers", rule: "trusted" }],
    });
    expect(filterProjectConfig(raw, { trusted: true }).kept).toEqual(raw);
  });
});

describe("loading mcpServers", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "ion-mcp-settings-"));
    mkdirSync(join(root, "config"));
    mkdirSync(join(root, "project", ".ion"), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test("a server entry the MCP parser would skip is no config error: every command still loads", async () => {
    const file = join(root, "config", "config.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { bad: { url: "no type" }, odd: 5 } }), { mode: 0o600 });
    const loaded = await loadConfig({
      cwd: join(root, "project"),
      env: { HOME: root, ION_CONFIG_DIR: join(root, "config") },
    });
    expect(loaded.config.mcpServers).toEqual({ bad: { url: "no type" }, odd: 5 });
    expect(loaded.warnings).toEqual([]);
  });

  test("a project's timeouts load untrusted; its servers are named in the one warning", async () => {
    const project = join(root, "project");
    writeFileSync(
      join(project, ".ion", "config.json"),
      JSON.stringify({ mcp: { startup_timeout_ms: 30_000 }, mcpServers: { x: { command: "x" } } }),
    );
    const loaded = await loadConfig({
      cwd: project,
      env: { HOME: root, ION_CONFIG_DIR: join(root, "config") },
    });
    expect(loaded.config).toEqual({ mcp: { startup_timeout_ms: 30_000 } });
    expect(loaded.sources["mcp.startup_timeout_ms"]).toBe("project");
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings[0]).toStartWith(`ignored "mcpServers" in ${join(project, ".ion", "config.json")}`);
  });
});

describe("secrets of MCP servers", () => {
  const config = () => ({
    mcpServers: {
      gh: { command: "gh-mcp", env: { GITHUB_TOKEN: "ghp-test-0000001234", LOG_LEVEL: "debug" } },
      web: {
        type: "http",
        url: "https://user:test-password@mcp.example.invalid/mcp?key=test-key-123",
        headers: { Authorization: "Bearer test-token-5678", "X-Client": "ion" },
      },
    },
  });

  test("env values with secret-looking names, secret headers and URL credentials are masked", () => {
    const view = config();
    maskConfigSecrets(view);
    expect(view.mcpServers.gh.env).toEqual({ GITHUB_TOKEN: "…1234", LOG_LEVEL: "debug" });
    expect(view.mcpServers.web.url).toBe("https://***@mcp.example.invalid/mcp?key=***");
    expect(view.mcpServers.web.headers).toEqual({ Authorization: "Bearer …5678", "X-Client": "ion" });
    expect(view.mcpServers.gh.command).toBe("gh-mcp");
  });

  test("holdsSecret sees them, so a config holding one is kept private", () => {
    expect(holdsSecret({ mcpServers: { gh: { env: { GITHUB_TOKEN: "t" } } } })).toBe(true);
    expect(holdsSecret({ mcpServers: { w: { url: "https://u:p@host/mcp" } } })).toBe(true);
    expect(holdsSecret({ mcpServers: { gh: { command: "x", env: { LOG_LEVEL: "debug" } } } })).toBe(false);
    expect(holdsSecret({ mcpServers: { w: { type: "http", url: "https://host/mcp" } } })).toBe(false);
  });
});

describe("mcpSettingProblem", () => {
  const file = "/cfg/config.json";

  test("a server ion could start is no problem, nor is an unset ${VAR} (it may be set by then)", () => {
    expect(
      mcpSettingProblem({}, ["mcpServers", "a"], { command: "x", args: ["${NOT_SET_HERE}"] }, file),
    ).toBe(undefined);
    expect(mcpSettingProblem({}, ["mcpServers", "b"], { type: "sse", url: "https://h/sse" }, file)).toBe(
      undefined,
    );
    expect(mcpSettingProblem({}, ["model"], "x", file)).toBe(undefined);
  });

  test("one the parser would skip is refused with the parser's reason", () => {
    expect(mcpSettingProblem({}, ["mcpServers", "w"], { url: "https://h/mcp" }, file)).toBe(
      `MCP server "w" (${file}): has a "url" but no "type": add "type": "http" (or "sse")`,
    );
    expect(mcpSettingProblem({}, ["mcpServers", "w"], { type: "http", url: "ftp://h" }, file)).toBe(
      `MCP server "w" (${file}): url must be http(s)`,
    );
  });

  test("a deeper path is judged by the whole entry it leaves; other, older entries are not its business", () => {
    const current = { mcpServers: { a: { command: "x" }, old: { url: "no type" } } };
    expect(mcpSettingProblem(current, ["mcpServers", "a", "args"], ["--flag"], file)).toBe(undefined);
    expect(mcpSettingProblem(current, ["mcpServers", "a", "command"], "", file)).toBe(
      `MCP server "a" (${file}): "command" is empty`,
    );
  });
});

describe("mcpLogFile", () => {
  test("<data>/mcp-logs/<server>.log; a name that is not safe as a file name is cleaned and told apart", () => {
    expect(mcpLogFile("/data", "files")).toBe("/data/mcp-logs/files.log");
    const slashed = mcpLogFile("/data", "../a/b");
    expect(slashed).toMatch(/^\/data\/mcp-logs\/___a_b-[0-9a-f]{8}\.log$/);
    expect(mcpLogFile("/data", "___a_b")).toBe("/data/mcp-logs/___a_b.log");
    expect(mcpLogFile("/data", "../a/b")).toBe(slashed);
  });
});
