/**
 * Subagents: a parent's `task` call runs a child agent against the same (fake) provider — the child's
 * request carries only its own context and tools, its answer is the parent's tool result, its spending
 * rolls into the parent's result, its events carry the call's id, its transcript is saved in the
 * parent's session file, `resume` continues it (also from a resumed session), and an abort stops it.
 * Real config and session files in temp dirs, the real OpenAI SDK against the fake server.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import { extensionStatesOf } from "../../src/history/extension-state.ts";
import { SessionStore } from "../../src/history/store.ts";
import { SessionSubagents, SUBAGENTS_EXTENSION } from "../../src/subagents/session-subagents.ts";
import { streamJsonRenderer } from "../../src/ui/stream-json.ts";
import { captureRender } from "../support/render-capture.ts";
import {
  runResultOf,
  type SessionSandbox,
  sessionOptions,
  userBlocks,
  useSessionSandbox,
} from "../support/session-harness.ts";
import { collectEvents, useFakeLLM } from "../support/stream-helpers.ts";
import { errorReply } from "../support/wire-scripts.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const newSandbox = useSessionSandbox(server, "task");

function sandbox(): SessionSandbox {
  const box = newSandbox();
  writeFileSync(join(box.root, "notes.txt"), "the answer is 42\n");
  return box;
}

type Box = SessionSandbox;

function options(box: Box, resume?: string): SessionOptions {
  return sessionOptions(box, {
    yes: true,
    choice: { continueLatest: false, resume, noSession: false },
    extensions: [new SessionSubagents()],
  });
}

const signal = () => new AbortController().signal;
type Body = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };
const bodyOf = (i: number) => server.requests[i]?.body as Body;
const toolNames = (i: number) => bodyOf(i).tools?.map((t) => t.function.name) ?? [];

/** The parent calls task (call_task); the child reads notes.txt, then answers; the parent answers. */
function enqueueDelegation(childAnswer = "CHILD FOUND 42") {
  server.enqueueReply("openai", {
    toolCalls: [
      {
        id: "call_task",
        name: "task",
        input: { description: "find the answer", prompt: "What is in notes.txt?" },
      },
    ],
    usage: { input: 100, output: 10 },
  });
  server.enqueueReply("openai", {
    toolCalls: [{ id: "call_read", name: "read_file", input: { path: "notes.txt" } }],
    usage: { input: 1000, output: 20 },
  });
  server.enqueueReply("openai", { text: childAnswer, usage: { input: 2000, output: 30 } });
  server.enqueueReply("openai", { text: "The answer is 42.", usage: { input: 200, output: 5 } });
}

