/**
 * The session seams memory plugs into: `turnEnd` is heard only after the turn's result was passed on
 * (the answer shown, the result printed), with the user's own blocks (never the context messages),
 * the turn's events without streaming pieces, and the result; a per-turn context may carry events for
 * the front ends, passed on right after the turn's init and never saved. Real session files in temp
 * dirs, the real OpenAI SDK against the fake server.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../../src/agent/events.ts";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import type { SessionExtension, TurnEndInfo } from "../../src/agent/session-extension.ts";
import { SessionStore } from "../../src/history/store.ts";
import {
  type SessionSandbox,
  sessionOptions,
  userBlocks,
  useSessionSandbox,
} from "../support/session-harness.ts";
import { useFakeLLM } from "../support/stream-helpers.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const sandbox = useSessionSandbox(server, "memory-seams");
const options = (box: SessionSandbox, extensions: SessionExtension[], extra: Partial<SessionOptions> = {}) =>
  sessionOptions(box, { noTools: true, extensions, ...extra });
const signal = () => new AbortController().signal;

describe("turnEnd", () => {
  test("is heard after the consumer took the result, with the prompt, the events and the result", async () => {
    const box = sandbox();
    const order: string[] = [];
    const ended: TurnEndInfo[] = [];
    const listener: SessionExtension = {
      name: "listener",
      userPromptSubmit: async () => ({ context: "<hook>be brief</hook>" }),
      turnEnd: async (turn) => {
        order.push("turnEnd");
        ended.push(turn);
      },
    };
    const session = await AgentSession.open(options(box, [listener]));
    server.enqueueReply("openai", { text: "Blue." });
    for await (const event of session.turn(userBlocks("my favourite colour?"), signal()))
      order.push(event.type);
    await session.close();

    // Not before the result reached the consumer.
    expect(order.indexOf("turnEnd")).toBe(order.indexOf("result") + 1);
    expect(ended).toHaveLength(1);
    const [turn] = ended;
    expect(turn?.sessionId).toBe(session.id);
    expect(turn?.prompt).toEqual(userBlocks("my favourite colour?"));
    expect(JSON.stringify(turn?.prompt)).not.toContain("be brief");
    expect(turn?.result.result).toBe("Blue.");
    const types = turn?.events.map((e) => e.type) ?? [];
    expect(types).toContain("assistant");
    expect(types.at(-1)).toBe("result");
    expect(types).not.toContain("text_delta");
  });

  test("a turnEnd that throws is one warning; the turn and the session go on", async () => {
    const box = sandbox();
    const notices: string[] = [];
    const broken: SessionExtension = {
      name: "memory",
      turnEnd: async () => {
        throw new Error("database is locked");
      },
    };
    const session = await AgentSession.open({
      ...options(box, [broken]),
      notice: (line) => notices.push(line),
    });
    server.enqueueReply("openai", { text: "one" });
    const events: AgentEvent[] = [];
    for await (const event of session.turn(userBlocks("first"), signal())) events.push(event);
    server.enqueueReply("openai", { text: "two" });
    for await (const event of session.turn(userBlocks("second"), signal())) events.push(event);
    await session.close();
    const results = events.filter((e) => e.type === "result").map((e) => e.result.subtype);
    expect(results).toEqual(["success", "success"]);
    expect(notices).toEqual(["warning: memory: database is locked", "warning: memory: database is locked"]);
  });
});

describe("per-turn context with events", () => {
  test("its events follow the turn's init; the text is saved, the events are not", async () => {
    const box = sandbox();
    const recall: SessionExtension = {
      name: "memory",
      turnContext: async () => ({
        text: "<memory>the user likes blue</memory>",
        events: [{ type: "memory_recall", count: 1, tokens: 7 }],
      }),
    };
    const session = await AgentSession.open(options(box, [recall]));
    server.enqueueReply("openai", { text: "Blue." });
    const types: string[] = [];
    for await (const event of session.turn(userBlocks("which colour do I like?"), signal()))
      types.push(event.type);
    await session.close();
    expect(types.slice(0, 2)).toEqual(["init", "memory_recall"]);
    expect(JSON.stringify(server.requests[0]?.body)).toContain("the user likes blue");
    const saved = (await SessionStore.forDataDir(box.dataDir).load(session.id)).entries;
    expect(saved[0]).toMatchObject({ type: "context_message", source: "memory" });
    expect(JSON.stringify(saved)).not.toContain("memory_recall");
  });

  test("sessionStart hears the known secrets and gets a notice; the prompt carries the window", async () => {
    const box = sandbox();
    let secrets: readonly string[] = [];
    let windowSeen: number | undefined;
    const spy: SessionExtension = {
      name: "spy",
      sessionStart: async (info) => {
        secrets = info.secrets ?? [];
        expect(typeof info.notice).toBe("function");
      },
      turnContext: async (prompt) => {
        windowSeen = prompt.contextWindow;
        return undefined;
      },
    };
    writeFileSync(join(box.configDir, "keys.json"), JSON.stringify({ mistral: "test-key-mistral-123" }), {
      mode: 0o600,
    });
    const session = await AgentSession.open(options(box, [spy]));
    server.enqueueReply("openai", { text: "ok" });
    for await (const _event of session.turn(userBlocks("hello there friend"), signal()));
    await session.close();
    expect(secrets).toContain("test-key-mistral-123");
    expect(secrets).toContain("test-key-memory-seams");
    expect(windowSeen).toBe(session.contextWindow);
  });
});

describe("compaction", () => {
  test("memory's context is what a compaction leaves out of its summary; other extensions' is kept", async () => {
    const { SessionSeams } = await import("../../src/agent/session-extension.ts");
    const { SessionMemory } = await import("../../src/memory/extension.ts");
    const other: SessionExtension = { name: "hooks" };
    expect(new SessionSeams([other, new SessionMemory()]).loopSeams().droppedOnCompact).toEqual(
      new Set(["memory"]),
    );
    expect(new SessionSeams([other]).loopSeams().droppedOnCompact).toBeUndefined();
  });
});
