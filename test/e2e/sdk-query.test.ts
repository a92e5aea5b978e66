/**
 * End to end: programs written for the Claude Agent SDK run on ion — the SDK's own `query()` spawns
 * the built binary (`pathToClaudeCodeExecutable`) and speaks its control protocol with it, against
 * the fake model server.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  createSdkMcpServer,
  type Options,
  query,
  type SDKMessage,
  type SDKResultMessage,
  tool,
} from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import { ionCommand, jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { stallMidStream } from "../support/wire-scripts.ts";

const { server, env } = useOpenAIServer("test-key-sdk");
const [bin, ...binArgs] = ionCommand();

/** The SDK's options for a run of ion in `box`: the binary (or `bun src/main.ts`), its env, a model. */
function options(box: Sandbox, more: Partial<Options> = {}): Options {
  return {
    pathToClaudeCodeExecutable: bin,
    // Under `bun src/main.ts` (no ION_BIN) the SDK must start bun with the script, as it would node.
    ...(binArgs.length > 0 ? { executable: "bun", pathToClaudeCodeExecutable: binArgs[0] } : {}),
    cwd: box.workspace,
    env: box.env(env),
    model: "openai/gpt-4o",
    ...more,
  } as Options;
}

async function all(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const seen: SDKMessage[] = [];
  for await (const message of messages) seen.push(message);
  return seen;
}

function results(messages: SDKMessage[]): SDKResultMessage[] {
  return messages.filter((m): m is SDKResultMessage => m.type === "result");
}