describe("the task tool", () => {
  test("a child with its own context and read-only tools; its answer, spending and events reach the parent", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    enqueueDelegation();
    const events = await collectEvents(session.turn(userBlocks("delegate it"), signal()));
    await session.close();

    expect(server.requests).toHaveLength(4);
    // The parent is offered task; the child (an explorer) only the read tools (symbols too): no task, no edits, no bash.
    expect(toolNames(0)).toContain("task");
    expect(toolNames(1).sort()).toEqual(["glob", "grep", "list_files", "read_file", "symbols"]);
    // The child's context: a system prompt naming its role and the task's prompt, none of the parent's conversation.
    const childMessages = bodyOf(1).messages;
    expect(childMessages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(JSON.stringify(childMessages[0])).toContain("You are a subagent (explorer)");
    expect(JSON.stringify(childMessages[1])).toContain("What is in notes.txt?");
    expect(JSON.stringify(childMessages)).not.toContain("delegate it");
    expect(JSON.stringify(bodyOf(2).messages)).toContain("the answer is 42");

    // The parent's next request: the child's final text as the task result, with the task id.
    const toolResult = bodyOf(3).messages.find((m) => m.role === "tool");
    expect(String(toolResult?.content)).toContain("CHILD FOUND 42");
    expect(String(toolResult?.content)).toContain("task id: call_task (resume with resume: call_task)");
    expect(JSON.stringify(bodyOf(3).messages)).not.toContain("the answer is 42\\n");

    // Spending rolled up: the parent's 300 + 15 with the child's 3000 + 50.
    const result = runResultOf(events);
    expect(result.is_error).toBe(false);
    expect(result.usage.input_tokens).toBe(3300);
    expect(result.usage.output_tokens).toBe(65);

    // The child's events carry the call's id; stream-json prints them with parent_tool_use_id.
    const childEvents = events.filter((e) => e.type !== "result" && e.parent_tool_use_id === "call_task");
    expect(childEvents.some((e) => e.type === "tool_end" && e.name === "read_file")).toBe(true);
    const io = captureRender();
    const renderer = streamJsonRenderer(io.options);
    for (const event of events) renderer.onEvent(event);
    const json = io
      .out()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const marked = json.filter((l) => l.parent_tool_use_id === "call_task");
    expect(marked.some((l) => l.type === "assistant")).toBe(true);
    expect(marked.some((l) => l.type === "user")).toBe(true);
    expect(json.filter((l) => l.type === "system" && l.subtype === "init")).toHaveLength(1);
  });

  test("the transcript is saved under the call; resume continues the child, also in a resumed session", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    enqueueDelegation();
    await collectEvents(session.turn(userBlocks("delegate it"), signal()));
    await session.close();

    const store = SessionStore.forDataDir(box.dataDir);
    const entries = (await store.load(session.id)).entries;
    const saved = extensionStatesOf(entries, "call_task");
    // Saved as it goes: after the child's read step, then once it answered.
    expect(saved).toHaveLength(2);
    expect(saved.every((entry) => entry.extension === SUBAGENTS_EXTENSION)).toBe(true);
    expect(JSON.stringify(saved[0]?.data)).toContain("the answer is 42");
    expect(JSON.stringify(saved[0]?.data)).not.toContain("CHILD FOUND 42");
    const transcript = JSON.stringify(saved[1]?.data);
    expect(transcript).toContain("What is in notes.txt?");
    expect(transcript).toContain("CHILD FOUND 42");
    // Never part of the parent's conversation.
    expect(JSON.stringify(entries.filter((e) => e.type === "message"))).not.toContain("the answer is 42\\n");

    const again = await AgentSession.open(options(box, session.id));
    server.enqueueReply("openai", {
      toolCalls: [
        {
          id: "call_more",
          name: "task",
          input: { description: "follow up", prompt: "And doubled?", resume: "call_task" },
        },
      ],
    });
    server.enqueueReply("openai", { text: "84" });
    server.enqueueReply("openai", { text: "Doubled: 84." });
    await collectEvents(again.turn(userBlocks("follow up"), signal()));
    await again.close();
    // The child's request: its earlier conversation, then the new prompt.
    const resumed = bodyOf(5).messages;
    const all = JSON.stringify(resumed);
    expect(all).toContain("What is in notes.txt?");
    expect(all).toContain("the answer is 42");
    expect(all).toContain("CHILD FOUND 42");
    expect(JSON.stringify(resumed.at(-1))).toContain("And doubled?");
    expect(all).not.toContain("follow up");
    expect(
      String(bodyOf(6).messages.find((m) => m.role === "tool" && JSON.stringify(m).includes("84"))?.content),
    ).toContain("task id: call_more");
  });

  test("an unknown resume id is an error the model can act on; no child request is made", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_t", name: "task", input: { description: "x", prompt: "y", resume: "nope" } }],
    });
    server.enqueueReply("openai", { text: "ok" });
    await collectEvents(session.turn(userBlocks("go"), signal()));
    await session.close();
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(bodyOf(1).messages)).toContain("no subagent with id nope");
  });

  test("a child whose provider request fails (401): the parent gets an error result and goes on", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_task", name: "task", input: { description: "look", prompt: "find it" } }],
    });
    server.enqueue({ ...(await errorReply("openai", 401)), pathSuffix: "/chat/completions" });
    server.enqueueReply("openai", { text: "The subagent could not run." });
    const events = await collectEvents(session.turn(userBlocks("go"), signal()));
    await session.close();
    expect(server.requests).toHaveLength(3);
    const tool = bodyOf(2).messages.find((m) => m.role === "tool");
    expect(String(tool?.content)).toStartWith("subagent failed (error_during_execution)");
    expect(String(tool?.content)).toContain("task id: call_task");
    expect(String(tool?.content)).toContain("invalid API key for openai");
    const toolEvent = events.find((e) => e.type === "tool_results");
    expect(JSON.stringify(toolEvent)).toContain('"is_error":true');
    expect(runResultOf(events)).toMatchObject({ subtype: "success", result: "The subagent could not run." });
  });

  test("the parent's abort cancels the child's request", async () => {
    const box = sandbox();
    const session = await AgentSession.open(options(box));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_task", name: "task", input: { description: "slow", prompt: "wait" } }],
    });
    server.enqueue({ stallBeforeHeaders: true });
    const controller = new AbortController();
    const running = collectEvents(session.turn(userBlocks("go"), controller.signal));
    await server.waitForRequests(2);
    const started = Date.now();
    controller.abort();
    const events = await running;
    await session.close();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(runResultOf(events).subtype).toBe("error_interrupted");
    expect(server.requests).toHaveLength(2);
  });
});
