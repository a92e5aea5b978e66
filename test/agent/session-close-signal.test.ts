/**
 * SIGTERM, SIGHUP and SIGINT end a turn and close the session's tools: a real process (the session
 * run as `ion run` runs it) with a tool whose `close()` leaves a marker file.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useFakeLLM } from "../support/stream-helpers.ts";

const SCRIPT = new URL("../support/session-with-closing-tool.ts", import.meta.url).pathname;
const server = useFakeLLM({ resetRequestsEachTest: true });
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe("the session's tools are closed when a signal ends ion", () => {
  for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) {
    test(signal, async () => {
      const dir = mkdtempSync(join(tmpdir(), "ion-close-signal-"));
      dirs.push(dir);
      mkdirSync(join(dir, "config"));
      writeFileSync(join(dir, "config", "config.json"), "{}");
      server.enqueueReply("openai", { toolCalls: [{ id: "call_watch", name: "watch", input: {} }] });
      const child = Bun.spawn([process.execPath, SCRIPT, dir, server.url], {
        stdout: "pipe",
        stderr: "pipe",
      });
      try {
        await until(() => existsSync(join(dir, "started")), "the tool to start");
        expect(existsSync(join(dir, "closed"))).toBe(false);
        child.kill(signal);
        expect(await child.exited).toBe(0);
      } finally {
        child.kill("SIGKILL");
      }
      expect(readFileSync(join(dir, "started"), "utf8")).toBe("call_watch");
      expect(readFileSync(join(dir, "result"), "utf8")).toBe("error_interrupted");
      expect(readFileSync(join(dir, "closed"), "utf8")).toBe("closed");
      expect(await new Response(child.stderr).text()).toBe("");
    });
  }
});
