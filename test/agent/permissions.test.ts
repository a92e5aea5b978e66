import { describe, expect, test } from "bun:test";
import type { AgentEvent, PermissionDenial } from "../../src/agent/events.ts";
import {
  type ApprovalPolicy,
  authorizeCall,
  offeredTools,
  type PermissionMode,
  permissionMode,
} from "../../src/agent/permissions.ts";
import { runToolBatch } from "../../src/agent/tool-batch.ts";
import { parseToolRules } from "../../src/agent/tool-rules.ts";
import type { ToolUseBlock } from "../../src/providers/types.ts";
import type { AgentTool } from "../../src/tools/types.ts";
import { testProvider } from "../support/stream-helpers.ts";

function tool(name: string, readOnly: boolean): AgentTool {
  return {
    spec: { name, description: name, input_schema: { type: "object" } },
    readOnly,
    execute: async () => ({ content: "ran", is_error: false }),
  };
}

const TOOLS = [tool("read_file", true), tool("grep", true), tool("write_file", false), tool("bash", false)];
const names = (tools: AgentTool[]) => tools.map((t) => t.spec.name);

describe("permission mode", () => {
  test("-y means auto whatever the config says; otherwise config, else ask", () => {
    expect(permissionMode(true, "read")).toBe("auto");
    expect(permissionMode(false, "read")).toBe("read");
    expect(permissionMode(false, undefined)).toBe("ask");
  });

  test("read offers only read-only tools; disabled tools are never offered", () => {
    expect(names(offeredTools(TOOLS, "read"))).toEqual(["read_file", "grep"]);
    expect(names(offeredTools(TOOLS, "ask", ["bash", "grep"]))).toEqual(["read_file", "write_file"]);
    expect(names(offeredTools(TOOLS, "auto"))).toEqual(["read_file", "grep", "write_file", "bash"]);
    // --disallowedTools, in Claude Code's names too.
    const rules = parseToolRules([], ["Bash", "Grep"]);
    expect(names(offeredTools(TOOLS, "auto", [], rules))).toEqual(["read_file", "write_file"]);
  });
});

describe("authorizeCall", () => {
  const call = { id: "call_1", name: "bash", input: { command: "ls" }, readOnly: false };

  test("read-only calls run in every mode; auto runs everything; read denies the rest", async () => {
    expect(await authorizeCall({ mode: () => "read" }, { ...call, readOnly: true })).toEqual({ allow: true });
    expect(await authorizeCall({ mode: () => "auto" }, call)).toEqual({ allow: true });
    const denied = await authorizeCall({ mode: () => "read" }, call);
    expect(denied.allow).toBe(false);
    if (!denied.allow) expect(denied.reason).toContain("the permission mode is read");
  });

  test("ask follows the approver and reads the mode per call (a chat can change it)", async () => {
    let mode: PermissionMode = "ask";
    const policy: ApprovalPolicy = { mode: () => mode, approve: async () => "deny" };
    const first = await authorizeCall(policy, call);
    expect(first.allow).toBe(false);
    if (!first.allow) expect(first.reason).toContain("need the user's approval");
    // A network tool is not called a write or execute tool.
    const fetch = await authorizeCall(policy, {
      ...call,
      name: "web_fetch",
      input: { url: "https://a.test/" },
    });
    if (fetch.allow) throw new Error("web_fetch ran without approval");
    expect(fetch.reason).toContain("web_fetch was not run: network tools need the user's approval");
    if (!first.allow) expect(first.reason).toContain("write and execute tools need the user's approval");
    mode = "auto";
    expect(await authorizeCall(policy, call)).toEqual({ allow: true });
  });

  test("a program's approver answers with the input to run, or with what the model is told", async () => {
    const rewritten = { command: "ls build" };
    const allow: ApprovalPolicy = {
      mode: () => "ask",
      approve: async () => ({ decision: "allow", input: rewritten }),
    };
    expect(await authorizeCall(allow, call)).toEqual({ allow: true, input: rewritten });
    const deny: ApprovalPolicy = {
      mode: () => "ask",
      approve: async () => ({ decision: "deny", reason: "not now" }),
    };
    expect(await authorizeCall(deny, call)).toEqual({ allow: false, reason: "not now" });
    expect(await authorizeCall(deny, { ...call, outsideSandbox: true })).toEqual({
      allow: false,
      reason: "not now",
    });
  });

  test("a reviewer's denial wins in every mode; its allow skips the question in ask, never read's limit", async () => {
    const asked: string[] = [];
    const approve: ApprovalPolicy["approve"] = async (c) => {
      asked.push(c.name);
      return "deny";
    };
    const deny = { name: "guard", review: async () => ({ decision: "deny" as const }) };
    const allow = { name: "trust", review: async () => ({ decision: "allow" as const }) };
    const readCall = { ...call, name: "read_file", readOnly: true };
    expect(await authorizeCall({ mode: () => "auto", reviewers: [deny] }, readCall)).toEqual({
      allow: false,
      reason: "denied by guard: read_file was not run",
    });
    expect(await authorizeCall({ mode: () => "ask", approve, reviewers: [allow] }, call)).toEqual({
      allow: true,
    });
    expect(asked).toEqual([]);
    expect((await authorizeCall({ mode: () => "read", reviewers: [allow] }, call)).allow).toBe(false);
  });

  test("a rewritten input reaches later reviewers, the tool rules and the approver", async () => {
    const seen: unknown[] = [];
    const rewrite = { name: "fix", review: async () => ({ input: { command: "git log" } }) };
    const watch = {
      name: "watch",
      review: async (c: { input: Record<string, unknown> }) => {
        seen.push(c.input);
        return undefined;
      },
    };
    const toolRules = parseToolRules(["Bash(git log:*)"], []);
    const verdict = await authorizeCall({ mode: () => "ask", toolRules, reviewers: [rewrite, watch] }, call);
    expect(seen).toEqual([{ command: "git log" }]);
    expect(verdict).toEqual({ allow: true, input: { command: "git log" } });
  });
});

