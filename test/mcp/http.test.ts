/**
 * Remote MCP servers: server-everything in its streamable HTTP and legacy SSE modes on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMcpServers } from "../../src/mcp/servers.ts";
import { type HttpServer, startEverythingOverHttp, toolContext, toolNamed } from "./support.ts";

const base = mkdtempSync(join(tmpdir(), "ion-mcp-http-"));
const logFile = (server: string) => join(base, "logs", `${server}.log`);
let streamable: HttpServer;
let legacy: HttpServer;

beforeAll(async () => {
  [streamable, legacy] = await Promise.all([
    startEverythingOverHttp("streamableHttp"),
    startEverythingOverHttp("sse"),
  ]);
});

afterAll(async () => {
  await Promise.all([streamable?.stop(), legacy?.stop()]);
  rmSync(base, { recursive: true, force: true });
});

describe("remote MCP servers", () => {
  test("streamable HTTP: tools listed and called", async () => {
    const servers = await startMcpServers(
      [{ name: "remote", type: "http", url: streamable.url, headers: { "X-Test": "test-value-123" } }],
      { logFile },
    );
    try {
      expect(servers.statuses).toEqual([{ name: "remote", status: "connected" }]);
      expect(toolNamed(servers, "mcp__remote__echo").readOnly).toBe(true);
      expect(await toolNamed(servers, "mcp__remote__get-sum").execute({ a: 1, b: 2 }, toolContext())).toEqual(
        {
          content: "The sum of 1 and 2 is 3.",
          is_error: false,
        },
      );
    } finally {
      await servers.close();
    }
  });

  test('type "http" falls back to legacy SSE when the server refuses streamable HTTP; type "sse" uses it at once', async () => {
    const servers = await startMcpServers(
      [
        { name: "fallback", type: "http", url: legacy.url, headers: {} },
        { name: "sse", type: "sse", url: legacy.url, headers: {} },
      ],
      { logFile },
    );
    try {
      expect(servers.statuses).toEqual([
        { name: "fallback", status: "connected" },
        { name: "sse", status: "connected" },
      ]);
      expect(readFileSync(logFile("fallback"), "utf8")).toContain("trying the legacy SSE transport");
      for (const server of ["fallback", "sse"])
        expect(
          await toolNamed(servers, `mcp__${server}__echo`).execute({ message: server }, toolContext()),
        ).toEqual({
          content: `Echo: ${server}`,
          is_error: false,
        });
    } finally {
      await servers.close();
    }
  });

  test("a server that is not there fails with the reason, secrets masked", async () => {
    const { url } = streamable;
    const closedPort = new URL(url);
    closedPort.pathname = "/nothing-here";
    const servers = await startMcpServers(
      [
        {
          name: "wrong-path",
          type: "http",
          url: closedPort.toString(),
          headers: { Authorization: "Bearer test-secret-token-123" },
        },
      ],
      { logFile },
    );
    expect(servers.statuses[0]?.status).toBe("failed");
    expect(servers.warnings).toHaveLength(1);
    expect(servers.warnings[0]).toStartWith('MCP server "wrong-path" failed to start: ');
    expect(servers.warnings[0]).not.toContain("test-secret-token-123");
    await servers.close();
  });
});
