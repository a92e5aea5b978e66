/**
 * Subagents under load and under a kill: at most four children run at once (the fifth waits for a
 * free slot), a child's conversation is in the session file after each of its steps (what a kill -9
 * mid-child would leave), and aborting the parent while a child's bash command runs leaves no process.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import { extensionStatesOf } from "../../src/history/extension-state.ts";
import { SessionStore } from "../../src/history/store.ts";
import { MAX_PARALLEL_CHILDREN, SessionSubagents } from "../../src/subagents/session-subagents.ts";
import {
  runResultOf,
  type SessionSandbox,
  sessionOptions,
  userBlocks,
  useSessionSandbox,
} from "../support/session-harness.ts";
import { collectEvents, useFakeLLM } from "../support/stream-helpers.ts";
import { streamReply } from "../support/wire-scripts.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const newSandbox = useSessionSandbox(server, "task-limits");

function sandbox(): SessionSandbox {
  const box = newSandbox();
  writeFileSync(join(box.root, "notes.txt"), "the answer is 42\n");
  return box;
}

function options(box: SessionSandbox): SessionOptions {
  return sessionOptions(box, { yes: true, extensions: [new SessionSubagents()] });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("subagent limits and durability", () => {
  test("at most four children at once: the fifth starts when one has finished", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    const calls = [1, 2, 3, 4, 5].map((n) => ({
      id: `call_${n}`,
      name: "task",
      input: { description: `part ${n}`, prompt: `Look at part ${n}` },
    }));
    server.enqueueReply("openai", { toolCalls: calls });
    // Each child's reply waits for its gate, so the children stay running until the test lets them go.
    const gates = calls.map(() => Promise.withResolvers<void>());
    for (const [n, gate] of gates.entries())
      server.enqueue({
        respond: async () => {
          await gate.promise;
          return streamReply("openai", { text: `part ${n + 1} done` });
        },
      });
    server.enqueueReply("openai", { text: "all parts done" });

    const running = collectEvents(session.turn(userBlocks("split it"), new AbortController().signal));
    await server.waitForRequests(1 + MAX_PARALLEL_CHILDREN);
    await Bun.sleep(150);
    expect(server.requests).toHaveLength(1 + MAX_PARALLEL_CHILDREN);
    gates[0]?.resolve();
    await server.waitForRequests(2 + MAX_PARALLEL_CHILDREN);
    for (const gate of gates) gate.resolve();
    const events = await running;
    await session.close();

    expect(MAX_PARALLEL_CHILDREN).toBe(4);
    expect(runResultOf(events).is_error).toBe(false);
    expect(server.requests).toHaveLength(7);
    const last = JSON.stringify((server.requests[6]!.body as { messages: unknown[] }).messages);
    for (const n of [1, 2, 3, 4, 5]) expect(last).toContain(`part ${n} done`);
  });

  test("the child's steps are in the session file while it still runs", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    server.enqueueReply("openai", {
      toolCalls: [
        { id: "call_task", name: "task", input: { description: "read", prompt: "Read notes.txt" } },
      ],
    });
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_read", name: "read_file", input: { path: "notes.txt" } }],
    });
    server.enqueue({ stallBeforeHeaders: true });
    const controller = new AbortController();
    const running = collectEvents(session.turn(userBlocks("go"), controller.signal));
    await server.waitForRequests(3);

    // The child waits for its second request: its first step (the read and its result) is saved.
    const store = SessionStore.forDataDir(box.env.ION_DATA_DIR);
    const saved = extensionStatesOf((await store.load(session.id)).entries, "call_task");
    expect(saved.length).toBeGreaterThanOrEqual(1);
    const data = JSON.stringify(saved.at(-1)?.data);
    expect(data).toContain("Read notes.txt");
    expect(data).toContain("the answer is 42");

    controller.abort();
    expect(runResultOf(await running).subtype).toBe("error_interrupted");
    await session.close();
  });

  test("aborting the parent while the child's bash command runs leaves no process behind", async () => {
    const box = sandbox();
    // The unsandboxed path's process group: `$!` is a host pid (test/e2e/sandbox.test.ts checks the sandboxed tree).
    const session = await AgentSession.open({ ...options(box), sandboxMode: "off" });
    const pidFile = join(box.root, "sleep.pid");
    server.enqueueReply("openai", {
      toolCalls: [
        {
          id: "call_task",
          name: "task",
          input: { description: "wait", prompt: "Run the slow check", subagent_type: "reviewer" },
        },
      ],
    });
    server.enqueueReply("openai", {
      toolCalls: [
        { id: "call_bash", name: "bash", input: { command: `sleep 30 & echo $! > ${pidFile}; wait` } },
      ],
    });
    const controller = new AbortController();
    const running = collectEvents(session.turn(userBlocks("check"), controller.signal));
    const deadline = Date.now() + 5000;
    while (!(existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "") && Date.now() < deadline)
      await Bun.sleep(20);
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(alive(pid)).toBe(true);

    controller.abort();
    const events = await running;
    await session.close();
    expect(runResultOf(events).subtype).toBe("error_interrupted");
    const gone = Date.now() + 3000;
    while (alive(pid) && Date.now() < gone) await Bun.sleep(20);
    expect(alive(pid)).toBe(false);
  });
});
