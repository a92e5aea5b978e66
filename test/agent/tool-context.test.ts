/**
 * The tool contract a subagent can live in, through the loop: per-call read-only, the call's id and
 * session in its context, a child agent's events passed on with their parent call's id, and what the
 * child spent rolled into the run's result. Also the registry as the loop's source of tools.
 */
import { describe, expect, test } from "bun:test";
import type { AgentEvent, RunResult } from "../../src/agent/events.ts";
import { type AgentInput, runAgent } from "../../src/agent/loop.ts";
import type { StreamEvent, StreamFn, StreamRequest, Usage } from "../../src/providers/types.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "../../src/tools/types.ts";
import { collectEvents, testProvider, usageOf, userText } from "../support/stream-helpers.ts";

/** A scripted model: request N plays step N and records what it was sent. */
function scripted(...steps: StreamEvent[][]) {
  const requests: StreamRequest[] = [];
  const stream: StreamFn = (request) => {
    requests.push(request);
    const step = steps[requests.length - 1];
    if (step === undefined) throw new Error(`unexpected model request #${requests.length}`);
    return (async function* () {
      yield* step;
    })();
  };
  return { stream, requests };
}

const answer = (text: string, usage: Usage = usageOf(10, 2)): StreamEvent[] => [
  { type: "text_delta", text },
  { type: "done", stop_reason: "end_turn", usage },
];

const callTools = (...calls: { id: string; name: string; input?: Record<string, unknown> }[]) => [
  ...calls.map((c): StreamEvent => ({ type: "tool_call", id: c.id, name: c.name, input: c.input ?? {} })),
  { type: "done", stop_reason: "tool_use", usage: usageOf(10, 2) } as StreamEvent,
];

function tool(
  name: string,
  readOnly: AgentTool["readOnly"],
  execute: (input: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome> = async () => ({
    content: name,
    is_error: false,
  }),
): AgentTool {
  return { spec: { name, description: name, input_schema: { type: "object" } }, readOnly, execute };
}

function agentInput(overrides: Partial<AgentInput> = {}): AgentInput {
  return {
    sessionId: "session-1",
    cwd: "/workspace",
    provider: testProvider(),
    model: "parent-model",
    system: "",
    messages: [userText("go")],
    thinking: "off",
    tools: [],
    permissionMode: "auto",
    maxTurns: 10,
    signal: new AbortController().signal,
    ...overrides,
  };
}

const resultOf = (events: AgentEvent[]) =>
  (events.find((e) => e.type === "result") as { result: RunResult }).result;
const toolNames = (request: StreamRequest | undefined) => request?.tools.map((t) => t.name);

/** `shell`: read-only when its command is `ls`. */
const shell = (log: string[]) =>
  tool(
    "shell",
    (input) => input.command === "ls",
    async (input) => {
      log.push(String(input.command));
      return { content: "done", is_error: false };
    },
  );

describe("per-call read-only", () => {
  test("in mode ask without an approver, the reading call runs and the writing one is denied", async () => {
    const log: string[] = [];
    const model = scripted(
      callTools({ id: "c1", name: "shell", input: { command: "ls" } }),
      callTools({ id: "c2", name: "shell", input: { command: "rm -rf build" } }),
      answer("ok"),
    );
    const events = await collectEvents(
      runAgent(agentInput({ permissionMode: "ask", tools: [shell(log)] }), { stream: model.stream }),
    );
    expect(log).toEqual(["ls"]);
    const ends = events.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => [e.id, e.is_error, e.metadata?.denied ?? false])).toEqual([
      ["c1", false, false],
      ["c2", true, true],
    ]);
    expect(resultOf(events).permission_denials.map((d) => d.tool_use_id)).toEqual(["c2"]);
  });

  test("reading calls of one tool run together; a writing call among them makes the batch run in order", async () => {
    const order: string[] = [];
    let inFlight = 0;
    let overlapped = false;
    const slow = tool(
      "shell",
      (input) => input.command === "ls",
      async (input) => {
        inFlight++;
        if (inFlight > 1) overlapped = true;
        order.push(`start ${input.command}`);
        await Bun.sleep(20);
        inFlight--;
        return { content: "done", is_error: false };
      },
    );
    const parallel = scripted(
      callTools(
        { id: "a", name: "shell", input: { command: "ls" } },
        { id: "b", name: "shell", input: { command: "ls" } },
      ),
      answer("ok"),
    );
    await collectEvents(runAgent(agentInput({ tools: [slow] }), { stream: parallel.stream }));
    expect(overlapped).toBe(true);

    overlapped = false;
    const mixed = scripted(
      callTools(
        { id: "a", name: "shell", input: { command: "ls" } },
        { id: "b", name: "shell", input: { command: "make" } },
      ),
      answer("ok"),
    );
    await collectEvents(runAgent(agentInput({ tools: [slow] }), { stream: mixed.stream }));
    expect(overlapped).toBe(false);
  });
});

