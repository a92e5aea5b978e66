/**
 * End to end: SIGHUP (a closed terminal, a dropped ssh, a cancelled CI job) while a `bash` call runs is
 * handled like SIGTERM: the command's process group is killed, the turn is saved as interrupted, the
 * result is printed, the session lock is released and ion exits 2 — not 129 with a tool left running.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { collect, ionCommand, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const { server, env } = useOpenAIServer("sk-test-sighup-key-000000000000000042");
const MODEL = ["-m", "openai/gpt-4o-mini"];
const HAS_PROC = existsSync("/proc/self/stat");

/** Running processes of process group `pgid` (a zombie has died; a container's init may not reap it). */
function runningInGroup(pgid: number): number[] {
  const running: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited while listed
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[2] === String(pgid) && fields[0] !== "Z" && fields[0] !== "X") running.push(Number(name));
  }
  return running;
}

async function waitUntil(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe.skipIf(!HAS_PROC)("SIGHUP during a bash call", () => {
  test("ion run: exit 2, the result printed, the tool's group gone, no lock left, the turn saved as interrupted", async () => {
    using box = new Sandbox();
    const pidFile = join(box.workspace, "shell.pid");
    server.enqueueReply("openai", {
      text: "Starting the slow job.",
      toolCalls: [
        {
          id: "call_hup01",
          name: "bash",
          input: {
            command: "echo $$ > shell.pid.tmp && mv shell.pid.tmp shell.pid; sleep 30; touch done-marker",
          },
        },
      ],
    });
    // The unsandboxed path's process group (sandbox.test.ts checks the sandboxed tree).
    const ion = box.spawn(["run", ...MODEL, "-y", "--sandbox", "off", "-o", "json", "run the slow job"], {
      env,
    });
    const output = collect(ion);
    await waitUntil("the command to start", () => existsSync(pidFile), 10_000);
    const shellPid = Number(readFileSync(pidFile, "utf8").trim());
    await waitUntil("the sleep to start", () => runningInGroup(shellPid).length >= 2, 5_000);

    const sent = Date.now();
    ion.kill("SIGHUP");
    const run = await output;
    expect(Date.now() - sent).toBeLessThan(5_000);
    expect(run.code).toBe(2);
    const result = JSON.parse(run.stdout) as { subtype: string; session_id: string };
    expect(result.subtype).toBe("error_interrupted");
    expect(runningInGroup(shellPid)).toEqual([]);
    expect(existsSync(join(box.workspace, "done-marker"))).toBe(false);

    const sessions = join(box.dataDir, "sessions");
    expect(readdirSync(sessions).filter((name) => name.includes(".lock"))).toEqual([]);
    const shown = await box.run(["sessions", "show", result.session_id], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("run the slow job");
    expect(shown.stdout).toMatch(/interrupted/i);
  }, 30_000);

  for (const signal of ["SIGHUP", "SIGTERM"] as const) {
    test(`ion chat (piped, stdin held open): ${signal} ends the turn, kills the tool's group, releases the lock, exit 2`, async () => {
      using box = new Sandbox();
      const pidFile = join(box.workspace, "shell.pid");
      server.enqueueReply("openai", {
        text: "Starting the slow job.",
        toolCalls: [
          {
            id: "call_hup02",
            name: "bash",
            input: { command: "echo $$ > shell.pid.tmp && mv shell.pid.tmp shell.pid; sleep 30; true" },
          },
        ],
      });
      const ion = Bun.spawn([...ionCommand(), "chat", ...MODEL, "-y", "--sandbox", "off"], {
        cwd: box.workspace,
        env: box.env(env),
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const output = collect(ion);
      ion.stdin.write("run the slow job\n");
      await ion.stdin.flush();
      await waitUntil("the command to start", () => existsSync(pidFile), 10_000);
      const shellPid = Number(readFileSync(pidFile, "utf8").trim());
      await waitUntil("the sleep to start", () => runningInGroup(shellPid).length >= 2, 5_000);
      const sessions = join(box.dataDir, "sessions");
      expect(readdirSync(sessions).some((name) => name.endsWith(".lock"))).toBe(true);

      const sent = Date.now();
      ion.kill(signal);
      const run = await output;
      expect(Date.now() - sent).toBeLessThan(5_000);
      expect(run.code).toBe(2);
      expect(runningInGroup(shellPid)).toEqual([]);
      expect(readdirSync(sessions).filter((name) => name.includes(".lock"))).toEqual([]);
      const id = readdirSync(sessions)
        .map((name) => /^[0-9a-f-]{36}/.exec(name)?.[0])
        .find((match) => match !== undefined);
      const shown = await box.run(["sessions", "show", String(id)], { env });
      expect(shown.stdout).toContain("run the slow job");
      expect(shown.stdout).toMatch(/interrupted/i);
      ion.stdin.end();
    }, 30_000);
  }

  test("ion chat idle on a held-open pipe: SIGHUP ends it at once, exit 2, no lock left", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Hello." });
    const ion = Bun.spawn([...ionCommand(), "chat", ...MODEL], {
      cwd: box.workspace,
      env: box.env(env),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = collect(ion);
    ion.stdin.write("hi\n");
    await ion.stdin.flush();
    const sessions = join(box.dataDir, "sessions");
    await waitUntil(
      "the answer to be saved",
      () => existsSync(sessions) && readdirSync(sessions).some((name) => name.endsWith(".lock")),
      10_000,
    );
    await Bun.sleep(300); // the answer streams in; the chat then waits on the pipe
    ion.kill("SIGHUP");
    const run = await output;
    expect(run.code).toBe(2);
    expect(run.stdout).toContain("Hello.");
    expect(readdirSync(sessions).filter((name) => name.includes(".lock"))).toEqual([]);
    ion.stdin.end();
  }, 30_000);
});
