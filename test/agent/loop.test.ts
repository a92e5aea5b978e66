import { describe, expect, test } from "bun:test";
import type { AgentEvent, RunResult } from "../../src/agent/events.ts";
import { type AgentDeps, type AgentInput, runAgent } from "../../src/agent/loop.ts";
import { summaryMessage } from "../../src/history/view.ts";
import type {
  AssistantBlock,
  Message,
  StreamEvent,
  StreamFn,
  StreamRequest,
  Usage,
} from "../../src/providers/types.ts";
import type { AgentTool, ApproveFn, ToolContext, ToolOutcome } from "../../src/tools/types.ts";
import { abortedSignal, collectEvents, testProvider, usageOf, userText } from "../support/stream-helpers.ts";

type Step = StreamEvent[] | ((request: StreamRequest) => AsyncIterable<StreamEvent>);

/** A scripted model: call N plays step N and records what it was sent (messages snapshotted). */
function scripted(...steps: Step[]) {
  const requests: StreamRequest[] = [];
  const stream: StreamFn = (request) => {
    requests.push({ ...request, messages: structuredClone(request.messages) });
    const step = steps[requests.length - 1];
    if (step === undefined) throw new Error(`unexpected model request #${requests.length}`);
    if (typeof step === "function") return step(request);
    return (async function* () {
      yield* step;
    })();
  };
  return { stream, requests };
}

const answer = (text: string, u: Usage = usageOf(1, 1)): StreamEvent[] => [
  { type: "text_delta", text },
  { type: "done", stop_reason: "end_turn", usage: u },
];

const callTools = (
  ...calls: { id: string; name: string; input?: Record<string, unknown> }[]
): StreamEvent[] => [
  ...calls.map((c): StreamEvent => ({ type: "tool_call", id: c.id, name: c.name, input: c.input ?? {} })),
  { type: "done", stop_reason: "tool_use", usage: usageOf(1, 1) },
];

