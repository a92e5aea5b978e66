/**
 * End to end: ion killed with SIGKILL while a `bash` call runs. The command's whole process group dies
 * with it (no orphan finishes the job), and the next `ion run -c` tells the model that the call was
 * made and interrupted, instead of showing only the text before it. The same for a chat in a terminal
 * (tmux), reopened with `ion -c`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { INTERRUPTED_CALL_RESULT } from "../../src/history/view.ts";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, type WireMessage } from "../support/e2e.ts";
import { ResultSchema } from "../support/output-schemas.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

const { server, env } = useOpenAIServer("sk-test-killed-key-000000000000000042");
const MODEL = ["-m", "openai/gpt-4o-mini"];
const HAS_PROC = existsSync("/proc/self/stat");
afterEach(() => Terminal.closeAll());

/** Fields of /proc/<pid>/stat after the command name: [state, ppid, pgrp, …]. */
function statFields(pid: string | number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // gone (or not a process): not running
  }
}

/** Running processes of process group `pgid`; a zombie has died (a container's init may not reap it). */
function runningInGroup(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      const fields = statFields(pid);
      return fields !== undefined && fields[2] === String(pgid) && fields[0] !== "Z" && fields[0] !== "X";
    })
    .map(Number);
}

async function waitUntil(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe.skipIf(!HAS_PROC)("ion killed with SIGKILL during a bash call", () => {
  test("the command's process group dies with ion, and `run -c` tells the model the call was interrupted", async () => {
    using box = new Sandbox();
    const pidFile = join(box.workspace, "shell.pid");
    server.enqueueReply("openai", {
      text: "Starting the slow job.",
      toolCalls: [
        {
          id: "call_slow01",
          name: "bash",
          input: {
            command: "echo $$ > shell.pid.tmp && mv shell.pid.tmp shell.pid; sleep 30; touch done-marker",
          },
        },
      ],
    });
    // The unsandboxed path's process group (sandbox.test.ts checks the sandboxed tree).
    const ion = box.spawn(["run", ...MODEL, "-y", "--sandbox", "off", "run the slow job"], { env });
    await waitUntil("the command to start", () => existsSync(pidFile), 10_000);
    const shellPid = Number(readFileSync(pidFile, "utf8").trim());
    expect(shellPid).toBeGreaterThan(0);
    // The shell and its `sleep` run in the group the shell leads.
    await waitUntil("the sleep to start", () => runningInGroup(shellPid).length >= 2, 5_000);

    ion.kill("SIGKILL");
    expect(await ion.exited).not.toBe(0);
    await waitUntil("the command's group to die", () => runningInGroup(shellPid).length === 0, 5_000);
    // Nothing of the group is left to run `touch` later.
    expect(existsSync(join(box.workspace, "done-marker"))).toBe(false);

    const before = server.requests.length;
    server.enqueueReply("openai", { text: "It was interrupted; I will check before rerunning." });
    const resumed = await box.run(["run", ...MODEL, "-c", "-o", "json", "what happened?"], { env });
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(resumed.stdout)).subtype).toBe("success");

    const request = (await server.waitForRequests(before + 1))[before];
    const messages = (request!.body as { messages: WireMessage[] }).messages.filter(
      (m) => m.role !== "system",
    );
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    const [, call, result, prompt] = messages;
    expect(call?.content).toBe("Starting the slow job.");
    expect(JSON.stringify(call?.tool_calls)).toContain("call_slow01");
    expect(JSON.stringify(call?.tool_calls)).toContain("sleep 30; touch done-marker");
    expect(result).toMatchObject({ tool_call_id: "call_slow01", content: INTERRUPTED_CALL_RESULT });
    expect(prompt?.content).toBe("what happened?");
  }, 30_000);
});

describe.skipIf(!HAS_PROC || !HAS_TMUX)("a chat killed with SIGKILL during a bash call", () => {
  test("the command's group dies with it, and `ion -c` tells the model the call was interrupted", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: "openai/gpt-4o-mini" });
    const pidFile = join(box.workspace, "shell.pid");
    server.enqueueReply("openai", {
      text: "Starting the slow job.",
      toolCalls: [
        {
          id: "call_slow02",
          name: "bash",
          input: {
            command: "echo $$ > shell.pid.tmp && mv shell.pid.tmp shell.pid; sleep 30; touch done-marker",
          },
        },
      ],
    });
    const chat = await Terminal.start({
      args: ["chat", "-y", "--sandbox", "off"],
      env: box.env(env),
      cwd: box.workspace,
    });
    await chat.waitFor((s) => s.endsWith("\n[auto] > "), 10_000);
    await chat.sendText("run the slow job");
    await chat.sendKeys("Enter");
    await waitUntil("the command to start", () => existsSync(pidFile), 10_000);
    const shellPid = Number(readFileSync(pidFile, "utf8").trim());
    await waitUntil("the sleep to start", () => runningInGroup(shellPid).length >= 2, 5_000);

    process.kill(chat.pid, "SIGKILL");
    expect(await chat.waitForExit()).toBe(128 + 9);
    await waitUntil("the command's group to die", () => runningInGroup(shellPid).length === 0, 5_000);
    expect(existsSync(join(box.workspace, "done-marker"))).toBe(false);

    const before = server.requests.length;
    server.enqueueReply("openai", { text: "It was interrupted; I will check first." });
    const reopened = await Terminal.start({ args: ["-c"], env: box.env(env), cwd: box.workspace });
    await reopened.waitFor((s) => s.endsWith("\n> "), 10_000);
    await reopened.sendText("what happened?");
    await reopened.sendKeys("Enter");
    await reopened.waitFor("I will check first.");
    const request = (await server.waitForRequests(before + 1))[before];
    const messages = (request!.body as { messages: WireMessage[] }).messages.filter(
      (m) => m.role !== "system",
    );
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(JSON.stringify(messages[1]?.tool_calls)).toContain("call_slow02");
    expect(messages[2]).toMatchObject({ tool_call_id: "call_slow02", content: INTERRUPTED_CALL_RESULT });
    expect(messages[3]?.content).toBe("what happened?");
  }, 30_000);
});
