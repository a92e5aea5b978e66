/**
 * The seams extensions plug into an agent session (session-extension.ts), each used by a small test
 * extension: start and end, a prompt refused before it is sent, per-turn context saved before the
 * prompt (a stable prefix in every later request), per-request context after the conversation (never
 * saved), and /compact through the same compaction path as the loop's. Real config and session files
 * in temp dirs, the real OpenAI SDK against the fake server.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../../src/agent/events.ts";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import type { SessionExtension } from "../../src/agent/session-extension.ts";
import { IonError } from "../../src/errors.ts";
import { SessionStore } from "../../src/history/store.ts";
import {
  type SessionSandbox,
  sessionOptions,
  userBlocks,
  useSessionSandbox,
} from "../support/session-harness.ts";
import { collectEvents, useFakeLLM } from "../support/stream-helpers.ts";
import { errorReply } from "../support/wire-scripts.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const sandbox = useSessionSandbox(server, "seams");
type Box = SessionSandbox;
const options = (box: Box, extensions: SessionExtension[], extra: Partial<SessionOptions> = {}) =>
  sessionOptions(box, { noTools: true, extensions, ...extra });

const signal = () => new AbortController().signal;
type Body = { messages: { role: string; content: unknown }[] };
const bodyOf = (i: number) => server.requests[i]?.body as Body;
const resultOf = (events: AgentEvent[]) => events.find((e) => e.type === "result");

async function entries(box: Box, id: string) {
  return (await SessionStore.forDataDir(box.dataDir).load(id)).entries;
}

/** An extension that records every start and end it hears. */
function lifecycle(log: string[]): SessionExtension {
  return {
    name: "log",
    sessionStart: async (info) => {
      log.push(`start ${info.sessionId} resumed=${info.resumed}`);
    },
    sessionEnd: async (info) => {
      log.push(`end ${info.sessionId} ${info.reason}`);
    },
  };
}

describe("session start and end", () => {
  test("once each, the end saying done after a turn that succeeded, however often it is closed", async () => {
    const box = sandbox();
    const log: string[] = [];
    const session = await AgentSession.open(options(box, [lifecycle(log)]));
    expect(log).toEqual([`start ${session.id} resumed=false`]);
    server.enqueueReply("openai", { text: "hi" });
    await collectEvents(session.turn(userBlocks("hello"), signal()));
    await session.close();
    await session.close();
    expect(log).toEqual([`start ${session.id} resumed=false`, `end ${session.id} done`]);

    const again = await AgentSession.open(
      options(box, [lifecycle(log)], {
        choice: { continueLatest: false, resume: session.id, noSession: false },
      }),
    );
    await again.close("done");
    expect(log.slice(2)).toEqual([`start ${session.id} resumed=true`, `end ${session.id} done`]);
  });

  test("interrupted when the last turn was stopped by its signal", async () => {
    const box = sandbox();
    const log: string[] = [];
    const session = await AgentSession.open(options(box, [lifecycle(log)]));
    const controller = new AbortController();
    controller.abort();
    const events = await collectEvents(session.turn(userBlocks("hello"), controller.signal));
    expect(resultOf(events)).toMatchObject({ result: { subtype: "error_interrupted" } });
    await session.close();
    expect(log.at(-1)).toBe(`end ${session.id} interrupted`);
    expect(log.filter((line) => line.startsWith("end"))).toHaveLength(1);
  });

  test("error when the last turn failed; a reason the front end gives wins", async () => {
    const box = sandbox();
    const log: string[] = [];
    const session = await AgentSession.open(options(box, [lifecycle(log)]));
    server.enqueue({ ...(await errorReply("openai", 401)), pathSuffix: "/chat/completions" });
    const events = await collectEvents(session.turn(userBlocks("hello"), signal()));
    expect(resultOf(events)).toMatchObject({ result: { subtype: "error_during_execution" } });
    await session.close();
    expect(log.at(-1)).toBe(`end ${session.id} error`);

    const other = await AgentSession.open(options(box, [lifecycle(log)]));
    await other.close("interrupted");
    expect(log.at(-1)).toBe(`end ${other.id} interrupted`);
  });

  test("/clear ends the session and starts a new one", async () => {
    const box = sandbox();
    const log: string[] = [];
    const session = await AgentSession.open(options(box, [lifecycle(log)]));
    const first = session.id;
    await session.clear();
    await session.close();
    expect(log).toEqual([
      `start ${first} resumed=false`,
      `end ${first} done`,
      `start ${session.id} resumed=false`,
      `end ${session.id} done`,
    ]);
  });
});

