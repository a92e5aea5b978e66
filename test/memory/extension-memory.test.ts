/**
 * SessionMemory in a real agent session (real config, session files and memory.db in temp dirs, the
 * fake server): it learns each turn once the result is out, recalls other sessions' memories into one
 * context message within the budget — the rendered message, not only the memories, stays under it —
 * and is off with memory.enabled false or `/memory off`. A database that cannot be used is one
 * warning per session, never a failed turn.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../../src/agent/events.ts";
import { AgentSession } from "../../src/agent/session.ts";
import { tokensOfChars } from "../../src/agent/tokens.ts";
import { defaultBudget, SessionMemory } from "../../src/memory/extension.ts";
import { MemoryStore, memoryDbPath } from "../../src/memory/store.ts";
import {
  type SessionSandbox,
  sessionOptions,
  userBlocks,
  useSessionSandbox,
} from "../support/session-harness.ts";
import { useFakeLLM } from "../support/stream-helpers.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const sandbox = useSessionSandbox(server, "memory-ext");
const signal = () => new AbortController().signal;
type Body = { messages: { role: string; content: unknown }[] };

async function open(box: SessionSandbox, memory: SessionMemory, notices: string[] = []) {
  return AgentSession.open({
    ...sessionOptions(box, { noTools: true, extensions: [memory] }),
    notice: (line) => notices.push(line),
  });
}

async function turn(session: AgentSession, text: string, answer: string): Promise<AgentEvent[]> {
  server.enqueueReply("openai", { text: answer });
  const events: AgentEvent[] = [];
  for await (const event of session.turn(userBlocks(text), signal())) events.push(event);
  return events;
}

function stored(box: SessionSandbox) {
  const store = MemoryStore.open(memoryDbPath(box.env));
  try {
    return store.list({ includeEnded: true });
  } finally {
    store.close();
  }
}

/** Memories of an earlier session, straight into the store. */
function seed(box: SessionSandbox, contents: string[]) {
  const store = MemoryStore.open(memoryDbPath(box.env));
  try {
    store.add(contents.map((content) => ({ content, source: "earlier-session", type: "episodic" as const })));
  } finally {
    store.close();
  }
}

describe("learning", () => {
  test("each turn's prompt and answer, under the session's id, once the session ends", async () => {
    const box = sandbox();
    const session = await open(box, new SessionMemory());
    await turn(
      session,
      "We deploy with blue-green switches on Fridays.",
      "Understood, blue-green on Fridays.",
    );
    await session.close();
    const memories = stored(box);
    expect(memories.map((m) => m.content).sort()).toEqual([
      "assistant: Understood, blue-green on Fridays.",
      "user: We deploy with blue-green switches on Fridays.",
    ]);
    for (const memory of memories) expect(memory).toMatchObject({ source: session.id, type: "episodic" });
  });

  test("memory.enabled false, and /memory off, neither learn nor recall", async () => {
    const off = sandbox({ memory: { enabled: false } });
    seed(off, ["user: the cache server is called marmalade-7"]);
    const session = await open(off, new SessionMemory());
    await turn(session, "What is the cache server called?", "No idea.");
    await session.close();
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain("marmalade");
    expect(stored(off)).toHaveLength(1);

    const box = sandbox();
    seed(box, ["user: the cache server is called marmalade-7"]);
    const memory = new SessionMemory();
    const other = await open(box, memory);
    memory.enabled = false;
    await turn(other, "What is the cache server called?", "No idea.");
    await other.close();
    expect(JSON.stringify(server.requests[1]?.body)).not.toContain("marmalade");
    expect(stored(box)).toHaveLength(1);
  });

  test("a database that cannot be opened is one warning a session; every turn still answers", async () => {
    const box = sandbox();
    // The data dir is a file: neither memory.db nor its directory can be made.
    const env = { ...box.env, ION_DATA_DIR: join(box.root, "not-a-dir") };
    writeFileSync(env.ION_DATA_DIR, "a file");
    const notices: string[] = [];
    const session = await AgentSession.open({
      ...sessionOptions({ ...box, env }, { noTools: true, extensions: [new SessionMemory()] }),
      choice: { continueLatest: false, resume: undefined, noSession: true },
      notice: (line) => notices.push(line),
    });
    const results: string[] = [];
    for (const text of ["Which port does the admin API listen on?", "And which host is it on?"])
      for (const event of await turn(session, text, "8443."))
        if (event.type === "result") results.push(event.result.subtype);
    await session.close();
    expect(results).toEqual(["success", "success"]);
    const warnings = notices.filter((line) => line.startsWith("warning: memory:"));
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThanOrEqual(2); // one for recall, one for learning
    expect(new Set(warnings).size).toBe(warnings.length);
  });
});

describe("recall", () => {
  test("another session's memory goes in one user message before the prompt, with a memory_recall event", async () => {
    const box = sandbox();
    seed(box, ["user: the cache server is called marmalade-7", "user: lunch is at noon"]);
    const session = await open(box, new SessionMemory());
    const events = await turn(session, "What is the cache server called?", "marmalade-7.");
    await session.close();
    const body = server.requests[0]?.body as Body;
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(JSON.stringify(body.messages[1])).toContain("marmalade-7");
    expect(JSON.stringify(body.messages[0])).not.toContain("marmalade");
    const recall = events.find((e) => e.type === "memory_recall");
    expect(recall).toEqual({ type: "memory_recall", count: expect.any(Number), tokens: expect.any(Number) });
  });

  test("the whole message stays within memory.budget_tokens", async () => {
    for (const budget of [60, 90, 150, 400]) {
      const box = sandbox({ memory: { budget_tokens: budget } });
      seed(
        box,
        Array.from(
          { length: 40 },
          (_, i) => `user: the deploy checklist item ${i} mentions the cache ${"x".repeat(i * 7)}`,
        ),
      );
      const session = await open(box, new SessionMemory());
      server.requests.length = 0;
      await turn(session, "What does the deploy checklist say about the cache?", "ok");
      await session.close();
      const body = server.requests[0]?.body as Body;
      const context = body.messages.find(
        (m, i) => i > 0 && JSON.stringify(m.content).includes("<memory_context>"),
      );
      const text = (context?.content as { text: string }[] | string | undefined) ?? "";
      const chars = typeof text === "string" ? text.length : text.map((part) => part.text).join("").length;
      // The frame alone may not fit the smallest budget: then nothing is added.
      if (budget >= 90) expect(chars).toBeGreaterThan(0);
      expect(tokensOfChars(chars)).toBeLessThanOrEqual(budget);
    }
  });

  test("the default budget is a tenth of the window, at most 4 000", () => {
    expect(defaultBudget(128_000)).toBe(4000);
    expect(defaultBudget(8192)).toBe(819);
    expect(defaultBudget(undefined)).toBe(4000);
  });
});