function tool(
  name: string,
  readOnly: boolean,
  execute: (input: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome>,
): AgentTool {
  return {
    spec: { name, description: `the ${name} tool`, input_schema: { type: "object" } },
    readOnly,
    execute,
  };
}

const echo = (name: string, readOnly = true, log: string[] = []) =>
  tool(name, readOnly, async (input) => {
    log.push(name);
    return { content: `${name}:${JSON.stringify(input)}`, is_error: false };
  });

const USER: Message = userText("hello");

function agentInput(overrides: Partial<AgentInput> = {}): AgentInput {
  return {
    sessionId: "session-1",
    cwd: "/workspace",
    provider: testProvider(),
    model: "model-x",
    system: "be brief",
    messages: [USER],
    thinking: "off",
    tools: [],
    permissionMode: "auto",
    maxTurns: 10,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function run(input: AgentInput, deps: AgentDeps) {
  const events = await collectEvents(runAgent(input, deps));
  const results = events.filter((e) => e.type === "result");
  expect(results).toHaveLength(1);
  expect(events[0]?.type).toBe("init");
  expect(events.at(-1)?.type).toBe("result");
  const result = (events.at(-1) as { result: RunResult }).result;
  expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  expect(result.duration_api_ms).toBeGreaterThanOrEqual(0);
  expect(result.is_error).toBe(result.subtype !== "success");
  return { events, result };
}

const ofType = <T extends AgentEvent["type"]>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

describe("runAgent: events and messages", () => {
  test("a plain answer: init first, one assistant step, the result last", async () => {
    const model = scripted(answer("Hi there", usageOf(12, 3)));
    const { events, result } = await run(agentInput({ tools: [echo("read")] }), { stream: model.stream });

    expect(events.map((e) => e.type)).toEqual(["init", "text_delta", "assistant", "result"]);
    expect(events[0]).toEqual({
      type: "init",
      session_id: "session-1",
      cwd: "/workspace",
      provider: "fake",
      model: "model-x",
      tools: ["read"],
      mcp_servers: [],
      skills: [],
      permission_mode: "auto",
      slash_commands: [],
      key_source: "config",
      context_window: null,
    });
    expect(result).toMatchObject({
      type: "result",
      schema_version: 2,
      subtype: "success",
      is_error: false,
      result: "Hi there",
      session_id: "session-1",
      provider: "fake",
      model: "model-x",
      num_turns: 1,
      usage: usageOf(12, 3),
      total_cost_usd: null,
      permission_denials: [],
      errors: [],
    });
    const request = model.requests[0]!;
    expect(request.system).toBe("be brief");
    expect(request.model).toBe("model-x");
    expect(request.messages).toEqual([USER]);
    expect(request.tools.map((t) => t.name)).toEqual(["read"]);
  });

  test("the caller's message array is not mutated", async () => {
    const messages: Message[] = [USER];
    const model = scripted(callTools({ id: "c1", name: "read" }), answer("done"));
    await run(agentInput({ messages, tools: [echo("read")] }), { stream: model.stream });
    expect(messages).toEqual([USER]);
  });

  test("text and thinking are assembled in arrival order; the signature stays on its thinking block", async () => {
    const model = scripted(
      [
        { type: "thinking_delta", text: "Let me " },
        { type: "thinking_delta", text: "think." },
        { type: "thinking_signature", signature: "sig-1" },
        { type: "text_delta", text: "I will " },
        { type: "text_delta", text: "look." },
        { type: "tool_call", id: "c1", name: "read", input: { path: "a" } },
        { type: "text_delta", text: "After." },
        { type: "done", stop_reason: "tool_use", usage: usageOf(1, 1) },
      ],
      answer("Final."),
    );
    const { events, result } = await run(agentInput({ tools: [echo("read")] }), { stream: model.stream });

    const deltas = events
      .filter((e) => e.type === "text_delta" || e.type === "thinking_delta")
      .map((e) => `${e.type}:${(e as { text: string }).text}`);
    expect(deltas).toEqual([
      "thinking_delta:Let me ",
      "thinking_delta:think.",
      "text_delta:I will ",
      "text_delta:look.",
      "text_delta:After.",
      "text_delta:Final.",
    ]);
    const expected: AssistantBlock[] = [
      { type: "thinking", thinking: "Let me think.", signature: "sig-1" },
      { type: "text", text: "I will look." },
      { type: "tool_use", id: "c1", name: "read", input: { path: "a" } },
      { type: "text", text: "After." },
    ];
    expect(ofType(events, "assistant")[0]?.message.content).toEqual(expected);
    // The whole block, signature included, goes back to the model on the next request.
    expect(model.requests[1]?.messages[1]).toEqual({ role: "assistant", content: expected });
    expect(result.result).toBe("Final.");
  });

  test("opaque fields stay on their block, tagged with the provider and wire, and go back with it", async () => {
    const model = scripted(
      [
        { type: "thinking_delta", text: "Plan." },
        {
          type: "thinking_opaque",
          fields: { reasoning_details: [{ type: "reasoning.encrypted", data: "e1" }] },
        },
        { type: "thinking_opaque", fields: { redacted_data: "r1" }, newBlock: true },
        {
          type: "tool_call",
          id: "c1",
          name: "read",
          input: { path: "a" },
          opaque: { thought_signature: "ts" },
        },
        { type: "done", stop_reason: "tool_use", usage: usageOf(1, 1) },
      ],
      answer("Done."),
    );
    const input = agentInput({ tools: [echo("read")], modelInfo: { reasoning: true, tool_call: true } });
    await run(input, { stream: model.stream });
    const tag = { provider: input.provider.id, wire: input.provider.wire };
    const expected: AssistantBlock[] = [
      {
        type: "thinking",
        thinking: "Plan.",
        opaque: { ...tag, fields: { reasoning_details: [{ type: "reasoning.encrypted", data: "e1" }] } },
      },
      { type: "thinking", thinking: "", opaque: { ...tag, fields: { redacted_data: "r1" } } },
      {
        type: "tool_use",
        id: "c1",
        name: "read",
        input: { path: "a" },
        opaque: { ...tag, fields: { thought_signature: "ts" } },
      },
    ];
    expect(model.requests[1]?.messages[1]).toEqual({ role: "assistant", content: expected });
    expect(model.requests[0]?.modelInfo).toEqual({ reasoning: true, tool_call: true });
  });

  test("a wire's notice is passed on as a notice event, not into the message", async () => {
    const model = scripted([
      { type: "notice", text: "thinking is off for model-x: it does not reason" },
      { type: "text_delta", text: "Hi." },
      { type: "done", stop_reason: "end_turn", usage: usageOf(1, 1) },
    ]);
    const { events } = await run(agentInput(), { stream: model.stream });
    expect(ofType(events, "notice").map((e) => e.text)).toEqual([
      "thinking is off for model-x: it does not reason",
    ]);
    expect(ofType(events, "assistant")[0]?.message.content).toEqual([{ type: "text", text: "Hi." }]);
  });

  test("tool calls: start/end/results share ids, results go back in call order", async () => {
    const slow = tool("slow", true, async () => {
      await Bun.sleep(15);
      return { content: "slow done", is_error: false };
    });
    const model = scripted(
      callTools({ id: "a", name: "slow" }, { id: "b", name: "read", input: { path: "x" } }),
      answer("ok"),
    );
    const { events } = await run(agentInput({ tools: [slow, echo("read")] }), { stream: model.stream });

    expect(ofType(events, "tool_start").map((e) => e.id)).toEqual(["a", "b"]);
    expect(ofType(events, "tool_end").map((e) => [e.id, e.name, e.is_error])).toEqual([
      ["a", "slow", false],
      ["b", "read", false],
    ]);
    const toolResults = ofType(events, "tool_results");
    expect(toolResults).toHaveLength(1);
    const resultMessage: Message = {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "a", content: "slow done", is_error: false },
        { type: "tool_result", tool_use_id: "b", content: 'read:{"path":"x"}', is_error: false },
      ],
    };
    expect(toolResults[0]?.message).toEqual(resultMessage);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.messages).toEqual([
      USER,
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "a", name: "slow", input: {} },
          { type: "tool_use", id: "b", name: "read", input: { path: "x" } },
        ],
      },
      resultMessage,
    ]);
    // Every tool event sits between the step's assistant event and its tool_results.
    const types = events.map((e) => e.type);
    expect(types.indexOf("assistant")).toBeLessThan(types.indexOf("tool_start"));
    expect(types.lastIndexOf("tool_end")).toBeLessThan(types.indexOf("tool_results"));
  });

  test("an unknown tool gets an is_error result and the loop goes on", async () => {
    const model = scripted(callTools({ id: "u1", name: "nope" }), answer("sorry"));
    const { events, result } = await run(agentInput({ tools: [echo("read")] }), { stream: model.stream });
    const block = ofType(events, "tool_results")[0]?.message.content[0];
    expect(block).toMatchObject({ type: "tool_result", tool_use_id: "u1", is_error: true });
    expect(block?.type === "tool_result" && block.content).toContain('unknown tool "nope"');
    expect(block?.type === "tool_result" && block.content).toContain("read");
    expect(result).toMatchObject({ subtype: "success", num_turns: 2, result: "sorry" });
  });

  test("a tool that throws becomes an is_error result", async () => {
    const broken = tool("broken", false, async () => {
      throw new Error("kaboom");
    });
    const model = scripted(callTools({ id: "t1", name: "broken" }), answer("it failed"));
    const { events, result } = await run(agentInput({ tools: [broken] }), { stream: model.stream });
    const end = ofType(events, "tool_end")[0];
    expect(end).toMatchObject({ id: "t1", is_error: true });
    expect(end?.content).toContain("kaboom");
    expect(result.subtype).toBe("success");
  });

  test("unparseable tool arguments are reported to the model and the tool is not run", async () => {
    const ran: string[] = [];
    const model = scripted(
      [
        { type: "tool_call", id: "p1", name: "read", input: {}, parse_error: "Unexpected token }" },
        { type: "done", stop_reason: "tool_use", usage: usageOf(1, 1) },
      ],
      answer("retrying"),
    );
    const { events } = await run(agentInput({ tools: [echo("read", true, ran)] }), { stream: model.stream });
    expect(ran).toEqual([]);
    const end = ofType(events, "tool_end")[0];
    expect(end).toMatchObject({ id: "p1", is_error: true });
    expect(end?.content).toContain("Unexpected token }");
  });

  test("the tool gets the workspace cwd and the run's signal", async () => {
    const controller = new AbortController();
    let seen: ToolContext | undefined;
    const spy = tool("spy", true, async (_input, ctx) => {
      seen = ctx;
      return { content: "", is_error: false };
    });
    const model = scripted(callTools({ id: "s", name: "spy" }), answer("ok"));
    await run(agentInput({ tools: [spy], signal: controller.signal }), { stream: model.stream });
    expect(seen?.cwd).toBe("/workspace");
    expect(seen?.signal).toBe(controller.signal);
  });
});

