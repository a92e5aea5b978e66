// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} written literally is what .mcp.json holds
/**
 * Which MCP servers a session would start, and from which file: the user's config always, a project's
 * `.ion/config.json` and `.mcp.json` only when trusted; a name defined twice starts once, the user's
 * own first, with one warning. Real files in temp dirs.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectMcpServers, mcpSourceFiles, trustOptions } from "../../src/mcp/sources.ts";

let root: string;
let configDir: string;
let project: string;
let env: Record<string, string>;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ion-mcp-sources-")));
  configDir = join(root, "config");
  project = join(root, "project");
  mkdirSync(configDir, { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, ".ion"), { recursive: true });
  env = { HOME: join(root, "home"), ION_CONFIG_DIR: configDir, ION_TEST_DIR: "/srv/data" };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const userFile = () => join(configDir, "config.json");
const projectConfig = () => join(project, ".ion", "config.json");
const mcpJson = () => join(project, ".mcp.json");
const write = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value, null, 2));

function writeAll(): void {
  write(userFile(), {
    model: "openai/gpt-4o",
    mcpServers: {
      files: { command: "files-server", args: ["${ION_TEST_DIR}"] },
      shared: { command: "user-shared" },
    },
  });
  write(projectConfig(), { mcpServers: { tracker: { type: "http", url: "http://127.0.0.1:9/mcp" } } });
  write(mcpJson(), {
    mcpServers: {
      shared: { command: "project-shared" },
      tracker: { command: "mcp-json-tracker" },
      docs: { type: "sse", url: "http://127.0.0.1:9/sse" },
      broken: { url: "http://127.0.0.1:9/mcp" },
    },
  });
}

describe("collectMcpServers", () => {
  test("nothing configured: no servers, nothing skipped, nothing to say", async () => {
    expect(await collectMcpServers({ cwd: project, env, trusted: true })).toEqual({
      servers: [],
      skipped: [],
      warnings: [],
    });
  });

  test("untrusted: only the user's servers; the project's are named as skipped, unparsed", async () => {
    writeAll();
    const { servers, skipped, warnings } = await collectMcpServers({ cwd: project, env, trusted: false });
    expect(servers).toEqual([
      {
        file: userFile(),
        scope: "user",
        definition: { name: "files", type: "stdio", command: "files-server", args: ["/srv/data"], env: {} },
      },
      {
        file: userFile(),
        scope: "user",
        definition: { name: "shared", type: "stdio", command: "user-shared", args: [], env: {} },
      },
    ]);
    expect(skipped).toEqual([
      { file: projectConfig(), scope: "project", name: "tracker", transport: "http" },
      { file: mcpJson(), scope: "project", name: "shared", transport: "stdio" },
      { file: mcpJson(), scope: "project", name: "tracker", transport: "stdio" },
      { file: mcpJson(), scope: "project", name: "docs", transport: "sse" },
      { file: mcpJson(), scope: "project", name: "broken", transport: undefined },
    ]);
    // The untrusted file is not checked: its broken entry is not the user's problem yet.
    expect(warnings).toEqual([]);
  });

  test("trusted: user, then .ion/config.json, then .mcp.json; a name defined twice is started once with one warning", async () => {
    writeAll();
    const { servers, skipped, warnings } = await collectMcpServers({ cwd: project, env, trusted: true });
    expect(skipped).toEqual([]);
    expect(servers.map((s) => [s.definition.name, s.file, s.scope])).toEqual([
      ["files", userFile(), "user"],
      ["shared", userFile(), "user"],
      ["tracker", projectConfig(), "project"],
      ["docs", mcpJson(), "project"],
    ]);
    // The user's own definition wins over the project's: a project adds servers, never replaces one.
    expect(servers.find((s) => s.definition.name === "shared")?.definition).toMatchObject({
      command: "user-shared",
    });
    expect(warnings).toEqual([
      `MCP server "broken" (${mcpJson()}): has a "url" but no "type": add "type": "http" (or "sse"); skipped`,
      `MCP server "shared" is defined in ${userFile()} and ${mcpJson()}; the one in ${userFile()} is used`,
      `MCP server "tracker" is defined in ${projectConfig()} and ${mcpJson()}; the one in ${projectConfig()} is used`,
    ]);
  });

  test("a name in all three files is one warning naming each", async () => {
    write(userFile(), { mcpServers: { x: { command: "a" } } });
    write(projectConfig(), { mcpServers: { x: { command: "b" } } });
    write(mcpJson(), { mcpServers: { x: { command: "c" } } });
    const { servers, warnings } = await collectMcpServers({ cwd: project, env, trusted: true });
    expect(servers.map((s) => s.definition)).toEqual([
      { name: "x", type: "stdio", command: "a", args: [], env: {} },
    ]);
    expect(warnings).toEqual([
      `MCP server "x" is defined in ${userFile()}, ${projectConfig()} and ${mcpJson()}; the one in ${userFile()} is used`,
    ]);
  });

  test(".mcp.json is the project root's: found from a subdirectory of the repository", async () => {
    write(mcpJson(), { mcpServers: { docs: { command: "docs-server" } } });
    const sub = join(project, "packages", "web");
    mkdirSync(sub, { recursive: true });
    expect(mcpSourceFiles(sub, env)).toEqual({
      user: userFile(),
      projectConfig: join(sub, ".ion", "config.json"),
      mcpJson: mcpJson(),
      root: project,
    });
    const { servers } = await collectMcpServers({ cwd: sub, env, trusted: true });
    expect(servers.map((s) => [s.definition.name, s.file])).toEqual([["docs", mcpJson()]]);
  });

  test("a .mcp.json that links out of the project is not read, even when trusted", async () => {
    const outside = join(root, "elsewhere.json");
    write(outside, { mcpServers: { sneaky: { command: "x" } } });
    symlinkSync(outside, mcpJson());
    const trusted = await collectMcpServers({ cwd: project, env, trusted: true });
    expect(trusted.servers).toEqual([]);
    expect(trusted.warnings).toEqual([
      `skipped ${mcpJson()}: it resolves outside the project (to ${outside})`,
    ]);
    const untrusted = await collectMcpServers({ cwd: project, env, trusted: false });
    expect(untrusted.skipped).toEqual([]);
  });

  test("given the .mcp.json servers the trust decision hashed, the file is not read again", async () => {
    write(mcpJson(), { mcpServers: { swapped: { command: "changed-after-the-decision" } } });
    const trustedMcpJson = { servers: { docs: { command: "docs-server" } } };
    const { servers } = await collectMcpServers({ cwd: project, env, trusted: true, trustedMcpJson });
    expect(servers).toEqual([
      {
        file: mcpJson(),
        scope: "project",
        definition: { name: "docs", type: "stdio", command: "docs-server", args: [], env: {} },
      },
    ]);
    const none = await collectMcpServers({
      cwd: project,
      env,
      trusted: true,
      trustedMcpJson: { servers: undefined },
    });
    expect(none.servers).toEqual([]);
  });

  test("a trust decision becomes the options: trusted takes the servers it hashed; untrusted or none reads nothing", () => {
    const project = (servers: Record<string, unknown> | undefined) => ({
      root,
      items: [],
      hash: "h",
      mcpServers: servers,
      warnings: [],
    });
    const servers = { docs: { command: "docs-server" } };
    expect(trustOptions({ trusted: true, project: project(servers) })).toEqual({
      trusted: true,
      trustedMcpJson: { servers },
    });
    expect(trustOptions({ trusted: false, project: project(servers) })).toEqual({ trusted: false });
    expect(trustOptions(undefined)).toEqual({ trusted: false });
  });

  test("a .mcp.json that is not JSON is one warning when trusted, and nothing is started from it", async () => {
    writeFileSync(mcpJson(), "{ not json");
    const { servers, warnings } = await collectMcpServers({ cwd: project, env, trusted: true });
    expect(servers).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith(`MCP servers in ${mcpJson()}: not valid JSON`);
  });
});
