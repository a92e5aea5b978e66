/**
 * Stdio servers spawned before the client loads (LaunchedServers, as a session does) and connected
 * to later: what they said meanwhile is not lost, one that ended meanwhile fails with its reason,
 * the start-up timeout counts from the spawn, and none outlives ion when it exits before connecting.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMcpServers } from "../../src/mcp/servers.ts";
import { LaunchedServers } from "../../src/mcp/stdio-process.ts";
import {
  bunServer,
  descendantsOf,
  MANY_TOOLS_SERVER,
  SILENT_SERVER,
  stillRunning,
  toolContext,
  toolNamed,
  waitFor,
} from "./support.ts";

const base = mkdtempSync(join(tmpdir(), "ion-mcp-launched-"));
const logFile = (server: string) => join(base, "logs", `${server}.log`);
afterAll(() => rmSync(base, { recursive: true, force: true }));
const options = { cwd: base, env: process.env, logFile };

/** The running processes below this test whose command line holds `marker`. */
const marked = (marker: string) =>
  descendantsOf(process.pid).filter((p) => p.cmdline.includes(marker) && stillRunning(p));

describe("servers launched before the client connects", () => {
  test("run at once; connect later with their tools; one that ended meanwhile fails with its reason", async () => {
    const marker = `ion-mcp-launched-${process.pid}`;
    const definitions = [
      bunServer("many", [MANY_TOOLS_SERVER, marker], { TOOL_COUNT: "2" }),
      bunServer("exits", ["-e", "console.error('no config here'); process.exit(3)"]),
      { name: "nothing", type: "stdio" as const, command: "ion-test-no-such-command", args: [], env: {} },
    ];
    const launched = new LaunchedServers(definitions, options);
    // Spawned before startMcpServers is called.
    expect(marked(marker)).toHaveLength(1);
    await waitFor("the server that exits", () =>
      readFileSync(logFile("exits"), "utf8").includes("no config here") ? true : undefined,
    );
    await Bun.sleep(50); // its end is seen before the client connects
    const servers = await startMcpServers(definitions, { logFile, launched });
    try {
      expect(servers.statuses).toEqual([
        { name: "many", status: "connected" },
        {
          name: "exits",
          status: "failed",
          error: "the server exited during start-up; last output: no config here",
        },
        { name: "nothing", status: "failed", error: "command not found: ion-test-no-such-command" },
      ]);
      const outcome = await toolNamed(servers, "mcp__many__tool_001").execute({ query: "x" }, toolContext());
      expect(outcome.content).toContain('called tool_001 with {"query":"x"}');
      // The one process spawned is the one connected to.
      expect(marked(marker)).toHaveLength(1);
    } finally {
      await servers.close();
    }
    expect(marked(marker)).toEqual([]);
  });

  test("the start-up timeout counts from the spawn, not from the connection", async () => {
    const definitions = [bunServer("silent", [SILENT_SERVER])];
    const launched = new LaunchedServers(definitions, options);
    await Bun.sleep(600);
    const started = Date.now();
    const servers = await startMcpServers(definitions, { logFile, launched, startupTimeoutMs: 1000 });
    try {
      expect(servers.statuses[0]?.status).toBe("failed");
      expect(Date.now() - started).toBeLessThan(900);
    } finally {
      await servers.close();
    }
  });

  test("a server launched but never connected does not outlive the process that launched it", async () => {
    const marker = `ion-mcp-launched-exit-${process.pid}`;
    // A server that outlives its closed stdin. The marker reaches it through the environment, so only
    // the server's command line holds it.
    const script = [
      `import { LaunchedServers } from ${JSON.stringify(join(import.meta.dir, "../../src/mcp/stdio-process.ts"))};`,
      `const server = { name: "s", type: "stdio", command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)", process.env.ION_TEST_MARKER], env: {} };`,
      `new LaunchedServers([server], { cwd: process.cwd(), env: process.env, logFile: () => ${JSON.stringify(logFile("exit"))} });`,
      "await Bun.sleep(200);",
      "process.exit(0);",
    ].join("\n");
    const child = Bun.spawn([process.execPath, "-e", script], {
      env: { ...process.env, ION_TEST_MARKER: marker },
      stdout: "ignore",
      stderr: "inherit",
    });
    await waitFor("the launched server", () => (marked(marker).length > 0 ? true : undefined));
    expect(await child.exited).toBe(0);
    // Orphans are re-parented away from this test: look through every process.
    await Bun.sleep(100);
    const left = descendantsOf(1).filter((p) => p.cmdline.includes(marker) && stillRunning(p));
    for (const orphan of left) process.kill(orphan.pid, "SIGKILL"); // the test's own, should it fail
    expect(left).toEqual([]);
  });
});