describe("runAgent: tool concurrency", () => {
  /** Two tools that each wait for the other to have started: they finish only if run concurrently. */
  function barrierPair(readOnlyB: boolean) {
    const started = new Set<string>();
    const waiters: (() => void)[] = [];
    const make = (name: string, other: string, readOnly: boolean) =>
      tool(name, readOnly, async () => {
        started.add(name);
        for (const wake of waiters.splice(0)) wake();
        const met = await Promise.race([
          new Promise<boolean>((resolve) => {
            if (started.has(other)) resolve(true);
            else waiters.push(() => resolve(started.has(other)));
          }),
          Bun.sleep(150).then(() => false),
        ]);
        return { content: met ? "met" : "alone", is_error: false };
      });
    return [make("a", "b", true), make("b", "a", readOnlyB)];
  }

  test("read-only calls of one step run concurrently", async () => {
    const model = scripted(callTools({ id: "1", name: "a" }, { id: "2", name: "b" }), answer("ok"));
    const { events } = await run(agentInput({ tools: barrierPair(true) }), { stream: model.stream });
    expect(ofType(events, "tool_end").map((e) => e.content)).toEqual(["met", "met"]);
  });

  test("a batch with a non-read-only call runs in order, one at a time", async () => {
    const log: string[] = [];
    const step = (name: string, readOnly: boolean) =>
      tool(name, readOnly, async () => {
        log.push(`start ${name}`);
        await Bun.sleep(5);
        log.push(`end ${name}`);
        return { content: name, is_error: false };
      });
    const model = scripted(
      callTools({ id: "1", name: "r" }, { id: "2", name: "w" }, { id: "3", name: "r" }),
      answer("ok"),
    );
    const { events } = await run(agentInput({ tools: [step("r", true), step("w", false)] }), {
      stream: model.stream,
    });
    expect(log).toEqual(["start r", "end r", "start w", "end w", "start r", "end r"]);
    expect(events.filter((e) => e.type === "tool_start" || e.type === "tool_end").map((e) => e.type)).toEqual(
      ["tool_start", "tool_end", "tool_start", "tool_end", "tool_start", "tool_end"],
    );
  });

  test("the barrier pair deadlocks (times out) when one of them writes", async () => {
    const model = scripted(callTools({ id: "1", name: "a" }, { id: "2", name: "b" }), answer("ok"));
    const { events } = await run(agentInput({ tools: barrierPair(false) }), { stream: model.stream });
    expect(ofType(events, "tool_end").map((e) => e.content)).toEqual(["alone", "met"]);
  });
});

