/**
 * The agent session through its boundaries: real config and session files in temp dirs, the real
 * OpenAI SDK against the fake server. Turns, model switches, manual and automatic compaction with
 * the entry bookkeeping, /clear and /resume.
 */
import { describe, expect, test } from "bun:test";
import type { AgentEvent } from "../../src/agent/events.ts";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import { SessionStore } from "../../src/history/store.ts";
import {
  type SessionSandbox,
  sessionOptions,
  userBlocks,
  useSessionSandbox,
} from "../support/session-harness.ts";
import { collectEvents, useFakeLLM } from "../support/stream-helpers.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const sandbox = useSessionSandbox(server, "session");
const options = (box: SessionSandbox, extra: Partial<SessionOptions> = {}) =>
  sessionOptions(box, { noTools: true, ...extra });

const result = (events: AgentEvent[]) => events.find((e) => e.type === "result")!;
type Body = { model: string; messages: { role: string; content: unknown }[] };
const bodyOf = (i: number) => server.requests[i]?.body as Body;

async function entries(box: SessionSandbox, id: string) {
  return (await SessionStore.forDataDir(box.dataDir).load(id)).entries;
}

describe("AgentSession", () => {
  test("turns share one conversation and one session file", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    server.enqueueReply("openai", { text: "Hi Ada." });
    const first = await collectEvents(session.turn(userBlocks("I am Ada."), new AbortController().signal));
    server.enqueueReply("openai", { text: "Ada." });
    const second = await collectEvents(session.turn(userBlocks("Who am I?"), new AbortController().signal));
    await session.close();
    expect(result(first)).toMatchObject({ result: { subtype: "success", session_id: session.id } });
    expect(result(second)).toMatchObject({ result: { subtype: "success", result: "Ada." } });
    expect(bodyOf(1).messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    const saved = await entries(box, session.id);
    expect(saved.map((e) => e.type)).toEqual([
      "message",
      "message",
      "run_end",
      "message",
      "message",
      "run_end",
    ]);
    expect(session.totals.turns).toBe(2);
  });

  test("an empty session leaves no file; the file appears with the first turn", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    expect(await SessionStore.forDataDir(box.dataDir).list()).toEqual([]);
    server.enqueueReply("openai", { text: "ok" });
    await collectEvents(session.turn(userBlocks("hello"), new AbortController().signal));
    await session.close();
    const listed = await SessionStore.forDataDir(box.dataDir).list();
    expect(listed.map((s) => [s.id, s.title])).toEqual([[session.id, "hello"]]);
  });

  test("a model switch applies to the next turn and is recorded once with its user message", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    server.enqueueReply("openai", { text: "one" });
    await collectEvents(session.turn(userBlocks("first"), new AbortController().signal));
    await session.setModel("openai/gpt-4o");
    expect(session.model).toBe("gpt-4o");
    server.enqueueReply("openai", { text: "two" });
    await collectEvents(session.turn(userBlocks("second"), new AbortController().signal));
    await session.close();
    expect(bodyOf(1).model).toBe("gpt-4o");
    const saved = await entries(box, session.id);
    const change = saved.findIndex((e) => e.type === "model_change");
    expect(saved[change]).toMatchObject({ provider: "openai", model: "gpt-4o" });
    expect(saved[change + 1]).toMatchObject({ type: "message", message: { role: "user" } });
  });

  test("an unknown provider in /model is an error and the session keeps its model", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    await expect(session.setModel("nope/whatever")).rejects.toThrow('unknown provider "nope"');
    expect(session.model).toBe("gpt-4o-mini");
    await session.close();
  });

  test("/compact summarises, names the first kept entry, and the next request sees the summary", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    for (const [i, answer] of ["A1", "A2", "A3"].entries()) {
      server.enqueueReply("openai", { text: `${answer} ${"x".repeat(400)}` });
      await collectEvents(
        session.turn(userBlocks(`question ${i} ${"y".repeat(400)}`), new AbortController().signal),
      );
    }
    server.enqueueReply("openai", { text: "SUMMARY OF EARLIER" });
    const events = await collectEvents(session.compact("the questions", new AbortController().signal));
    const boundary = events[0];
    expect(boundary).toMatchObject({ type: "compact_boundary", trigger: "manual", method: "summary" });
    if (boundary?.type !== "compact_boundary") throw new Error("no boundary");
    expect(JSON.stringify(bodyOf(3).messages)).toContain("the questions");

    server.enqueueReply("openai", { text: "after" });
    await collectEvents(session.turn(userBlocks("next"), new AbortController().signal));
    await session.close();
    const sent = bodyOf(4).messages;
    expect(JSON.stringify(sent[1])).toContain("SUMMARY OF EARLIER");
    expect(sent).toHaveLength(2 + boundary.kept + 1);

    const saved = await entries(box, session.id);
    const compaction = saved.find((e) => e.type === "compaction");
    if (compaction?.type !== "compaction") throw new Error("no compaction entry");
    const firstKept = saved.find((e) => e.n === compaction.first_kept);
    // The first kept entry is the message the model saw right after the summary.
    expect(firstKept?.type).toBe("message");
    if (firstKept?.type === "message")
      expect(JSON.stringify(sent[2]?.content)).toContain(
        (firstKept.message.content[0] as { text: string }).text.slice(0, 20),
      );

    // A resumed session rebuilds the same view from the file.
    const again = await AgentSession.open(
      options(box, { choice: { continueLatest: false, resume: session.id, noSession: false } }),
    );
    expect(again.messages()).toHaveLength(sent.length);
    await again.close();
  });

  test("/compact with nothing answered yet is a usage error", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    await expect(collectEvents(session.compact(undefined, new AbortController().signal))).rejects.toThrow(
      "nothing to compact",
    );
    await session.close();
  });

  test("/clear starts a new session and keeps the old; /resume returns to it with its model", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box, { model: "openai/gpt-4o" }));
    server.enqueueReply("openai", { text: "remembered" });
    await collectEvents(session.turn(userBlocks("remember blue"), new AbortController().signal));
    const oldId = session.id;
    await session.clear();
    expect(session.id).not.toBe(oldId);
    expect(session.messages()).toEqual([]);
    await session.setModel("openai/gpt-4o-mini");
    server.enqueueReply("openai", { text: "fresh" });
    await collectEvents(session.turn(userBlocks("new topic"), new AbortController().signal));
    expect(bodyOf(1).messages.map((m) => m.role)).toEqual(["system", "user"]);

    const opened = await session.resume(oldId.slice(0, 16));
    expect(opened.id).toBe(oldId);
    expect(session.model).toBe("gpt-4o");
    server.enqueueReply("openai", { text: "blue" });
    await collectEvents(session.turn(userBlocks("which colour?"), new AbortController().signal));
    await session.close();
    expect(JSON.stringify(bodyOf(2).messages)).toContain("remember blue");
    expect((await SessionStore.forDataDir(box.dataDir).list()).length).toBe(2);
  });

  test("--no-session saves nothing but still holds the conversation across turns", async () => {
    const box = sandbox();
    const session = await AgentSession.open(
      options(box, { choice: { continueLatest: false, resume: undefined, noSession: true } }),
    );
    server.enqueueReply("openai", { text: "one" });
    await collectEvents(session.turn(userBlocks("a"), new AbortController().signal));
    server.enqueueReply("openai", { text: "two" });
    await collectEvents(session.turn(userBlocks("b"), new AbortController().signal));
    await session.close();
    expect(bodyOf(1).messages).toHaveLength(4);
    expect(await SessionStore.forDataDir(box.dataDir).list()).toEqual([]);
  });

  test("the system prompt is byte-identical across turns", async () => {
    const box = sandbox({ preamble: "Be brief." });
    const session = await AgentSession.open(options(box, { noTools: false }));
    server.enqueueReply("openai", { text: "one" });
    await collectEvents(session.turn(userBlocks("a"), new AbortController().signal));
    server.enqueueReply("openai", { text: "two" });
    await collectEvents(session.turn(userBlocks("b"), new AbortController().signal));
    await session.close();
    const system = (i: number) => JSON.stringify(bodyOf(i).messages[0]);
    expect(system(0)).toContain("Be brief.");
    expect(system(1)).toBe(system(0));
  });
});