describe("the tool context", () => {
  test("names the call and the session", async () => {
    let seen: ToolContext | undefined;
    const spy = tool("spy", true, async (_input, ctx) => {
      seen = ctx;
      return { content: "ok", is_error: false };
    });
    const model = scripted(callTools({ id: "call-7", name: "spy" }), answer("ok"));
    await collectEvents(runAgent(agentInput({ tools: [spy] }), { stream: model.stream }));
    expect(seen?.callId).toBe("call-7");
    expect(seen?.sessionId).toBe("session-1");
  });
});

/** A tool that runs a pretend child agent: its events through `emit`, its spending through `reportUsage`. */
function subagent(options: { cost: number | null; late?: (ctx: ToolContext) => void }): AgentTool {
  return tool("task", true, async (_input, ctx) => {
    ctx.emit?.({ type: "init", ...childInit(ctx) });
    ctx.emit?.({ type: "text_delta", text: "Looking." });
    ctx.emit?.({ type: "tool_start", id: "child-call", name: "grep", input: { pattern: "TODO" } });
    for (const tail of ["a", "b", "c"])
      ctx.emit?.({ type: "tool_progress", id: "child-call", name: "grep", elapsed_ms: 1, output_tail: tail });
    // The batch takes what waits while the tool awaits; a progress line still pending at the
    // child call's end would be dropped with it.
    await Bun.sleep(5);
    ctx.emit?.({
      type: "tool_end",
      id: "child-call",
      name: "grep",
      is_error: false,
      content: "3 matches",
      duration_ms: 5,
    });
    // A grandchild's event, passed on by the child, keeps the parent it names.
    ctx.emit?.({ type: "text_delta", text: "deeper", parent_tool_use_id: "grandchild-call" });
    ctx.reportUsage?.(usageOf(100, 20), options.cost, { provider: "test", model: "child-model" });
    if (options.late) setTimeout(() => options.late?.(ctx), 0);
    return { content: "the child found 3 TODOs", is_error: false, metadata: { title: "Explored" } };
  });
}

function childInit(ctx: ToolContext) {
  return {
    session_id: ctx.sessionId,
    cwd: ctx.cwd,
    provider: "test",
    model: "child-model",
    tools: ["grep"],
    mcp_servers: [],
    skills: [],
    permission_mode: "read",
    slash_commands: [],
    key_source: "none",
    context_window: null,
  };
}

