/**
 * The plan: the `plan` tool's validation, the plan saved in the session file and restored on resume,
 * its per-request context after the conversation (and nothing at all before there is a plan), and its
 * checklist for chat. Real config and session files in temp dirs, the real OpenAI SDK against the fake server.
 */
import { describe, expect, test } from "bun:test";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import { latestExtensionState } from "../../src/history/extension-state.ts";
import { SessionStore } from "../../src/history/store.ts";
import { MAX_PLAN_ITEMS, type PlanItem, planChecklist, planFromData } from "../../src/plan/plan.ts";
import { SessionPlan } from "../../src/plan/session-plan.ts";
import { planTool } from "../../src/tools/plan.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { planLines } from "../../src/ui/chat-render.ts";
import {
  type SessionSandbox,
  sessionOptions,
  userBlocks,
  useSessionSandbox,
} from "../support/session-harness.ts";
import { collectEvents, useFakeLLM } from "../support/stream-helpers.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const sandbox = useSessionSandbox(server, "plan");

function options(box: SessionSandbox, plan: SessionPlan | undefined, resume?: string): SessionOptions {
  return sessionOptions(box, {
    choice: { continueLatest: false, resume, noSession: false },
    extensions: plan ? [plan] : [],
  });
}

const signal = () => new AbortController().signal;
type Body = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };
const bodyOf = (i: number) => server.requests[i]?.body as Body;

const ctx: ToolContext = { cwd: "/", allow: [], signal: signal(), callId: "call_1", sessionId: "s" };
const twoSteps: PlanItem[] = [
  { content: "read the config", status: "in_progress" },
  { content: "fix the parser", status: "pending" },
];

describe("the plan tool", () => {
  test("two items in progress are refused with an error the model can act on; the plan is unchanged", async () => {
    const saved: PlanItem[][] = [];
    const tool = planTool({ update: async (items) => void saved.push(items) });
    const outcome = await tool.execute(
      { items: twoSteps.map((item) => ({ ...item, status: "in_progress" })) },
      ctx,
    );
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain("at most one item may be in_progress, got 2");
    expect(outcome.content).toContain("set the others to pending or completed");
    expect(saved).toHaveLength(0);
  });

  test(`more than ${MAX_PLAN_ITEMS} items or an unknown status are refused; a valid plan is kept`, async () => {
    const saved: PlanItem[][] = [];
    const tool = planTool({ update: async (items) => void saved.push(items) });
    const long = Array.from({ length: MAX_PLAN_ITEMS + 1 }, (_, i) => ({
      content: `s${i}`,
      status: "pending",
    }));
    expect((await tool.execute({ items: long }, ctx)).is_error).toBe(true);
    const bad = await tool.execute({ items: [{ content: "x", status: "done" }] }, ctx);
    expect(bad.is_error).toBe(true);
    expect(bad.content).toContain("items.0.status");
    const good = await tool.execute({ items: twoSteps }, ctx);
    expect(good).toMatchObject({ is_error: false, content: "Plan updated (0/2 completed)." });
    expect(saved).toEqual([twoSteps]);
    expect(tool.readOnly).toBe(true);
  });
});

describe("bad input", () => {
  test("a plan call without an items list, or with an empty step, is an error result; nothing is saved", async () => {
    const saved: PlanItem[][] = [];
    const tool = planTool({ update: async (items) => void saved.push(items) });
    for (const input of [{}, { items: "read, fix" }, { items: [{ content: "  ", status: "pending" }] }]) {
      const outcome = await tool.execute(input, ctx);
      expect(outcome.is_error).toBe(true);
      expect(outcome.content).toStartWith("invalid arguments for plan: items");
    }
    expect(saved).toHaveLength(0);
  });

  test("a damaged saved plan reads as none", () => {
    for (const data of [
      null,
      "x",
      {},
      { items: "x" },
      { items: [{ content: "a", status: "done" }] },
      { items: [7] },
    ])
      expect(planFromData(data)).toBeUndefined();
    expect(planFromData({ items: twoSteps })).toEqual(twoSteps);
  });
});

