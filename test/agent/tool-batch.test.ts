import { describe, expect, test } from "bun:test";
import type { AgentEvent, PermissionDenial } from "../../src/agent/events.ts";
import type { AgentDeps, AgentInput } from "../../src/agent/loop.ts";
import { runToolBatch } from "../../src/agent/tool-batch.ts";
import type { ToolResultBlock, ToolUseBlock } from "../../src/providers/types.ts";
import type { AgentTool, ToolOutcome } from "../../src/tools/types.ts";
import { testProvider } from "../support/stream-helpers.ts";

function tool(name: string, readOnly: boolean, execute: () => Promise<ToolOutcome>): AgentTool {
  return { spec: { name, description: name, input_schema: { type: "object" } }, readOnly, execute };
}

const call = (id: string, name: string, input: Record<string, unknown> = {}): ToolUseBlock => ({
  type: "tool_use",
  id,
  name,
  input,
});

function batchInput(tools: AgentTool[], overrides: Partial<AgentInput> = {}): AgentInput {
  return {
    sessionId: "s",
    cwd: "/workspace",
    provider: testProvider({ apiKey: undefined, keySource: "none" }),
    model: "m",
    system: "",
    messages: [],
    thinking: "off",
    tools,
    permissionMode: "auto",
    maxTurns: 5,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function drive(
  calls: ToolUseBlock[],
  input: AgentInput,
  deps: Partial<AgentDeps> = {},
  parseErrors?: Map<string, string>,
) {
  const denials: PermissionDenial[] = [];
  const events: AgentEvent[] = [];
  const generator = runToolBatch(
    calls,
    input,
    { stream: async function* () {}, ...deps },
    denials,
    parseErrors,
  );
  let results: ToolResultBlock[] = [];
  for (;;) {
    const next = await generator.next();
    if (next.done) {
      results = next.value;
      break;
    }
    events.push(next.value);
  }
  return { events, results, denials };
}

const timed = (name: string, ms: number, readOnly = true) =>
  tool(name, readOnly, async () => {
    await Bun.sleep(ms);
    return { content: name, is_error: false };
  });

describe("runToolBatch", () => {
  test("read-only batch: results in call order even when a later call finishes first", async () => {
    const { events, results } = await drive(
      [call("1", "slow"), call("2", "fast")],
      batchInput([timed("slow", 30), timed("fast", 1)]),
    );
    expect(results.map((r) => [r.tool_use_id, r.content])).toEqual([
      ["1", "slow"],
      ["2", "fast"],
    ]);
    expect(events.map((e) => `${e.type}:${"id" in e ? e.id : ""}`)).toEqual([
      "tool_start:1",
      "tool_start:2",
      "tool_end:1",
      "tool_end:2",
    ]);
  });

  test("each call's duration is its own, also when run concurrently", async () => {
    let clock = 0;
    const at = (name: string, sleepMs: number, finishAt: number) =>
      tool(name, true, async () => {
        await Bun.sleep(sleepMs);
        clock = finishAt;
        return { content: name, is_error: false };
      });
    const { events } = await drive(
      [call("1", "slow"), call("2", "fast")],
      batchInput([at("slow", 20, 700), at("fast", 1, 40)]),
      { now: () => clock },
    );
    expect(events.flatMap((e) => (e.type === "tool_end" ? [[e.id, e.duration_ms]] : []))).toEqual([
      ["1", 700],
      ["2", 40],
    ]);
  });

  test("mixed batch runs sequentially, start/end pairs in order", async () => {
    const log: string[] = [];
    const make = (name: string, readOnly: boolean) =>
      tool(name, readOnly, async () => {
        log.push(`>${name}`);
        await Bun.sleep(3);
        log.push(`<${name}`);
        return { content: name, is_error: false };
      });
    const { events } = await drive(
      [call("1", "w"), call("2", "r")],
      batchInput([make("w", false), make("r", true)]),
    );
    expect(log).toEqual([">w", "<w", ">r", "<r"]);
    expect(events.map((e) => e.type)).toEqual(["tool_start", "tool_end", "tool_start", "tool_end"]);
  });

  test("an unknown tool makes the batch sequential and answers with an error", async () => {
    const { results, denials } = await drive(
      [call("1", "read"), call("2", "ghost")],
      batchInput([timed("read", 0)]),
    );
    expect(results[0]).toEqual({ type: "tool_result", tool_use_id: "1", content: "read", is_error: false });
    expect(results[1]?.is_error).toBe(true);
    expect(results[1]?.content).toContain('unknown tool "ghost" (available: read)');
    expect(denials).toEqual([]);
  });

  test("denials are recorded with the call's input; denied calls still get start/end events", async () => {
    const { events, results, denials } = await drive(
      [call("w", "write", { path: "x" })],
      batchInput([timed("write", 0, false)], { permissionMode: "read" }),
    );
    expect(denials).toEqual([{ tool_name: "write", tool_use_id: "w", tool_input: { path: "x" } }]);
    expect(results[0]?.is_error).toBe(true);
    expect(events.map((e) => e.type)).toEqual(["tool_start", "tool_end"]);
  });

  test("a parse error is answered for that call only", async () => {
    const { results } = await drive(
      [call("1", "read"), call("2", "read")],
      batchInput([timed("read", 0)]),
      {},
      new Map([["2", "bad JSON"]]),
    );
    expect(results.map((r) => [r.is_error, r.content])).toEqual([
      [false, "read"],
      [true, "invalid arguments for read: bad JSON"],
    ]);
  });

  for (const readOnly of [true, false]) {
    test(`an already aborted run executes nothing (${readOnly ? "read-only" : "mixed"} batch)`, async () => {
      const controller = new AbortController();
      controller.abort();
      const ran: string[] = [];
      const t = tool("t", readOnly, async () => {
        ran.push("t");
        return { content: "", is_error: false };
      });
      const { events, results } = await drive(
        [call("1", "t"), call("2", "t")],
        batchInput([t], { signal: controller.signal }),
      );
      expect(ran).toEqual([]);
      expect(results.every((r) => r.is_error && r.content.includes("interrupted"))).toBe(true);
      expect(events.filter((e) => e.type === "tool_start")).toHaveLength(2);
      expect(events.filter((e) => e.type === "tool_end")).toHaveLength(2);
    });
  }
});
