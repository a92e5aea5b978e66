/**
 * A subagent's saved conversation read back: `resume` of a child whose saved transcript is damaged
 * (edited, or from an ion that saved another shape) is an error result the model can act on, and no
 * child request is made. Real session files in temp dirs, the real OpenAI SDK against the fake server.
 */
import { expect, test } from "bun:test";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import { SessionStore } from "../../src/history/store.ts";
import { SessionSubagents, SUBAGENTS_EXTENSION } from "../../src/subagents/session-subagents.ts";
import {
  type SessionSandbox,
  sessionOptions,
  userBlocks,
  useSessionSandbox,
} from "../support/session-harness.ts";
import { collectEvents, useFakeLLM } from "../support/stream-helpers.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const sandbox = useSessionSandbox(server, "child-transcript");

function options(box: SessionSandbox, resume?: string): SessionOptions {
  return sessionOptions(box, {
    yes: true,
    choice: { continueLatest: false, resume, noSession: false },
    extensions: [new SessionSubagents()],
  });
}

const signal = () => new AbortController().signal;

test("resume of a child whose saved conversation is damaged: an error result, no child request", async () => {
  const box = sandbox();
  const session = await AgentSession.open(options(box));
  server.enqueueReply("openai", {
    toolCalls: [{ id: "call_task", name: "task", input: { description: "look", prompt: "find it" } }],
  });
  server.enqueueReply("openai", { text: "CHILD FOUND IT" });
  server.enqueueReply("openai", { text: "Found." });
  await collectEvents(session.turn(userBlocks("go"), signal()));
  await session.close();
  expect(server.requests).toHaveLength(3);

  // A later save of the child whose messages no provider could send (a damaged or foreign file).
  const store = SessionStore.forDataDir(box.dataDir);
  const { writer } = await store.openForAppend(session.id);
  await writer.append([
    {
      type: "extension_state",
      extension: SUBAGENTS_EXTENSION,
      data: { type: "explorer", description: "look", messages: [{ role: "user", content: 42 }] },
      parent_tool_use_id: "call_task",
    },
  ]);
  await writer.close();

  const again = await AgentSession.open(options(box, session.id));
  server.enqueueReply("openai", {
    toolCalls: [
      { id: "call_more", name: "task", input: { description: "more", prompt: "And?", resume: "call_task" } },
    ],
  });
  server.enqueueReply("openai", { text: "ok" });
  const events = await collectEvents(again.turn(userBlocks("follow up"), signal()));
  await again.close();
  // No child request: the parent's two.
  expect(server.requests).toHaveLength(5);
  const results = events.find((e) => e.type === "tool_results");
  expect(JSON.stringify(results)).toContain('"is_error":true');
  const tool = (
    server.requests[4]!.body as { messages: { role: string; content: unknown }[] }
  ).messages.findLast((m) => m.role === "tool");
  expect(String(tool?.content)).toBe(
    "task: the saved conversation of subagent call_task cannot be read (a damaged session file); start a new one without resume",
  );
});
