/**
 * Whether a session starts MCP servers, decided without loading the MCP client: the user's (or a
 * trusted project's) config `mcpServers`, or a trusted project's `.mcp.json` as the trust gate read it.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mcpConfigured, SessionMcp } from "../../src/agent/session-mcp.ts";
import type { ProjectTrust } from "../../src/agent/session-options.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";

function trust(trusted: boolean, mcpServers: Record<string, unknown> | undefined): ProjectTrust {
  return { trusted, project: { root: "/project", items: [], hash: "0", mcpServers, warnings: [] } };
}

const server = { command: "notes-server" };

describe("mcpConfigured", () => {
  test("nothing configured: no server, whatever the trust", () => {
    expect(mcpConfigured({}, undefined)).toBe(false);
    expect(mcpConfigured({ mcpServers: {} }, trust(true, {}))).toBe(false);
    expect(mcpConfigured({}, trust(true, undefined))).toBe(false);
  });

  test("config mcpServers (the loader keeps a project's only when trusted)", () => {
    expect(mcpConfigured({ mcpServers: { notes: server } }, undefined)).toBe(true);
  });

  test("a project's .mcp.json counts only when the project is trusted", () => {
    expect(mcpConfigured({}, trust(false, { notes: server }))).toBe(false);
    expect(mcpConfigured({}, trust(true, { notes: server }))).toBe(true);
  });
});

describe("SessionMcp", () => {
  test("a config that became unreadable since it loaded: one warning, no server, and the session goes on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ion-session-mcp-"));
    try {
      const env = { ION_CONFIG_DIR: join(dir, "config"), ION_DATA_DIR: join(dir, "data"), HOME: dir };
      mkdirSync(env.ION_CONFIG_DIR);
      writeFileSync(join(env.ION_CONFIG_DIR, "config.json"), "{ not json");
      const notices: string[] = [];
      const mcp = SessionMcp.start({
        cwd: dir,
        env,
        config: { mcpServers: { notes: server } },
        trust: undefined,
        notice: (line) => notices.push(line),
      });
      if (!mcp) throw new Error("expected the servers to start");
      const registry = new ToolRegistry();
      await mcp.join(registry, undefined, new AbortController().signal);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toStartWith(
        `warning: MCP servers not started: ${join(env.ION_CONFIG_DIR, "config.json")}: invalid JSON`,
      );
      expect(mcp.states).toEqual([]);
      expect(registry.offered()).toEqual([]);
      await mcp.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