describe("runAgent: permissions", () => {
  const writer = (log: string[]) =>
    tool("write", false, async () => {
      log.push("write ran");
      return { content: "written", is_error: false };
    });

  for (const mode of ["read", "ask"] as const) {
    test(`mode ${mode} without an approver denies write tools and lists the denial`, async () => {
      const log: string[] = [];
      const model = scripted(
        callTools({ id: "w1", name: "write", input: { path: "f" } }, { id: "r1", name: "read" }),
        answer("could not write"),
      );
      const { events, result } = await run(
        agentInput({ permissionMode: mode, tools: [writer(log), echo("read", true, log)] }),
        { stream: model.stream },
      );
      expect(log).toEqual(["read"]);
      expect(result.permission_denials).toEqual([
        { tool_name: "write", tool_use_id: "w1", tool_input: { path: "f" } },
      ]);
      expect(result.subtype).toBe("success");
      const ends = ofType(events, "tool_end");
      expect(ends.map((e) => [e.id, e.is_error])).toEqual([
        ["w1", true],
        ["r1", false],
      ]);
      expect(ends[0]?.content).toContain("permission denied");
      expect(ends[0]?.content).toContain(mode === "read" ? "read" : "need the user's approval");
    });
  }

  test("mode ask follows the approver, call by call", async () => {
    const log: string[] = [];
    const asked: string[] = [];
    const approve: ApproveFn = async (call) => {
      asked.push(`${call.id}:${call.name}:${JSON.stringify(call.input)}`);
      return call.id === "yes" ? "allow" : "deny";
    };
    const model = scripted(
      callTools({ id: "yes", name: "write", input: { n: 1 } }, { id: "no", name: "write", input: { n: 2 } }),
      answer("half done"),
    );
    const { events, result } = await run(
      agentInput({ permissionMode: "ask", tools: [writer(log), echo("read")] }),
      { stream: model.stream, approval: { mode: () => "ask", approve } },
    );
    expect(asked).toEqual(['yes:write:{"n":1}', 'no:write:{"n":2}']);
    expect(log).toEqual(["write ran"]);
    expect(result.permission_denials).toEqual([
      { tool_name: "write", tool_use_id: "no", tool_input: { n: 2 } },
    ]);
    expect(ofType(events, "tool_end").map((e) => [e.id, e.is_error])).toEqual([
      ["yes", false],
      ["no", true],
    ]);
  });

  test("mode ask never asks about read-only tools", async () => {
    const asked: string[] = [];
    const model = scripted(callTools({ id: "r", name: "read" }), answer("ok"));
    await run(agentInput({ permissionMode: "ask", tools: [echo("read")] }), {
      stream: model.stream,
      approval: {
        mode: () => "ask",
        approve: async (call) => {
          asked.push(call.id);
          return "deny";
        },
      },
    });
    expect(asked).toEqual([]);
  });

  test("mode auto runs write tools without asking", async () => {
    const log: string[] = [];
    const model = scripted(callTools({ id: "w", name: "write" }), answer("done"));
    const { result } = await run(agentInput({ permissionMode: "auto", tools: [writer(log)] }), {
      stream: model.stream,
      approval: {
        mode: () => "auto",
        approve: async () => {
          throw new Error("must not be asked");
        },
      },
    });
    expect(log).toEqual(["write ran"]);
    expect(result.permission_denials).toEqual([]);
  });
});