describe("Claude Agent SDK programs on ion", () => {
  test("a plain question: init, the answer, a success result", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Paris." });
    const q = query({ prompt: "Capital of France?", options: options(box) });
    // initialize's answer: what ion has, the session's model among it.
    expect(await q.supportedModels()).toEqual([
      expect.objectContaining({ value: "openai/gpt-4o", displayName: "gpt-4o" }),
    ]);
    const messages = await all(q);
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init" });
    const [result] = results(messages);
    expect(result).toMatchObject({ subtype: "success", is_error: false, result: "Paris." });
  });

  test("canUseTool deny: the bash call does not run and the model is told the program's message", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "bash", input: { command: "echo hi > denied.txt" } }],
    });
    server.enqueueReply("openai", { text: "It was refused." });
    const asked: string[] = [];
    const messages = await all(
      query({
        prompt: "write a file",
        options: options(box, {
          canUseTool: async (name) => {
            asked.push(name);
            return { behavior: "deny", message: "not on my watch" };
          },
        }),
      }),
    );
    expect(asked).toEqual(["Bash"]);
    expect(existsSync(join(box.workspace, "denied.txt"))).toBe(false);
    const toolResult = JSON.stringify(messages.filter((m) => m.type === "user"));
    expect(toolResult).toContain("not on my watch");
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "It was refused." });
  });

  test("canUseTool allow with updatedInput: the call runs with the program's input", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "bash", input: { command: "echo model > out.txt" } }],
    });
    server.enqueueReply("openai", { text: "Done." });
    const messages = await all(
      query({
        prompt: "write a file",
        options: options(box, {
          canUseTool: async (_name, input) => ({
            behavior: "allow",
            updatedInput: { ...input, command: "echo program > out.txt" },
          }),
        }),
      }),
    );
    expect(readFileSync(join(box.workspace, "out.txt"), "utf8").trim()).toBe("program");
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "Done." });
  });

  test("a PreToolUse hook callback blocks a call: the model is told why, nothing runs", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "bash", input: { command: "echo hi > blocked.txt" } }],
    });
    server.enqueueReply("openai", { text: "Blocked." });
    const inputs: unknown[] = [];
    const messages = await all(
      query({
        prompt: "write a file",
        options: options(box, {
          permissionMode: "bypassPermissions",
          hooks: {
            PreToolUse: [
              {
                matcher: "Bash",
                hooks: [
                  async (input) => {
                    inputs.push(input);
                    return { decision: "block", reason: "no shell today" };
                  },
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(inputs[0]).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "echo hi > blocked.txt" },
      tool_use_id: "call_1",
    });
    expect(existsSync(join(box.workspace, "blocked.txt"))).toBe(false);
    expect(JSON.stringify(messages.filter((m) => m.type === "user"))).toContain("no shell today");
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "Blocked." });
  });

  test("a PreToolUse hook callback rewrites a call's input and allows it", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "bash", input: { command: "echo model > hooked.txt" } }],
    });
    server.enqueueReply("openai", { text: "Rewritten." });
    const messages = await all(
      query({
        prompt: "write a file",
        options: options(box, {
          hooks: {
            PreToolUse: [
              {
                matcher: "Bash",
                hooks: [
                  async () => ({
                    hookSpecificOutput: {
                      hookEventName: "PreToolUse" as const,
                      permissionDecision: "allow" as const,
                      updatedInput: { command: "echo hook > hooked.txt" },
                    },
                  }),
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(readFileSync(join(box.workspace, "hooked.txt"), "utf8").trim()).toBe("hook");
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "Rewritten." });
  });

  test("interrupt() mid-stream ends the turn with the interrupted result", async () => {
    using box = new Sandbox();
    server.enqueue(stallMidStream("openai", { text: "I will never finish this sentence because" }));
    const before = server.requests.length;
    const q = query({ prompt: "talk slowly", options: options(box) });
    const seen: SDKMessage[] = [];
    const reading = (async () => {
      for await (const message of q) seen.push(message);
    })();
    await server.waitForRequests(before + 1, 10_000);
    await Bun.sleep(150);
    await q.interrupt();
    await reading;
    expect(results(seen)[0]).toMatchObject({ subtype: "error_interrupted", is_error: true });
  });

  test("an in-process createSdkMcpServer tool joins the session and the model calls it", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "mcp__calc__add", input: { a: 2, b: 3 } }],
    });
    server.enqueueReply("openai", { text: "It is 5." });
    const calls: unknown[] = [];
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [
        tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => {
          calls.push({ a, b });
          return { content: [{ type: "text" as const, text: String(a + b) }] };
        }),
      ],
    });
    const messages = await all(
      query({
        prompt: "add 2 and 3",
        options: options(box, { permissionMode: "bypassPermissions", mcpServers: { calc } }),
      }),
    );
    const init = messages[0] as { tools?: string[]; mcp_servers?: unknown[] };
    expect(init.tools).toContain("mcp__calc__add");
    expect(init.mcp_servers).toContainEqual({ name: "calc", status: "connected" });
    expect(calls).toEqual([{ a: 2, b: 3 }]);
    // The tool's answer reached the model.
    const second = server.requests.at(-1)?.body as { messages?: { role: string; content: unknown }[] };
    expect(JSON.stringify(second.messages?.at(-1))).toContain("5");
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "It is 5." });
  });

  test("streaming input: two user messages are two turns of one session", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "One." });
    server.enqueueReply("openai", { text: "Two." });
    async function* prompts() {
      yield {
        type: "user" as const,
        message: { role: "user" as const, content: "first" },
        parent_tool_use_id: null,
        session_id: "",
      };
      yield {
        type: "user" as const,
        message: { role: "user" as const, content: "second" },
        parent_tool_use_id: null,
        session_id: "",
      };
    }
    const seen: SDKMessage[] = [];
    const q = query({ prompt: prompts(), options: options(box) });
    for await (const message of q) {
      seen.push(message);
      if (results(seen).length === 2) break;
    }
    const [first, second] = results(seen);
    expect(first).toMatchObject({ result: "One." });
    expect(second).toMatchObject({ result: "Two." });
    expect(second?.session_id).toBe(first?.session_id);
  });

  test("after interrupt() the process goes on reading: the next message is a turn of the same session", async () => {
    using box = new Sandbox();
    server.enqueue(stallMidStream("openai", { text: "I will never finish this sentence because" }));
    server.enqueueReply("openai", { text: "Second answer." });
    const before = server.requests.length;
    let sendSecond: () => void = () => {};
    const secondReady = new Promise<void>((resolve) => {
      sendSecond = resolve;
    });
    async function* prompts() {
      yield {
        type: "user" as const,
        message: { role: "user" as const, content: "first" },
        parent_tool_use_id: null,
        session_id: "",
      };
      await secondReady;
      yield {
        type: "user" as const,
        message: { role: "user" as const, content: "second" },
        parent_tool_use_id: null,
        session_id: "",
      };
    }
    const q = query({ prompt: prompts(), options: options(box) });
    const seen: SDKMessage[] = [];
    const reading = (async () => {
      for await (const message of q) {
        seen.push(message);
        if (results(seen).length === 1 && seen.at(-1)?.type === "result") sendSecond();
        if (results(seen).length === 2) break;
      }
    })();
    await server.waitForRequests(before + 1, 10_000);
    await Bun.sleep(150);
    await q.interrupt();
    await reading;
    const [first, second] = results(seen);
    expect(first).toMatchObject({ subtype: "error_interrupted" });
    expect(second).toMatchObject({ subtype: "success", result: "Second answer." });
    expect(second?.session_id).toBe(first?.session_id);
  });

  test("ion -p PROMPT is ion run (Claude Code's print mode); flags that mean nothing to ion are no usage error", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Printed." });
    const run = await box.run(
      ["-p", "say it", "--output-format=json", "--model=openai/gpt-4o", "--setting-sources=", "--betas=x,y"],
      { env },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: "result", subtype: "success", result: "Printed." });
  });

  test("resume: a later program continues the session it names", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Noted: the code word is heron." });
    server.enqueueReply("openai", { text: "It was heron." });
    const first = results(await all(query({ prompt: "the code word is heron", options: options(box) })))[0];
    expect(first?.subtype).toBe("success");
    const second = results(
      await all(
        query({ prompt: "what was the code word?", options: options(box, { resume: first?.session_id }) }),
      ),
    )[0];
    expect(second).toMatchObject({ subtype: "success", session_id: first?.session_id });
    const sent = JSON.stringify(
      (server.requests.at(-1)?.body as { messages?: unknown } | undefined)?.messages,
    );
    expect(sent).toContain("the code word is heron");
    expect(sent).toContain("Noted: the code word is heron.");
  });

  test("an unsupported control request gets an error response naming it; the run goes on", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Still here." });
    const lines = [
      { type: "control_request", request_id: "r1", request: { subtype: "initialize" } },
      { type: "control_request", request_id: "r2", request: { subtype: "rewind_files" } },
      {
        type: "control_request",
        request_id: "r3",
        request: { subtype: "set_permission_mode", mode: "plan" },
      },
      { type: "control_request", request_id: "r4", request: { subtype: "mcp_status" } },
      { type: "user", message: { role: "user", content: "hello" } },
    ];
    const run = await box.run(
      [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--input-format",
        "stream-json",
        "--model=openai/gpt-4o",
      ],
      { env, stdin: lines.map((l) => JSON.stringify(l)).join("\n") + "\n" },
    );
    expect(run.code).toBe(0);
    const out = jsonLines(run.stdout);
    expect(out).toContainEqual({
      type: "control_response",
      response: { subtype: "error", request_id: "r2", error: "unsupported control request: rewind_files" },
    });
    expect(
      out.find(
        (l) => l.type === "control_response" && (l.response as { request_id?: string }).request_id === "r1",
      ),
    ).toMatchObject({
      response: { subtype: "success" },
    });
    const answer = (id: string) =>
      out.find(
        (l) => l.type === "control_response" && (l.response as { request_id?: string }).request_id === id,
      );
    expect(answer("r3")).toMatchObject({ response: { subtype: "success" } });
    expect(answer("r4")).toMatchObject({ response: { subtype: "success", response: { mcpServers: [] } } });
    // set_permission_mode plan took effect: the tools offered are the read-only ones.
    const tools =
      (server.requests.at(-1)?.body as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? [];
    expect(tools.map((t) => t.function.name)).not.toContain("bash");
    expect(tools.map((t) => t.function.name)).toContain("read_file");
    expect(out.at(-1)).toMatchObject({ type: "result", result: "Still here." });
  });
});