describe("one approval path: every decision of a batch", () => {
  const calls: ToolUseBlock[] = [
    { type: "tool_use", id: "r", name: "read_file", input: { path: "a" } },
    { type: "tool_use", id: "e", name: "edit_file", input: { path: "a" } },
    { type: "tool_use", id: "g", name: "bash", input: { command: "git log" } },
    { type: "tool_use", id: "x", name: "bash", input: { command: "rm -rf build" } },
  ];
  const tools = [tool("read_file", true), tool("edit_file", false), tool("bash", false)];

  async function batch(policy: ApprovalPolicy) {
    const denials: PermissionDenial[] = [];
    const events: AgentEvent[] = [];
    const generator = runToolBatch(
      calls,
      {
        sessionId: "s",
        cwd: "/workspace",
        provider: testProvider(),
        model: "m",
        system: "",
        messages: [],
        thinking: "off",
        tools,
        permissionMode: policy.mode(),
        maxTurns: 5,
        signal: new AbortController().signal,
      },
      { stream: async function* () {}, approval: policy },
      denials,
    );
    for (let next = await generator.next(); !next.done; next = await generator.next())
      events.push(next.value);
    const ran = events.flatMap((e) => (e.type === "tool_end" && !e.is_error ? [e.id] : []));
    return { ran, denied: denials.map((d) => d.tool_use_id) };
  }

  test("each mode, acceptEdits, --allowedTools, the approver and a reviewer decide as authorizeCall does", async () => {
    const asked: string[] = [];
    const approve: ApprovalPolicy["approve"] = async (c) => {
      asked.push(c.id);
      return "deny";
    };
    const toolRules = parseToolRules(["Bash(git log:*)"], []);
    const veto = {
      name: "veto",
      review: async (c: { input: Record<string, unknown> }) =>
        c.input.command === "git log" ? { decision: "deny" as const } : undefined,
    };
    // Each policy: the calls that run, and those the approver is asked about (mode ask only).
    const cases: [ApprovalPolicy, string[], string[]][] = [
      [{ mode: () => "read", approve }, ["r"], []],
      [{ mode: () => "auto", approve }, ["r", "e", "g", "x"], []],
      [{ mode: () => "ask", approve }, ["r"], ["e", "g", "x"]],
      [{ mode: () => "ask", approve, acceptEdits: true }, ["r", "e"], ["g", "x"]],
      [{ mode: () => "ask", approve, acceptEdits: true, toolRules }, ["r", "e", "g"], ["x"]],
      [{ mode: () => "ask", approve, acceptEdits: true, toolRules, reviewers: [veto] }, ["r", "e"], ["x"]],
    ];
    for (const [policy, ran, questions] of cases) {
      const expected: string[] = [];
      for (const c of calls) {
        const readOnly = c.name === "read_file";
        if ((await authorizeCall(policy, { ...c, readOnly })).allow) expected.push(c.id);
      }
      expect(expected).toEqual(ran);
      asked.length = 0;
      const outcome = await batch(policy);
      expect(outcome.ran).toEqual(ran);
      expect(outcome.denied).toEqual(calls.map((c) => c.id).filter((id) => !ran.includes(id)));
      expect(asked).toEqual(questions);
    }
  });
});
