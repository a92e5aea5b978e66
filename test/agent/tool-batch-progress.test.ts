/**
 * The progress seam: a tool reports through `ctx.onUpdate`, the batch turns each report into a
 * `tool_progress` event between the call's `tool_start` and `tool_end`, while the tool still runs.
 */
import { describe, expect, test } from "bun:test";
import type { AgentEvent } from "../../src/agent/events.ts";
import type { AgentInput } from "../../src/agent/loop.ts";
import { runToolBatch } from "../../src/agent/tool-batch.ts";
import type { ToolUseBlock } from "../../src/providers/types.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "../../src/tools/types.ts";
import { testProvider } from "../support/stream-helpers.ts";

function tool(
  name: string,
  readOnly: boolean,
  execute: (ctx: ToolContext) => Promise<ToolOutcome>,
): AgentTool {
  return {
    spec: { name, description: name, input_schema: { type: "object" } },
    readOnly,
    execute: (_input, ctx) => execute(ctx),
  };
}

const call = (id: string, name: string): ToolUseBlock => ({ type: "tool_use", id, name, input: {} });

function input(tools: AgentTool[]): AgentInput {
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
  };
}

/** Runs the batch; `seen` is called with each event as it arrives, before the batch goes on. */
async function drive(calls: ToolUseBlock[], tools: AgentTool[], seen?: (event: AgentEvent) => void) {
  const events: AgentEvent[] = [];
  const generator = runToolBatch(calls, input(tools), { stream: async function* () {} }, []);
  for (;;) {
    const next = await generator.next();
    if (next.done) return events;
    events.push(next.value);
    seen?.(next.value);
  }
}

describe("tool progress", () => {
  test("each report arrives as a tool_progress event while the tool is still running", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let report: ToolContext["onUpdate"];
    const slow = tool("slow", false, async (ctx) => {
      report = ctx.onUpdate;
      ctx.onUpdate?.({ output_tail: "step-1" });
      await gate;
      // Reported after the tool returned its outcome's promise chain: never shown.
      return { content: "done", is_error: false };
    });
    const events = await drive([call("c1", "slow")], [slow], (event) => {
      if (event.type === "tool_progress" && event.output_tail === "step-1") {
        // The tool has not finished: it waits for this test to let it go.
        report?.({ output_tail: "step-2" });
        setTimeout(release, 5);
      }
    });
    report?.({ output_tail: "too late" });
    expect(events.map((e) => (e.type === "tool_progress" ? `progress:${e.output_tail}` : e.type))).toEqual([
      "tool_start",
      "progress:step-1",
      "progress:step-2",
      "tool_end",
    ]);
    const progress = events.find((e) => e.type === "tool_progress");
    expect(progress).toMatchObject({ id: "c1", name: "slow" });
    expect(progress?.type === "tool_progress" && progress.elapsed_ms).toBeGreaterThanOrEqual(0);
  });

  test("a burst of reports a slow reader has not taken collapses to the newest per call", async () => {
    const chatty = tool("chatty", true, async (ctx) => {
      for (let i = 1; i <= 100; i++) ctx.onUpdate?.({ output_tail: `line-${i}` });
      await Bun.sleep(20);
      return { content: "done", is_error: false };
    });
    const events = await drive([call("a", "chatty"), call("b", "chatty")], [chatty]);
    const progress = events.filter((e) => e.type === "tool_progress");
    expect(progress.map((e) => e.type === "tool_progress" && `${e.id}:${e.output_tail}`)).toEqual([
      "a:line-100",
      "b:line-100",
    ]);
    expect(events.at(-1)?.type).toBe("tool_end");
  });

  test("a tool that throws still ends its call; progress it reported before is delivered", async () => {
    const broken = tool("broken", false, async (ctx) => {
      ctx.onUpdate?.({ output_tail: "about to fail" });
      await Bun.sleep(5);
      throw new Error("boom");
    });
    const events = await drive([call("x", "broken")], [broken]);
    expect(events.map((e) => e.type)).toEqual(["tool_start", "tool_progress", "tool_end"]);
    const last = events.at(-1);
    expect(last?.type === "tool_end" && last.content).toBe("tool broken failed: boom");
  });
});
