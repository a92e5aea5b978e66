/**
 * End to end: a Claude Agent SDK program's canUseTool and PreToolUse hook callbacks decide ion's tool
 * calls (the SDK's own `query()` against the built binary and the fake model server), with the file
 * checked on disk.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { all, results, sdkOptions } from "../support/sdk.ts";

const { server, env } = useOpenAIServer("test-key-sdk-approval");

describe("a Claude Agent SDK program's permission callback and hooks on ion", () => {
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
        options: sdkOptions(box, env, {
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
        options: sdkOptions(box, env, {
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
        options: sdkOptions(box, env, {
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
        options: sdkOptions(box, env, {
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
});
