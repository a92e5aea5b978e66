/**
 * How MCP servers end: close() ends every server process and what it started (checked in /proc), a
 * server killed mid-session turns its calls into error outcomes, a call past its time limit fails.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMcpServers } from "../../src/mcp/servers.ts";
import {
  bunServer,
  descendantsOf,
  EVERYTHING_SERVER,
  type LiveProcess,
  MANY_TOOLS_SERVER,
  stillRunning,
  toolContext,
  toolNamed,
  waitFor,
} from "./support.ts";

const base = mkdtempSync(join(tmpdir(), "ion-mcp-lifecycle-"));
const logFile = (server: string) => join(base, "logs", `${server}.log`);
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The process whose command line holds `marker`, and everything below it. */
function treeMarked(marker: string): LiveProcess[] {
  const top = descendantsOf(process.pid).find((p) => p.cmdline.includes(marker) && stillRunning(p));
  if (!top) throw new Error(`no process with ${marker}`);
  return [top, ...descendantsOf(top.pid)];
}

describe("close()", () => {
  test("ends every server process and its children; a second close is harmless; calls then fail", async () => {
    const marker = `ion-mcp-close-${process.pid}`;
    const servers = await startMcpServers(
      [
        // sh → bun server → sleep: a wrapper, the server, and a child the server started.
        {
          name: "wrapped",
          type: "stdio",
          command: "sh",
          args: ["-c", `"${process.execPath}" "${MANY_TOOLS_SERVER}" ${marker}-a; true`],
          env: { TOOL_COUNT: "2", SPAWN_CHILD: "1" },
        },
        bunServer("everything", [EVERYTHING_SERVER, "stdio", `${marker}-b`]),
      ],
      { logFile },
    );
    expect(servers.statuses.map((s) => s.status)).toEqual(["connected", "connected"]);
    const wrapped = treeMarked(`${marker}-a`);
    const everything = treeMarked(`${marker}-b`);
    expect(wrapped.map((p) => p.cmdline.split(" ")[0]?.split("/").at(-1))).toContain("sleep");
    expect(wrapped.length).toBeGreaterThanOrEqual(3);
    const all = [...wrapped, ...everything];

    const started = Date.now();
    await Promise.all([servers.close(), servers.close()]);
    await servers.close();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(all.filter(stillRunning)).toEqual([]);

    const outcome = await toolNamed(servers, "mcp__everything__echo").execute(
      { message: "x" },
      toolContext(),
    );
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain("ion closed the connection");
  });

  test("closing every tool of a server, as a session's registry does, ends that server", async () => {
    const marker = `ion-mcp-tools-${process.pid}`;
    const servers = await startMcpServers(
      [bunServer("two", [MANY_TOOLS_SERVER, marker], { TOOL_COUNT: "2" })],
      {
        logFile,
      },
    );
    try {
      const tree = treeMarked(marker);
      const [first, ...rest] = servers.tools;
      if (!first) throw new Error("no tools");
      await first.close();
      await first.close();
      // One tool closed, the others still use the server.
      expect(tree.every(stillRunning)).toBe(true);
      expect((await rest[0]?.execute({ query: "q" }, toolContext()))?.is_error).toBe(false);
      await Promise.all(rest.map((tool) => tool.close()));
      expect(tree.filter(stillRunning)).toEqual([]);
    } finally {
      await servers.close();
    }
  });

  test("killNow() ends the process trees synchronously, for an exit handler", async () => {
    const marker = `ion-mcp-kill-${process.pid}`;
    const servers = await startMcpServers(
      [bunServer("spawner", [MANY_TOOLS_SERVER, marker], { TOOL_COUNT: "1", SPAWN_CHILD: "1" })],
      { logFile },
    );
    const tree = treeMarked(marker);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    servers.killNow();
    await waitFor("the tree to end", () => (tree.some(stillRunning) ? undefined : true), 2000);
    await servers.close();
  });
});

describe("a server that dies mid-session", () => {
  test("a call in flight and later calls answer is_error with the reason; what it started is ended", async () => {
    const marker = `ion-mcp-dies-${process.pid}`;
    const servers = await startMcpServers(
      [
        bunServer("everything", [EVERYTHING_SERVER, "stdio", `${marker}-e`]),
        bunServer("spawner", [MANY_TOOLS_SERVER, `${marker}-s`], { TOOL_COUNT: "1", SPAWN_CHILD: "1" }),
      ],
      { logFile, closeGraceMs: 200 },
    );
    try {
      const [server] = treeMarked(`${marker}-e`);
      if (!server) throw new Error("no server process");
      const inFlight = toolNamed(servers, "mcp__everything__trigger-long-running-operation").execute(
        { duration: 30, steps: 2 },
        toolContext(),
      );
      process.kill(server.pid, "SIGKILL");
      const outcome = await inFlight;
      expect(outcome.is_error).toBe(true);
      expect(outcome.content).toContain('server "everything" failed: the server exited');
      const later = await toolNamed(servers, "mcp__everything__echo").execute(
        { message: "x" },
        toolContext(),
      );
      expect(later.is_error).toBe(true);
      expect(later.content).toContain("cannot be called: the server exited");

      // The other server is untouched.
      const spawnerTool = toolNamed(servers, "mcp__spawner__tool_000");
      expect(await spawnerTool.execute({ query: "q" }, toolContext())).toEqual({
        content: 'called tool_000 with {"query":"q"}',
        is_error: false,
      });

      // Kill only that server: its `sleep` child, orphaned, is ended by ion all the same.
      const [spawner, ...children] = treeMarked(`${marker}-s`);
      if (!spawner) throw new Error("no spawner process");
      expect(children.length).toBeGreaterThanOrEqual(1);
      process.kill(spawner.pid, "SIGKILL");
      await waitFor(
        "the orphaned child to end",
        () => (children.some(stillRunning) ? undefined : true),
        3000,
      );
      expect((await spawnerTool.execute({ query: "q" }, toolContext())).is_error).toBe(true);
    } finally {
      await servers.close();
    }
  });

  test("a call past the tool timeout is an error outcome naming the limit", async () => {
    const servers = await startMcpServers([bunServer("everything", [EVERYTHING_SERVER])], {
      logFile,
      toolTimeoutMs: 300,
      closeGraceMs: 200,
    });
    try {
      const started = Date.now();
      const outcome = await toolNamed(servers, "mcp__everything__trigger-long-running-operation").execute(
        { duration: 10, steps: 1 },
        toolContext(),
      );
      expect(outcome).toEqual({
        content: 'MCP tool trigger-long-running-operation of server "everything" timed out after 300 ms',
        is_error: true,
      });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await servers.close();
    }
  });
});