describe("a child agent's events and spending", () => {
  test("its events come between the call's start and end, marked with the call's id", async () => {
    const model = scripted(callTools({ id: "task-1", name: "task" }), answer("done"));
    const events = await collectEvents(
      runAgent(agentInput({ tools: [subagent({ cost: 0.5 })] }), { stream: model.stream }),
    );
    const start = events.findIndex((e) => e.type === "tool_start" && e.id === "task-1");
    const end = events.findIndex((e) => e.type === "tool_end" && e.id === "task-1");
    const between = events.slice(start + 1, end);
    expect(between.map((e) => [e.type, e.type === "result" ? null : e.parent_tool_use_id])).toEqual([
      ["init", "task-1"],
      ["text_delta", "task-1"],
      ["tool_start", "task-1"],
      // Progress of the child's call is coalesced like the parent's own: only the latest line.
      ["tool_progress", "task-1"],
      ["tool_end", "task-1"],
      ["text_delta", "grandchild-call"],
    ]);
    const progress = between.find((e) => e.type === "tool_progress");
    expect(progress).toMatchObject({ output_tail: "c" });
    // The parent's own events are unmarked.
    const own = events.filter((e) => e.type !== "result" && e.parent_tool_use_id === undefined);
    expect(own.map((e) => e.type)).toContain("assistant");
    expect(events[end]).toMatchObject({ metadata: { title: "Explored" } });
  });

  test("its usage and cost roll into the result, its model gets an entry of its own", async () => {
    const model = scripted(callTools({ id: "task-1", name: "task" }), answer("done"));
    const price = (usage: Usage) => usage.input_tokens * 0.001;
    const events = await collectEvents(
      runAgent(agentInput({ tools: [subagent({ cost: 0.5 })], price }), { stream: model.stream }),
    );
    const result = resultOf(events);
    // Own: two requests of 10 in / 2 out; the child: 100 in / 20 out.
    expect(result.usage).toMatchObject({ input_tokens: 120, output_tokens: 24 });
    expect(result.total_cost_usd).toBeCloseTo(0.02 + 0.5, 10);
    expect(result.modelUsage["parent-model"]).toMatchObject({ inputTokens: 20, costUSD: 0.02 });
    expect(result.modelUsage["child-model"]).toMatchObject({
      inputTokens: 100,
      outputTokens: 20,
      costUSD: 0.5,
      provider: "test",
    });
  });

  test("a child whose price is unknown makes the run's cost unknown", async () => {
    const model = scripted(callTools({ id: "task-1", name: "task" }), answer("done"));
    const events = await collectEvents(
      runAgent(agentInput({ tools: [subagent({ cost: null })], price: () => 0.01 }), {
        stream: model.stream,
      }),
    );
    expect(resultOf(events).total_cost_usd).toBeNull();
  });

  test("what a child spent counts against --max-budget-usd", async () => {
    const model = scripted(
      callTools({ id: "task-1", name: "task" }),
      callTools({ id: "task-2", name: "task" }),
    );
    const events = await collectEvents(
      runAgent(agentInput({ tools: [subagent({ cost: 2 })], price: () => 0, maxBudgetUsd: 1 }), {
        stream: model.stream,
      }),
    );
    const result = resultOf(events);
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(model.requests).toHaveLength(2);
  });

  test("events a tool emits after it returned are dropped", async () => {
    let lateSent = false;
    const model = scripted(callTools({ id: "task-1", name: "task" }), answer("done"));
    const late = (ctx: ToolContext) => {
      ctx.emit?.({ type: "text_delta", text: "too late" });
      lateSent = true;
    };
    const events = await collectEvents(
      runAgent(agentInput({ tools: [subagent({ cost: 0, late })] }), {
        stream: model.stream,
      }),
    );
    await Bun.sleep(5);
    expect(lateSent).toBe(true);
    expect(events.some((e) => e.type === "text_delta" && e.text === "too late")).toBe(false);
  });
});

describe("the registry as the loop's tools", () => {
  test("a tool added while a turn runs is offered from the next request; a removed one no more", async () => {
    const registry = new ToolRegistry();
    registry.add(
      tool("index", true, async () => {
        registry.add(tool("symbols", true));
        await registry.remove("index");
        return { content: "indexed", is_error: false };
      }),
    );
    const model = scripted(
      callTools({ id: "c1", name: "index" }),
      callTools({ id: "c2", name: "symbols" }),
      answer("ok"),
    );
    const events = await collectEvents(
      runAgent(agentInput({ tools: () => registry.offered() }), { stream: model.stream }),
    );
    expect(events[0]).toMatchObject({ type: "init", tools: ["index"] });
    expect(toolNames(model.requests[0])).toEqual(["index"]);
    expect(toolNames(model.requests[1])).toEqual(["symbols"]);
    const ends = events.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => [e.id, e.is_error])).toEqual([
      ["c1", false],
      ["c2", false],
    ]);
  });

  test("a deferred tool is not sent until activated, and a call to it before then is an unknown tool", async () => {
    const registry = new ToolRegistry([tool("read_file", true)]);
    registry.add(tool("mcp__db__query", true), { deferred: true });
    const model = scripted(callTools({ id: "c1", name: "mcp__db__query" }), answer("ok"), answer("ok"));
    const events = await collectEvents(
      runAgent(agentInput({ tools: () => registry.offered() }), { stream: model.stream }),
    );
    expect(toolNames(model.requests[0])).toEqual(["read_file"]);
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({
      is_error: true,
      content: 'unknown tool "mcp__db__query" (available: read_file)',
    });
    registry.activate("mcp__db__query");
    await collectEvents(runAgent(agentInput({ tools: () => registry.offered() }), { stream: model.stream }));
    expect(toolNames(model.requests[2])).toEqual(["read_file", "mcp__db__query"]);
  });
});