describe("runAgent: limits, errors and interruption", () => {
  test("maxTurns counts model requests: error_max_turns with num_turns = max", async () => {
    const loop = callTools({ id: "again", name: "read" });
    const model = scripted(loop, loop, loop, loop);
    const { result } = await run(agentInput({ maxTurns: 3, tools: [echo("read")] }), {
      stream: model.stream,
    });
    expect(model.requests).toHaveLength(3);
    expect(result).toMatchObject({ subtype: "error_max_turns", is_error: true, num_turns: 3 });
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toContain("3");
    expect(result.usage).toEqual(usageOf(3, 3));
  });

  test("an answer on the last allowed turn is a success", async () => {
    const model = scripted(answer("just in time"));
    const { result } = await run(agentInput({ maxTurns: 1 }), { stream: model.stream });
    expect(result).toMatchObject({ subtype: "success", num_turns: 1, result: "just in time" });
  });

  test("a provider error ends the run with error_during_execution, usage so far counted", async () => {
    const model = scripted(callTools({ id: "c", name: "read" }), [
      { type: "text_delta", text: "partial" },
      {
        type: "error",
        error: { kind: "server", message: "server error 500 from fake: boom", status: 500 },
        usage: usageOf(5, 2),
      },
    ]);
    const { events, result } = await run(agentInput({ tools: [echo("read")] }), { stream: model.stream });
    expect(result).toMatchObject({
      subtype: "error_during_execution",
      is_error: true,
      num_turns: 2,
      errors: ["server error 500 from fake: boom"],
      usage: usageOf(6, 3),
    });
    // The failed step's partial text is reported (so it can be saved), with no stop reason.
    const steps = ofType(events, "assistant");
    expect(steps).toHaveLength(2);
    expect(steps[1]).toMatchObject({
      stop_reason: null,
      message: { content: [{ type: "text", text: "partial" }] },
    });
  });

  test("a stream that throws still ends the run with one result", async () => {
    const model = scripted(() => {
      throw new Error("adapter bug");
    });
    const { result } = await run(agentInput(), { stream: model.stream });
    expect(result.subtype).toBe("error_during_execution");
    expect(result.errors[0]).toContain("adapter bug");
  });

  test("a stream that fails mid-iteration still ends the run with one result", async () => {
    const model = scripted(async function* () {
      yield { type: "text_delta", text: "so far" } satisfies StreamEvent;
      throw new Error("socket hang up");
    });
    const { result } = await run(agentInput(), { stream: model.stream });
    expect(result.subtype).toBe("error_during_execution");
    expect(result.errors[0]).toContain("socket hang up");
  });

  test("aborted before the start: no model request, error_interrupted", async () => {
    const model = scripted(answer("never"));
    const { events, result } = await run(agentInput({ signal: abortedSignal() }), { stream: model.stream });
    expect(model.requests).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual(["init", "result"]);
    expect(result).toMatchObject({ subtype: "error_interrupted", is_error: true, num_turns: 0 });
    expect(result.errors).toEqual(["interrupted"]);
  });

  test("aborted during the stream: error_interrupted, text so far kept, usage counted", async () => {
    const controller = new AbortController();
    const model = scripted(async function* (request) {
      yield { type: "text_delta", text: "half an ans" } satisfies StreamEvent;
      controller.abort();
      // What an adapter does: notice the signal and end with an aborted error.
      expect(request.signal.aborted).toBe(true);
      yield {
        type: "error",
        error: { kind: "aborted", message: "request to fake was cancelled" },
        usage: usageOf(4, 1),
      } satisfies StreamEvent;
    });
    const { result } = await run(agentInput({ signal: controller.signal }), { stream: model.stream });
    expect(result).toMatchObject({
      subtype: "error_interrupted",
      num_turns: 1,
      result: "half an ans",
      usage: usageOf(4, 1),
      errors: ["interrupted"],
    });
  });

  test("aborted during the stream even if the stream then ends normally", async () => {
    const controller = new AbortController();
    const model = scripted(async function* () {
      yield { type: "text_delta", text: "x" } satisfies StreamEvent;
      controller.abort();
      yield { type: "done", stop_reason: "end_turn", usage: usageOf(1, 1) } satisfies StreamEvent;
    });
    const { result } = await run(agentInput({ signal: controller.signal }), { stream: model.stream });
    expect(result.subtype).toBe("error_interrupted");
  });

  test("aborted during a tool: the batch's later calls are not run, no further request", async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const slow = tool("slow", false, async (_input, ctx) => {
      log.push("slow");
      controller.abort();
      expect(ctx.signal.aborted).toBe(true);
      return { content: "cancelled", is_error: true };
    });
    const model = scripted(
      callTools({ id: "1", name: "slow" }, { id: "2", name: "write" }),
      answer("never asked"),
    );
    const { events, result } = await run(
      agentInput({ signal: controller.signal, tools: [slow, echo("write", false, log)] }),
      { stream: model.stream },
    );
    expect(log).toEqual(["slow"]);
    expect(model.requests).toHaveLength(1);
    expect(result).toMatchObject({ subtype: "error_interrupted", num_turns: 1, errors: ["interrupted"] });
    const ends = ofType(events, "tool_end");
    expect(ends.map((e) => e.id)).toEqual(["1", "2"]);
    expect(ends[1]?.content).toContain("not run");
    expect(ofType(events, "tool_start").map((e) => e.id)).toEqual(["1", "2"]);
  });

  test("retry events are forwarded as api_retry", async () => {
    const error = { kind: "rate_limit" as const, message: "rate limited from fake: slow down", status: 429 };
    const model = scripted([
      { type: "retry", attempt: 1, max_retries: 3, delay_ms: 250, error },
      ...answer("after retry"),
    ]);
    const { events, result } = await run(agentInput(), { stream: model.stream });
    expect(ofType(events, "api_retry")).toEqual([
      { type: "api_retry", attempt: 1, max_retries: 3, delay_ms: 250, error },
    ]);
    expect(events.map((e) => e.type)).toEqual(["init", "api_retry", "text_delta", "assistant", "result"]);
    expect(result).toMatchObject({ subtype: "success", num_turns: 1 });
  });
});