describe("the plan in a session", () => {
  test("no plan: the requests carry exactly the messages of a session without the plan extension", async () => {
    const box = sandbox();
    for (const plan of [undefined, new SessionPlan()]) {
      const session = await AgentSession.open(options(box, plan));
      server.enqueueReply("openai", { text: "hello" });
      await collectEvents(session.turn(userBlocks("hi"), signal()));
      await session.close();
    }
    // The system prompt differs only by the tool's name in its list of tools.
    const [system, ...rest] = bodyOf(1).messages;
    expect(rest).toEqual(bodyOf(0).messages.slice(1));
    expect(JSON.stringify(system).replace(", plan", "")).toBe(JSON.stringify(bodyOf(0).messages[0]));
    expect(bodyOf(1).tools?.map((t) => t.function.name)).toContain("plan");
  });

  test("saved when it changes, in the context after the conversation, restored on resume", async () => {
    const box = sandbox();
    const plan = new SessionPlan();
    const session = await AgentSession.open(options(box, plan));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "plan", input: { items: twoSteps } }],
    });
    server.enqueueReply("openai", { text: "working on it" });
    const events = await collectEvents(session.turn(userBlocks("fix the parser"), signal()));
    await session.close();

    // Never asked for (read-only), and the chat's checklist is in the call's outcome.
    const end = events.find((e) => e.type === "tool_end");
    expect(end?.type === "tool_end" && planLines(end)).toEqual(["◐ read the config", "☐ fix the parser"]);
    expect(plan.items).toEqual(twoSteps);

    // Before the plan: nothing added. After: the plan last, after the tool results.
    expect(JSON.stringify(bodyOf(0).messages)).not.toContain("<plan>");
    const after = bodyOf(1).messages;
    const last = JSON.stringify(after.at(-1));
    expect(last).toContain("[in_progress] read the config");
    expect(last).toContain("check the last tool results against it");
    expect(JSON.stringify(after.slice(0, -1))).not.toContain("<plan>");
    expect(JSON.stringify(after.slice(0, -1))).toContain("call_1");

    // Saved as the extension's state, never as a message.
    const store = SessionStore.forDataDir(box.dataDir);
    const entries = (await store.load(session.id)).entries;
    expect(latestExtensionState(entries, "plan")?.data).toEqual({ items: twoSteps });
    expect(JSON.stringify(entries.filter((e) => e.type === "message"))).not.toContain("<plan>");

    // Resumed: the plan is back, and in the next request.
    const restored = new SessionPlan();
    const again = await AgentSession.open(options(box, restored, session.id));
    expect(restored.items).toEqual(twoSteps);
    server.enqueueReply("openai", { text: "continuing" });
    await collectEvents(again.turn(userBlocks("go on"), signal()));
    await again.close();
    expect(JSON.stringify(bodyOf(2).messages.at(-1))).toContain("[pending] fix the parser");
  });

  test("kept across a compaction: the summary replaces the conversation, the plan still follows it", async () => {
    const box = sandbox();
    const plan = new SessionPlan();
    const session = await AgentSession.open(options(box, plan));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "plan", input: { items: twoSteps } }],
    });
    server.enqueueReply("openai", { text: `planned ${"x".repeat(400)}` });
    await collectEvents(session.turn(userBlocks(`a long task ${"y".repeat(400)}`), signal()));
    for (const answer of ["A1", "A2"]) {
      server.enqueueReply("openai", { text: `${answer} ${"x".repeat(400)}` });
      await collectEvents(session.turn(userBlocks(`more ${"y".repeat(400)}`), signal()));
    }
    server.enqueueReply("openai", { text: "SUMMARY" });
    const compacted = await collectEvents(session.compact(undefined, signal()));
    expect(compacted).toMatchObject([{ type: "compact_boundary" }]);
    const summaryAt = server.requests.length - 1;
    // The summary request is not asked to keep the plan: it is not part of the conversation.
    expect(JSON.stringify(bodyOf(summaryAt).messages)).not.toContain("[pending] fix the parser");
    server.enqueueReply("openai", { text: "next" });
    await collectEvents(session.turn(userBlocks("go on"), signal()));
    await session.close();
    const after = bodyOf(summaryAt + 1).messages;
    expect(JSON.stringify(after)).toContain("SUMMARY");
    expect(JSON.stringify(after.at(-1))).toContain("[in_progress] read the config");
  });

  test("/resume brings back the resumed session's plan", async () => {
    const box = sandbox();
    const first = await AgentSession.open(options(box, new SessionPlan()));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "plan", input: { items: twoSteps } }],
    });
    server.enqueueReply("openai", { text: "ok" });
    await collectEvents(first.turn(userBlocks("plan it"), signal()));
    await first.close();

    const plan = new SessionPlan();
    const other = await AgentSession.open(options(box, plan));
    expect(plan.items).toEqual([]);
    await other.resume(first.id);
    expect(plan.items).toEqual(twoSteps);
    await other.close();
  });

  test("a new session starts with no plan, even after one that had a plan", async () => {
    const box = sandbox();
    const plan = new SessionPlan();
    const session = await AgentSession.open(options(box, plan));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "plan", input: { items: twoSteps } }],
    });
    server.enqueueReply("openai", { text: "ok" });
    await collectEvents(session.turn(userBlocks("plan it"), signal()));
    await session.clear();
    expect(plan.items).toEqual([]);
    await session.close();
  });
});

describe("the checklist", () => {
  test("one line per item, marked by status", () => {
    expect(
      planChecklist([
        { content: "a", status: "completed" },
        { content: "b", status: "in_progress" },
        { content: "c", status: "pending" },
      ]),
    ).toEqual(["☑ a", "◐ b", "☐ c"]);
  });
});
