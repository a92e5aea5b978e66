/**
 * A session's sandbox over its life: the host proxy started on first use and gone (directory and all)
 * when the session closes; a bwrap that fails to start a command — the command did not run, the note
 * says so, and the kept detection answer is forgotten so the next session probes again.
 */
import { expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { CommandSandbox } from "../../src/sandbox/command-sandbox.ts";
import { bashTool } from "../../src/tools/bash.ts";

test("a host list starts the proxy on first use; close stops it and removes its directory", async () => {
  const root = mkdtempSync(join(tmpdir(), "ion-cs-"));
  try {
    const sandbox = new CommandSandbox({
      kind: "bwrap",
      path: "/usr/bin/bwrap",
      mode: "workspace-write",
      network: ["example.com"],
      writable: [],
      allowEscalation: false,
    });
    const { argv, env } = await sandbox.wrap(["true"], root, root);
    const marker = argv.find((arg) => arg.startsWith("ION_SANDBOX_BRIDGE="));
    expect(marker).toBeDefined();
    const socket = (marker ?? "").slice("ION_SANDBOX_BRIDGE=".length).replace(/:\d+$/, "");
    expect(existsSync(socket)).toBe(true);
    expect(env.HTTPS_PROXY).toBe("http://127.0.0.1:3128");
    // The same list again: the same proxy.
    const again = await sandbox.wrap(["true"], root, root);
    expect(again.argv).toContain(marker ?? "");
    await sandbox.close();
    expect(existsSync(dirname(socket))).toBe(false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("bwrap failing to start: the command did not run, the note says so, the kept answer is forgotten", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ion-cs-"));
  try {
    const fake = join(dir, "bwrap");
    writeFileSync(
      fake,
      "#!/bin/sh\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n",
    );
    chmodSync(fake, 0o755);
    const cache = join(dir, "sandbox.json");
    writeFileSync(cache, '{"key":"stale","answer":{"kind":"bwrap"}}\n');
    const sandbox = new CommandSandbox(
      {
        kind: "bwrap",
        path: fake,
        mode: "workspace-write",
        network: false,
        writable: [],
        allowEscalation: false,
      },
      cache,
    );
    const outcome = await bashTool.execute(
      { command: "touch ran.txt" },
      { cwd: dir, allow: [], sandbox, signal: new AbortController().signal, callId: "c", sessionId: "s" },
    );
    expect(outcome.is_error).toBe(true);
    const result = JSON.parse(outcome.content) as { exit_code: number; note?: string };
    expect(result.exit_code).toBe(1);
    expect(result.note).toContain("the sandbox could not start (bwrap: Creating new namespace failed");
    expect(existsSync(join(dir, "ran.txt"))).toBe(false);
    expect(existsSync(cache)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