describe("runAgent: accounting", () => {
  test("usage is summed across steps; a usage event is overridden by done's", async () => {
    const model = scripted(
      [
        { type: "usage", usage: usageOf(1, 1) },
        { type: "tool_call", id: "1", name: "read", input: {} },
        { type: "done", stop_reason: "tool_use", usage: usageOf(100, 10, 50, 5) },
      ],
      [
        { type: "usage", usage: usageOf(7, 7) },
        { type: "text_delta", text: "done" },
        { type: "done", stop_reason: "end_turn", usage: usageOf(120, 20, 60, 0) },
      ],
    );
    const { events, result } = await run(agentInput({ tools: [echo("read")] }), { stream: model.stream });
    expect(result.usage).toEqual(usageOf(220, 30, 110, 5));
    expect(ofType(events, "assistant").map((e) => [e.stop_reason, e.usage])).toEqual([
      ["tool_use", usageOf(100, 10, 50, 5)],
      ["end_turn", usageOf(120, 20, 60, 0)],
    ]);
  });

  test("result is the text of the last step that produced text", async () => {
    const model = scripted(
      [{ type: "text_delta", text: "Checking…" }, ...callTools({ id: "1", name: "read" })],
      answer("The answer is 4."),
    );
    const { result } = await run(agentInput({ tools: [echo("read")] }), { stream: model.stream });
    expect(result.result).toBe("The answer is 4.");

    const silentEnd = scripted(
      [{ type: "text_delta", text: "Here it is." }, ...callTools({ id: "1", name: "read" })],
      [{ type: "done", stop_reason: "end_turn", usage: usageOf(1, 1) }],
    );
    const second = await run(agentInput({ tools: [echo("read")] }), { stream: silentEnd.stream });
    expect(second.result.result).toBe("Here it is.");
  });

  test("durations come from the injected clock", async () => {
    let t = 1000;
    const now = () => {
      t += 10;
      return t;
    };
    const model = scripted(callTools({ id: "1", name: "read" }), answer("ok"));
    const { events, result } = await run(agentInput({ tools: [echo("read")] }), {
      stream: model.stream,
      now,
    });
    expect(result.duration_api_ms).toBeGreaterThan(0);
    expect(result.duration_api_ms).toBeLessThan(result.duration_ms);
    for (const end of ofType(events, "tool_end")) expect(end.duration_ms).toBeGreaterThanOrEqual(0);
  });

  test("the log function and thinking level reach the stream request", async () => {
    const lines: string[] = [];
    const model = scripted(answer("ok"));
    await run(agentInput({ thinking: "high" }), { stream: model.stream, log: (l) => lines.push(l) });
    expect(model.requests[0]?.thinking).toBe("high");
    model.requests[0]?.log?.("sdk says hi");
    expect(lines).toEqual(["sdk says hi"]);
  });
});