describe("user prompt submit", () => {
  test("a refused prompt is not sent; the user is told why; it is kept, outside the model's view", async () => {
    const box = sandbox();
    const guard: SessionExtension = {
      name: "guard",
      userPromptSubmit: async (prompt) => {
        const words = prompt.content.map((b) => (b.type === "text" ? b.text : "")).join("");
        return words.includes("password") ? { refuse: "it contains a password" } : undefined;
      },
    };
    const session = await AgentSession.open(options(box, [guard]));
    const refused = collectEvents(session.turn(userBlocks("my password is hunter2"), signal()));
    await expect(refused).rejects.toThrow(
      "the prompt was not sent: guard refused it: it contains a password",
    );
    await refused.catch((err: unknown) => {
      expect(err).toBeInstanceOf(IonError);
      if (err instanceof IonError) expect(err.code).toBe("usage");
    });
    expect(server.requests).toHaveLength(0);
    expect(session.messages()).toEqual([]);

    server.enqueueReply("openai", { text: "fine" });
    await collectEvents(session.turn(userBlocks("hello"), signal()));
    await session.close();
    expect(JSON.stringify(bodyOf(0))).not.toContain("hunter2");
    const saved = await entries(box, session.id);
    expect(saved.map((e) => e.type)).toEqual(["extension_state", "run_end", "message", "message", "run_end"]);
    expect(saved[0]).toMatchObject({
      extension: "refused_prompt",
      data: {
        by: "guard",
        reason: "it contains a password",
        message: { content: userBlocks("my password is hunter2") },
      },
    });
    expect(saved[1]).toMatchObject({
      errors: [expect.stringContaining("guard refused it")],
      error_kind: "usage",
    });
    // The session is titled by what the user typed first, refused or not.
    const [listed] = await SessionStore.forDataDir(box.dataDir).list();
    expect(listed?.title).toBe("my password is hunter2");
  });
});

describe("per-turn context", () => {
  test("saved before the prompt as a context message, the same bytes at the same place in later requests", async () => {
    const box = sandbox();
    writeFileSync(join(box.root, "notes.txt"), "use tabs\n");
    let turns = 0;
    const memory: SessionExtension = {
      name: "memory",
      turnContext: async () => `<memory>recall ${++turns}</memory>`,
      userPromptSubmit: async () => ({ context: "<hook>be brief</hook>" }),
    };
    const session = await AgentSession.open(options(box, [memory], { noTools: false, yes: true }));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "read_file", input: { path: "notes.txt" } }],
    });
    server.enqueueReply("openai", { text: "Tabs." });
    await collectEvents(session.turn(userBlocks("how do I indent?"), signal()));
    server.enqueueReply("openai", { text: "Yes." });
    await collectEvents(session.turn(userBlocks("sure?"), signal()));
    await session.close();

    const first = bodyOf(0).messages;
    expect(first.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(JSON.stringify(first[1])).toContain("<hook>be brief</hook>");
    expect(JSON.stringify(first[1])).toContain("<memory>recall 1</memory>");
    // The tool step of the same turn and the next turn start with the same bytes.
    for (const i of [1, 2])
      expect(JSON.stringify(bodyOf(i).messages.slice(0, 3))).toBe(JSON.stringify(first));
    const third = bodyOf(2).messages;
    expect(third.map((m) => m.role)).toEqual([
      "system",
      "user",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "user",
    ]);
    expect(JSON.stringify(third[6])).toContain("<memory>recall 2</memory>");
    expect(turns).toBe(2);

    const saved = await entries(box, session.id);
    expect(saved.map((e) => e.type).slice(0, 2)).toEqual(["context_message", "message"]);
    expect(saved[0]).toMatchObject({ source: "memory", message: { context: { source: "memory" } } });

    // A resumed session sends the same prefix: the context is part of the saved conversation.
    const again = await AgentSession.open(
      options(box, [], {
        noTools: false,
        choice: { continueLatest: false, resume: session.id, noSession: false },
      }),
    );
    server.enqueueReply("openai", { text: "Still tabs." });
    await collectEvents(again.turn(userBlocks("and now?"), signal()));
    await again.close();
    expect(JSON.stringify(bodyOf(3).messages.slice(0, 8))).toBe(JSON.stringify(third));
  });
});

