/**
 * plan.auto: a user message over 100 characters goes to the designer subagent first — one extra
 * request, with read-only tools — and its plan is the session's before the main agent's first request;
 * a short message, or plan.auto off, sends nothing extra. Real config and session files in temp dirs,
 * the real OpenAI SDK against the fake server.
 */
import { describe, expect, test } from "bun:test";
import { AgentSession } from "../../src/agent/session.ts";
import { planFromAnswer } from "../../src/plan/auto-plan.ts";
import { SessionPlan } from "../../src/plan/session-plan.ts";
import { SessionSubagents } from "../../src/subagents/session-subagents.ts";
import { sessionOptions, useSessionSandbox } from "../support/session-harness.ts";
import { collectEvents, useFakeLLM } from "../support/stream-helpers.ts";
import { errorReply } from "../support/wire-scripts.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const sandbox = useSessionSandbox(server, "auto-plan");

const LONG =
  "Refactor the config loader so that project files are read after the user file, keep every existing test green, and document the order in the README.";
const PLAN_ANSWER = "- read the config loader\n- change the reading order\n- update the README";

async function open(
  auto: boolean | undefined,
): Promise<{ session: AgentSession; plan: SessionPlan; notices: string[] }> {
  const box = sandbox(auto === undefined ? {} : { plan: { auto } });
  const subagents = new SessionSubagents();
  const plan = new SessionPlan(subagents);
  const notices: string[] = [];
  const session = await AgentSession.open(
    sessionOptions(box, { notice: (line) => notices.push(line), extensions: [plan, subagents] }),
  );
  return { session, plan, notices };
}

type Body = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };
const bodyOf = (i: number) => server.requests[i]?.body as Body;
const turn = (session: AgentSession, prompt: string) =>
  collectEvents(session.turn([{ type: "text", text: prompt }], new AbortController().signal));

describe("plan.auto", () => {
  test("a long message: the designer's request first, read-only, then the main request with its plan", async () => {
    const { session, plan } = await open(true);
    server.enqueueReply("openai", { text: `Plan:\n${PLAN_ANSWER}`, usage: { input: 300, output: 40 } });
    server.enqueueReply("openai", { text: "Done.", usage: { input: 500, output: 5 } });
    const events = await turn(session, LONG);
    await session.close();

    expect(server.requests).toHaveLength(2);
    const designer = bodyOf(0);
    expect(JSON.stringify(designer.messages[0])).toContain("You are a subagent (designer)");
    expect(designer.tools?.map((t) => t.function.name).sort()).toEqual([
      "glob",
      "grep",
      "list_files",
      "read_file",
      "symbols",
    ]);
    expect(JSON.stringify(designer.messages.at(-1))).toContain(LONG);

    const main = JSON.stringify(bodyOf(1).messages);
    expect(main).not.toContain("You are a subagent");
    expect(main).toContain("[pending] read the config loader");
    expect(main).toContain("[pending] update the README");
    expect(plan.items.map((item) => item.content)).toEqual([
      "read the config loader",
      "change the reading order",
      "update the README",
    ]);

    // The designer's lines are a child's; its tokens are in the turn's result.
    const child = events.filter((e) => e.type !== "result" && e.parent_tool_use_id !== undefined);
    expect(child.map((e) => e.type)).toContain("assistant");
    const result = events.find((e) => e.type === "result");
    expect(result?.type === "result" && result.result.usage.input_tokens).toBe(800);
    expect(result?.type === "result" && result.result.result).toBe("Done.");
  });

  test("the designer's request fails (401): one notice, no plan, the main request still goes", async () => {
    const { session, plan, notices } = await open(true);
    server.enqueue({ ...(await errorReply("openai", 401)), pathSuffix: "/chat/completions" });
    server.enqueueReply("openai", { text: "Done." });
    const events = await turn(session, LONG);
    await session.close();

    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(bodyOf(1).messages)).not.toContain("<plan>");
    expect(plan.items).toEqual([]);
    expect(notices.filter((line) => line.startsWith("plan.auto: no plan from the designer: "))).toEqual([
      expect.stringContaining("subagent failed (error_during_execution)"),
    ]);
    const result = events.find((e) => e.type === "result");
    expect(result?.type === "result" && result.result.result).toBe("Done.");
  });

  test("a short message, or plan.auto off: no designer request", async () => {
    for (const [auto, prompt] of [
      [true, "fix the parser"],
      [undefined, LONG],
      [false, LONG],
    ] as const) {
      const { session, plan } = await open(auto);
      const before = server.requests.length;
      server.enqueueReply("openai", { text: "Done." });
      await turn(session, prompt);
      await session.close();
      expect(server.requests.length - before).toBe(1);
      expect(JSON.stringify(bodyOf(before).messages)).not.toContain("You are a subagent");
      expect(plan.items).toEqual([]);
    }
  });

  test("the designer's answer's list lines become pending items", () => {
    expect(planFromAnswer("Plan:\n1. read\n2) fix\n* [ ] test\nno list here")).toEqual([
      { content: "read", status: "pending" },
      { content: "fix", status: "pending" },
      { content: "test", status: "pending" },
    ]);
  });
});
