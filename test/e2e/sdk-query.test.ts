/**
 * End to end: programs written for the Claude Agent SDK run on ion — the SDK's own `query()` spawns
 * the built binary (`pathToClaudeCodeExecutable`) and speaks its control protocol with it, against
 * the fake model server: questions, turns of one session, interrupt() and resume.
 */
import { describe, expect, test } from "bun:test";
import { query, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { all, results, sdkOptions } from "../support/sdk.ts";
import { stallMidStream } from "../support/wire-scripts.ts";

const { server, env } = useOpenAIServer("test-key-sdk-query");

describe("Claude Agent SDK programs on ion", () => {
  test("a plain question: init, the answer, a success result", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Paris." });
    const q = query({ prompt: "Capital of France?", options: sdkOptions(box, env) });
    // initialize's answer: what ion has, the session's model among it.
    expect(await q.supportedModels()).toEqual([
      expect.objectContaining({ value: "openai/gpt-4o", displayName: "gpt-4o" }),
    ]);
    const messages = await all(q);
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init" });
    const [result] = results(messages);
    expect(result).toMatchObject({ subtype: "success", is_error: false, result: "Paris." });
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
    const q = query({ prompt: prompts(), options: sdkOptions(box, env) });
    for await (const message of q) {
      seen.push(message);
      if (results(seen).length === 2) break;
    }
    const [first, second] = results(seen);
    expect(first).toMatchObject({ result: "One." });
    expect(second).toMatchObject({ result: "Two." });
    expect(second?.session_id).toBe(first?.session_id);
  });

  test("interrupt() mid-stream ends the turn with the interrupted result", async () => {
    using box = new Sandbox();
    server.enqueue(stallMidStream("openai", { text: "I will never finish this sentence because" }));
    const before = server.requests.length;
    const q = query({ prompt: "talk slowly", options: sdkOptions(box, env) });
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
    const q = query({ prompt: prompts(), options: sdkOptions(box, env) });
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

  test("resume: a later program continues the session it names", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Noted: the code word is heron." });
    server.enqueueReply("openai", { text: "It was heron." });
    const first = results(
      await all(query({ prompt: "the code word is heron", options: sdkOptions(box, env) })),
    )[0];
    expect(first?.subtype).toBe("success");
    const second = results(
      await all(
        query({
          prompt: "what was the code word?",
          options: sdkOptions(box, env, { resume: first?.session_id }),
        }),
      ),
    )[0];
    expect(second).toMatchObject({ subtype: "success", session_id: first?.session_id });
    const sent = JSON.stringify(
      (server.requests.at(-1)?.body as { messages?: unknown } | undefined)?.messages,
    );
    expect(sent).toContain("the code word is heron");
    expect(sent).toContain("Noted: the code word is heron.");
  });
});