describe("per-request context", () => {
  test("after the conversation in each request, recomputed, never saved", async () => {
    const box = sandbox();
    let requests = 0;
    const plan: SessionExtension = {
      name: "plan",
      requestContext: async () => `<plan>step ${++requests}</plan>`,
    };
    const session = await AgentSession.open(options(box, [plan]));
    server.enqueueReply("openai", { text: "one" });
    await collectEvents(session.turn(userBlocks("first"), signal()));
    server.enqueueReply("openai", { text: "two" });
    await collectEvents(session.turn(userBlocks("second"), signal()));
    await session.close();

    const last = (i: number) => JSON.stringify(bodyOf(i).messages.at(-1));
    expect(last(0)).toContain("first");
    expect(last(0)).toContain("<plan>step 1</plan>");
    expect(last(1)).toContain("second");
    expect(last(1)).toContain("<plan>step 2</plan>");
    // Gone from the earlier turn's message once another request is built.
    expect(JSON.stringify(bodyOf(1).messages.slice(0, -1))).not.toContain("<plan>");
    const saved = JSON.stringify(await entries(box, session.id));
    expect(saved).not.toContain("<plan>");
    expect(JSON.stringify(session.messages())).not.toContain("<plan>");
  });
});

describe("the loop's seams through the same extension object", () => {
  test("authorize, afterTool and beforeStop of one extension reach the loop", async () => {
    const box = sandbox();
    let stops = 0;
    const policy: SessionExtension = {
      name: "policy",
      authorize: async (call) =>
        call.name === "read_file" ? { decision: "deny", reason: "no reading today" } : undefined,
      afterTool: async (_call, outcome) => ({ ...outcome, content: `${outcome.content} [seen]` }),
      beforeStop: async () => (stops++ === 0 ? "say done" : undefined),
    };
    const session = await AgentSession.open(options(box, [policy], { noTools: false, yes: true }));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "read_file", input: { path: "a.txt" } }],
    });
    server.enqueueReply("openai", { text: "ok" });
    server.enqueueReply("openai", { text: "done" });
    const events = await collectEvents(session.turn(userBlocks("read a.txt"), signal()));
    await session.close();
    expect(resultOf(events)).toMatchObject({
      result: { subtype: "success", result: "done", permission_denials: [{ tool_name: "read_file" }] },
    });
    expect(bodyOf(1).messages.at(-1)).toMatchObject({ role: "tool", content: "no reading today [seen]" });
    expect(bodyOf(2).messages.at(-1)).toMatchObject({ role: "user", content: "say done" });
  });
});

describe("/compact through the shared compaction path", () => {
  test("extensions add their focus to the user's; the summary's usage is counted; an interrupted one is not applied", async () => {
    const box = sandbox();
    const triggers: string[] = [];
    const focus: SessionExtension = {
      name: "focus",
      beforeCompact: async (trigger) => {
        triggers.push(trigger);
        return "KEEP-THE-DATABASE-DECISIONS";
      },
    };
    const session = await AgentSession.open(options(box, [focus]));
    for (const [i, answer] of ["A1", "A2", "A3"].entries()) {
      server.enqueueReply("openai", { text: `${answer} ${"x".repeat(400)}` });
      await collectEvents(session.turn(userBlocks(`question ${i} ${"y".repeat(400)}`), signal()));
    }
    const before = session.totals.usage.output_tokens;

    const stopped = new AbortController();
    stopped.abort();
    expect(await collectEvents(session.compact("the questions", stopped.signal))).toEqual([]);
    expect(session.messages()).toHaveLength(6);

    server.enqueueReply("openai", { text: "SUMMARY", usage: { input: 50, output: 7 } });
    const events = await collectEvents(session.compact("the questions", signal()));
    await session.close();
    expect(events).toMatchObject([{ type: "compact_boundary", trigger: "manual", method: "summary" }]);
    expect(triggers).toEqual(["manual", "manual"]);
    const summaryRequest = JSON.stringify(bodyOf(3).messages);
    expect(summaryRequest).toContain("the questions");
    expect(summaryRequest).toContain("KEEP-THE-DATABASE-DECISIONS");
    expect(session.totals.usage.output_tokens).toBe(before + 7);
    expect(JSON.stringify(session.messages()[0])).toContain("SUMMARY");
  });
});