describe("runAgent: compaction", () => {
  const pad = (s: string) => `${s} ${"lorem ipsum ".repeat(33)}`;
  /** Two long exchanges (~100 tokens a message) and a short new prompt. */
  const history = (): Message[] => [
    userText(pad("P1-TEXT")),
    { role: "assistant", content: [{ type: "text", text: pad("A1-TEXT") }] },
    userText(pad("P2-TEXT")),
    { role: "assistant", content: [{ type: "text", text: pad("A2-TEXT") }] },
    userText("P3 go on"),
  ];
  const overflow = (): StreamEvent[] => [
    {
      type: "error",
      error: { kind: "context_overflow", message: "context window exceeded (fake): too long", status: 400 },
    },
  ];
  const promptText = (request: StreamRequest | undefined) => {
    const block = request?.messages[0]?.content[0];
    return block?.type === "text" ? block.text : "";
  };

  test("past the threshold of a known window: a summary request, then a smaller request starting with it", async () => {
    const model = scripted(answer("SUMMARY-TEXT"), answer("final"));
    const { events, result } = await run(
      agentInput({ messages: history(), contextWindow: 500, tools: [echo("read")] }),
      { stream: model.stream },
    );
    expect(model.requests).toHaveLength(2);
    const [summary, next] = model.requests;
    expect(summary?.tools).toEqual([]);
    expect(summary?.thinking).toBe("off");
    expect(promptText(summary)).toContain("## Goal");
    expect(promptText(summary)).toContain("## Open work");
    expect(promptText(summary)).toContain("P1-TEXT");
    expect(promptText(summary)).not.toContain("P2-TEXT");
    expect(next?.tools.map((t) => t.name)).toEqual(["read"]);
    expect(next?.messages).toEqual([summaryMessage("SUMMARY-TEXT"), ...history().slice(2)]);

    expect(events.map((e) => e.type)).toEqual([
      "init",
      "compact_boundary",
      "text_delta",
      "assistant",
      "result",
    ]);
    const boundary = ofType(events, "compact_boundary")[0]!;
    expect(boundary).toMatchObject({ trigger: "auto", kept: 3, method: "summary", summary: "SUMMARY-TEXT" });
    expect(boundary.post_tokens).toBeLessThan(boundary.pre_tokens);
    // The summary request is not a turn, but its usage is paid for.
    expect(result).toMatchObject({ subtype: "success", result: "final", num_turns: 1, usage: usageOf(2, 2) });
  });

  /** A tool step whose request the provider reports as `input` tokens, then whatever follows. */
  const bigStep = (input: number): StreamEvent[] => [
    { type: "tool_call", id: "c1", name: "read", input: {} },
    { type: "done", stop_reason: "tool_use", usage: usageOf(input, 10) },
  ];

  test("the provider-reported usage of the last request drives the estimate", async () => {
    const model = scripted(bigStep(900), answer("SUM"), answer("done"));
    const { events } = await run(
      agentInput({ messages: history(), contextWindow: 1000, tools: [echo("read")] }),
      { stream: model.stream },
    );
    expect(model.requests).toHaveLength(3);
    expect(model.requests[1]?.tools).toEqual([]);
    const boundary = ofType(events, "compact_boundary")[0]!;
    expect(boundary.trigger).toBe("auto");
    expect(boundary.pre_tokens).toBeGreaterThanOrEqual(910);
    const next = model.requests[2]!.messages;
    expect(next[0]).toEqual(summaryMessage("SUM"));
    expect(next).toHaveLength(1 + boundary.kept);
    // The tool call and its result stay together, at the end.
    expect(next.at(-2)?.content[0]).toMatchObject({ type: "tool_use", id: "c1" });
    expect(next.at(-1)?.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "c1" });
  });

  test("thresholds: below the configured share nothing is compacted", async () => {
    const model = scripted(bigStep(900), answer("done"));
    const { events } = await run(
      agentInput({ messages: history(), contextWindow: 1000, compactThreshold: 0.95, tools: [echo("read")] }),
      { stream: model.stream },
    );
    expect(model.requests).toHaveLength(2);
    expect(ofType(events, "compact_boundary")).toHaveLength(0);

    const lower = scripted(bigStep(500), answer("SUM"), answer("done"));
    const { events: compacted } = await run(
      agentInput({ messages: history(), contextWindow: 1000, compactThreshold: 0.5, tools: [echo("read")] }),
      { stream: lower.stream },
    );
    expect(ofType(compacted, "compact_boundary")).toHaveLength(1);
  });

  test("an unknown window never compacts on its own", async () => {
    const model = scripted(bigStep(10_000_000), answer("done"));
    const { events } = await run(agentInput({ messages: history(), tools: [echo("read")] }), {
      stream: model.stream,
    });
    expect(model.requests).toHaveLength(2);
    expect(ofType(events, "compact_boundary")).toHaveLength(0);
  });

  test("a lone first prompt is never summarised before the model saw it", async () => {
    const model = scripted(answer("done"));
    const { events } = await run(agentInput({ messages: [userText(pad("BIG"))], contextWindow: 50 }), {
      stream: model.stream,
    });
    expect(model.requests).toHaveLength(1);
    expect(ofType(events, "compact_boundary")).toHaveLength(0);
  });

  test("a context overflow compacts once and retries the request once, as the same turn", async () => {
    const model = scripted(overflow(), answer("SUM"), answer("after compaction"));
    const { events, result } = await run(agentInput({ messages: history() }), { stream: model.stream });
    expect(model.requests).toHaveLength(3);
    expect(model.requests[0]?.messages).toEqual(history());
    expect(model.requests[1]?.tools).toEqual([]);
    expect(model.requests[2]?.messages).toEqual([summaryMessage("SUM"), ...history().slice(2)]);
    expect(ofType(events, "compact_boundary")[0]).toMatchObject({ trigger: "overflow", kept: 3 });
    expect(result).toMatchObject({
      subtype: "success",
      result: "after compaction",
      num_turns: 1,
      errors: [],
    });
  });

  test("a second overflow after compacting is an ordinary error", async () => {
    const model = scripted(overflow(), answer("SUM"), overflow());
    const { result } = await run(agentInput({ messages: history() }), { stream: model.stream });
    expect(model.requests).toHaveLength(3);
    expect(result).toMatchObject({
      subtype: "error_during_execution",
      num_turns: 1,
      errors: ["context window exceeded (fake): too long"],
    });
  });

  test("when summarising fails the oldest messages are dropped and the run goes on", async () => {
    const failed: StreamEvent[] = [{ type: "error", error: { kind: "server", message: "boom" } }];
    const model = scripted(overflow(), failed, failed, answer("still here"));
    const { events, result } = await run(agentInput({ messages: history() }), { stream: model.stream });
    const boundary = ofType(events, "compact_boundary")[0]!;
    expect(boundary.method).toBe("dropped");
    expect(boundary.summary).toContain("2 earlier messages were dropped");
    expect(model.requests.at(-1)?.messages[0]).toEqual(summaryMessage(boundary.summary));
    expect(result).toMatchObject({ subtype: "success", result: "still here" });
  });

  test("interrupted while summarising: the compaction is not applied and the run ends interrupted", async () => {
    const controller = new AbortController();
    const model = scripted(async function* () {
      controller.abort();
      yield { type: "error", error: { kind: "aborted", message: "cancelled" } } satisfies StreamEvent;
    });
    const { events, result } = await run(
      agentInput({ messages: history(), contextWindow: 500, signal: controller.signal }),
      { stream: model.stream },
    );
    expect(model.requests).toHaveLength(1);
    expect(ofType(events, "compact_boundary")).toHaveLength(0);
    expect(result).toMatchObject({ subtype: "error_interrupted", num_turns: 0 });
  });
});

