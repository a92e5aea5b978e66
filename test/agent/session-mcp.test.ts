/**
 * Whether a session starts MCP servers, decided without loading the MCP client: the user's (or a
 * trusted project's) config `mcpServers`, or a trusted project's `.mcp.json` as the trust gate read it.
 */
import { describe, expect, test } from "bun:test";
import { mcpConfigured } from "../../src/agent/session-mcp.ts";
import type { ProjectTrust } from "../../src/agent/session-options.ts";

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
