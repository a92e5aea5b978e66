/**
 * The session's tool registry through its boundaries: real config and session files in temp dirs, the
 * real OpenAI SDK against the fake server, whose recorded request bodies say which tools were offered.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import { SessionStore } from "../../src/history/store.ts";
import type { AgentTool, ToolContext, ToolOutcome } from "../../src/tools/types.ts";
import {
  runResultOf,
  type SessionSandbox,
  sessionOptions,
  userBlocks,
  useSessionSandbox,
} from "../support/session-harness.ts";
import { collectEvents, usageOf, useFakeLLM } from "../support/stream-helpers.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const sandbox = useSessionSandbox(server, "session-tools");
const options = (box: SessionSandbox, extra: Partial<SessionOptions> = {}) =>
  sessionOptions(box, { yes: true, ...extra });

function tool(
  name: string,
  extra: Partial<AgentTool> = {},
  execute: (input: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome> = async () => ({
    content: `${name} ran`,
    is_error: false,
  }),
): AgentTool {
  return {
    spec: { name, description: `the ${name} tool`, input_schema: { type: "object", properties: {} } },
    readOnly: true,
    execute,
    ...extra,
  };
}

const turn = (session: AgentSession, prompt: string) =>
  collectEvents(session.turn(userBlocks(prompt), new AbortController().signal));
type Body = { tools?: { function: { name: string } }[] };
const offeredIn = (i: number) => {
  const body = server.requests[i]?.body as Body | undefined;
  if (!body) throw new Error(`no request #${i}`);
  return (body.tools ?? []).map((t) => t.function.name);
};

describe("AgentSession: the tool registry", () => {
  test("a tool added mid-turn is offered on the next request, and closed when the session closes", async () => {
    const box = sandbox();
    const marker = join(box.root, "closed.txt");
    const session = await AgentSession.open(options(box));
    const index = tool("build_index", {}, async () => {
      session.registry.add(
        tool("find_symbol", { close: async () => writeFileSync(marker, "find_symbol closed") }),
      );
      return { content: "indexed", is_error: false };
    });
    session.registry.add(index);
    server.enqueueReply("openai", { toolCalls: [{ id: "call_1", name: "build_index", input: {} }] });
    server.enqueueReply("openai", { text: "Indexed." });
    await turn(session, "index the project");
    expect(offeredIn(0)).toContain("build_index");
    expect(offeredIn(0)).not.toContain("find_symbol");
    expect(offeredIn(1)).toContain("find_symbol");
    // The built-ins are still offered beside them, in their order, first.
    expect(offeredIn(1).slice(0, 2)).toEqual(["read_file", "list_files"]);
    expect(() => readFileSync(marker)).toThrow();
    await session.close();
    expect(readFileSync(marker, "utf8")).toBe("find_symbol closed");
  });

  test("a deferred tool is not sent until activated", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    session.registry.add(tool("mcp__db__query"), { deferred: true });
    server.enqueueReply("openai", { text: "one" });
    await turn(session, "first");
    expect(offeredIn(0)).not.toContain("mcp__db__query");
    expect(session.registry.activate("mcp__db__query")).toBe(true);
    server.enqueueReply("openai", { text: "two" });
    await turn(session, "second");
    expect(offeredIn(1)).toContain("mcp__db__query");
    await session.close();
  });

  test("read mode offers tools whose calls may only read; tools.disabled and --disallowedTools apply to added tools", async () => {
    const box = sandbox({ tools: { disabled: ["disabled_tool"] } });
    const session = await AgentSession.open(
      options(box, {
        yes: false,
        mode: "read",
        toolRules: { allow: new Set(), bash: [], deny: new Set(["denied_tool"]), unknown: [] },
      }),
    );
    session.registry.add(tool("writer", { readOnly: false }));
    session.registry.add(tool("sql", { readOnly: (input) => input.query === "select" }));
    session.registry.add(tool("disabled_tool"));
    session.registry.add(tool("denied_tool"));
    const offered = session.tools().map((t) => t.spec.name);
    expect(offered).toContain("sql");
    expect(offered).toContain("read_file");
    expect(offered).not.toContain("writer");
    expect(offered).not.toContain("bash");
    expect(offered).not.toContain("disabled_tool");
    expect(offered).not.toContain("denied_tool");
    await session.close();
  });

  test("a tool that fails to close is told, and the session still closes", async () => {
    const box = sandbox();
    const notices: string[] = [];
    const session = await AgentSession.open(options(box, { notice: (line) => notices.push(line) }));
    session.registry.add(
      tool("flaky", {
        close: async () => {
          throw new Error("server did not answer");
        },
      }),
    );
    await session.close();
    expect(notices).toContain("warning: the tool flaky did not close: server did not answer");
  });

  test("a child agent's events are shown, not saved; its spending is in the result and the totals", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    session.registry.add(
      tool("task", {}, async (_input, ctx) => {
        ctx.emit?.({
          type: "assistant",
          message: { role: "assistant", content: [{ type: "text", text: "child says hi" }] },
          stop_reason: "end_turn",
          usage: usageOf(100, 10),
        });
        ctx.reportUsage?.(usageOf(100, 10), 0.25, { provider: "openai", model: "gpt-4o" });
        return { content: "child done", is_error: false };
      }),
    );
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_task", name: "task", input: {} }],
      usage: { input: 10, output: 5 },
    });
    server.enqueueReply("openai", { text: "All done.", usage: { input: 20, output: 5 } });
    const events = await turn(session, "delegate");
    await session.close();
    const child = events.find((e) => e.type === "assistant" && e.parent_tool_use_id === "call_task");
    expect(child).toBeDefined();
    const result = runResultOf(events);
    expect(result).toMatchObject({ subtype: "success", usage: { input_tokens: 130, output_tokens: 20 } });
    expect(result.modelUsage["gpt-4o"]).toMatchObject({ inputTokens: 100, costUSD: 0.25 });
    expect(session.totals.usage.input_tokens).toBe(130);
    const saved = (await SessionStore.forDataDir(box.dataDir).load(session.id)).entries;
    const texts = JSON.stringify(saved);
    expect(texts).toContain("All done.");
    expect(texts).not.toContain("child says hi");
  });
});