describe("runAgent: the seams extensions plug into", () => {
  test("a reviewer can deny a read-only call and rewrite another's input; the loop runs what it allowed", async () => {
    const seen: Record<string, unknown>[] = [];
    const read = tool("read", true, async (input) => {
      seen.push(input);
      return { content: "read ok", is_error: false };
    });
    const model = scripted(
      callTools(
        { id: "c1", name: "read", input: { path: "secret.env" } },
        { id: "c2", name: "read", input: { path: "a" } },
      ),
      answer("done"),
    );
    const { events, result } = await run(agentInput({ tools: [read] }), {
      stream: model.stream,
      approval: {
        mode: () => "auto",
        reviewers: [
          {
            name: "policy",
            review: async (call) =>
              call.input.path === "secret.env"
                ? { decision: "deny", reason: "blocked by policy: secrets stay private" }
                : { input: { path: "b" } },
          },
        ],
      },
    });
    expect(seen).toEqual([{ path: "b" }]);
    const ends = events.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => [e.id, e.is_error, e.content])).toEqual([
      ["c1", true, "blocked by policy: secrets stay private"],
      ["c2", false, "read ok"],
    ]);
    expect(result.permission_denials.map((d) => d.tool_use_id)).toEqual(["c1"]);
  });

  test("afterTool sees every outcome and may replace what the model gets", async () => {
    const model = scripted(callTools({ id: "c1", name: "read" }), answer("done"));
    const { events } = await run(agentInput({ tools: [echo("read")] }), {
      stream: model.stream,
      afterTool: async (call, outcome) => ({
        ...outcome,
        content: `${outcome.content} [checked ${call.id}]`,
      }),
    });
    const sent = model.requests[1]?.messages.at(-1)?.content[0];
    expect(sent).toMatchObject({ type: "tool_result", content: "read:{} [checked c1]" });
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ content: "read:{} [checked c1]" });
  });

  test("beforeStop can send the model on once with a user message, which is reported", async () => {
    const model = scripted(answer("half done"), answer("all done"));
    let asked = 0;
    const { events, result } = await run(agentInput(), {
      stream: model.stream,
      beforeStop: async (text) => (asked++ === 0 ? `not yet: "${text}" misses the tests` : undefined),
    });
    expect(asked).toBe(2);
    expect(result).toMatchObject({ subtype: "success", result: "all done", num_turns: 2 });
    const nudge = events.find((e) => e.type === "user_message");
    expect(nudge).toMatchObject({
      message: { role: "user", content: [{ text: 'not yet: "half done" misses the tests' }] },
    });
    expect(model.requests[1]?.messages.at(-1)).toEqual(
      nudge?.type === "user_message" ? nudge.message : undefined,
    );
  });

  test("beforeCompact is told the trigger and its focus reaches the summary request", async () => {
    const pad = (s: string) => `${s} ${"lorem ipsum ".repeat(33)}`;
    const messages: Message[] = [
      userText(pad("P1")),
      { role: "assistant", content: [{ type: "text", text: pad("A1") }] },
      userText(pad("P2")),
      { role: "assistant", content: [{ type: "text", text: pad("A2") }] },
      userText("P3"),
    ];
    const triggers: string[] = [];
    const model = scripted(answer("SUMMARY"), answer("final"));
    await run(agentInput({ messages, contextWindow: 500 }), {
      stream: model.stream,
      beforeCompact: async (trigger) => {
        triggers.push(trigger);
        return "KEEP-THE-DATABASE-DECISIONS";
      },
    });
    expect(triggers).toEqual(["auto"]);
    expect(JSON.stringify(model.requests[0]?.messages)).toContain("KEEP-THE-DATABASE-DECISIONS");
  });

  test("contextBlocks go into each request after the conversation, never into the reported messages", async () => {
    const model = scripted(callTools({ id: "c1", name: "read" }), answer("done"));
    let calls = 0;
    const { events } = await run(agentInput({ tools: [echo("read")] }), {
      stream: model.stream,
      contextBlocks: async () => [{ type: "text", text: `<memory>recall ${++calls}</memory>` }],
    });
    expect(model.requests[0]?.messages.at(-1)?.content.at(-1)).toEqual({
      type: "text",
      text: "<memory>recall 1</memory>",
    });
    // After tool results the context rides in the same (user) message, after the results.
    expect(model.requests[1]?.messages.at(-1)?.content.map((b) => b.type)).toEqual(["tool_result", "text"]);
    for (const event of events)
      if (event.type === "assistant" || event.type === "tool_results")
        expect(JSON.stringify(event.message)).not.toContain("<memory>");
  });
});
