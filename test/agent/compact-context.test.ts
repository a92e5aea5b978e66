/**
 * Compacting a view that holds context messages: a session file written and read back through the
 * store, its model view compacted with a scripted summariser. The summariser is told which text was
 * context (and from where), never that the user said it; a context message that is kept stays marked.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { compactMessages, serializeMessages } from "../../src/agent/compact.ts";
import type { NewEntry } from "../../src/history/schema.ts";
import { SessionStore } from "../../src/history/store.ts";
import { modelView } from "../../src/history/view.ts";
import type { StreamEvent, StreamFn, StreamRequest } from "../../src/providers/types.ts";
import { assistantText, userText, useTempDirs } from "../history/support/fixtures.ts";
import { testProvider, usageOf } from "../support/stream-helpers.ts";

const tempDir = useTempDirs("ion-compact-context-");
const pad = (text: string) => `${text} ${"lorem ipsum ".repeat(33)}`;

function context(source: string, text: string): NewEntry {
  return { type: "context_message", source, message: { role: "user", content: [{ type: "text", text }] } };
}

/** A summariser that answers every request with one summary and records what it was asked. */
function summariser(summary: string): { stream: StreamFn; requests: StreamRequest[] } {
  const requests: StreamRequest[] = [];
  const events: StreamEvent[] = [
    { type: "text_delta", text: summary },
    { type: "done", stop_reason: "end_turn", usage: usageOf(40, 8) },
  ];
  const stream: StreamFn = (request) => {
    requests.push(request);
    return (async function* () {
      yield* events;
    })();
  };
  return { stream, requests };
}

test("context messages reach the summariser labelled with their source, and a kept one keeps its mark", async () => {
  const store = new SessionStore(join(tempDir(), "sessions"));
  const writer = await store.create({ cwd: "/example", provider: "openai", model: "gpt-x", title: "Parser" });
  await writer.append([
    context("memory", pad("RECALL the user prefers small commits")),
    userText(pad("FIRST-PROMPT fix the parser")),
    assistantText(pad("FIRST-ANSWER fixed")),
    context("hook:UserPromptSubmit", pad("HOOK-CONTEXT CI is green")),
    userText(pad("SECOND-PROMPT now the lexer")),
    assistantText(pad("SECOND-ANSWER done")),
    context("memory", pad("LATE-RECALL the lexer has a known bug")),
    userText(pad("THIRD-PROMPT add tests")),
    assistantText(pad("THIRD-ANSWER added")),
  ]);
  await writer.close();
  const view = modelView((await store.load(writer.id)).entries);

  const model = summariser("THE-SUMMARY");
  const result = await compactMessages({
    messages: view.messages,
    system: "be brief",
    provider: testProvider(),
    model: "model-x",
    stream: model.stream,
    signal: new AbortController().signal,
    window: 4000,
    trigger: "manual",
  });

  expect(model.requests).toHaveLength(1);
  const block = model.requests[0]!.messages[0]!.content[0];
  const prompt = block?.type === "text" ? block.text : "";
  expect(prompt).toContain("[Context from memory]\nRECALL the user prefers small commits");
  expect(prompt).toContain("[Context from hook:UserPromptSubmit]\nHOOK-CONTEXT CI is green");
  expect(prompt).toContain("[User]\nFIRST-PROMPT fix the parser");
  expect(prompt).not.toMatch(/\[User\]\n(RECALL|HOOK-CONTEXT)/);

  expect(result.method).toBe("summary");
  const kept = result.messages.slice(1);
  expect(kept.length).toBe(result.kept);
  const lateRecall = kept.find(
    (m) => m.content[0]?.type === "text" && m.content[0].text.startsWith("LATE-RECALL"),
  );
  expect(lateRecall).toMatchObject({ role: "user", context: { source: "memory" } });
});

test("context of a source the extensions drop on compaction is left out of the summary; a kept one stays", async () => {
  const older = [
    {
      role: "user" as const,
      content: [{ type: "text" as const, text: pad("RECALL old memory") }],
      context: { source: "memory" },
    },
    {
      role: "user" as const,
      content: [{ type: "text" as const, text: pad("HOOK-CONTEXT CI is green") }],
      context: { source: "hook:UserPromptSubmit" },
    },
    { role: "user" as const, content: [{ type: "text" as const, text: pad("FIRST-PROMPT fix the parser") }] },
    { role: "assistant" as const, content: [{ type: "text" as const, text: pad("FIRST-ANSWER fixed") }] },
    { role: "user" as const, content: [{ type: "text" as const, text: pad("SECOND-PROMPT now the lexer") }] },
    { role: "assistant" as const, content: [{ type: "text" as const, text: pad("SECOND-ANSWER done") }] },
    {
      role: "user" as const,
      content: [{ type: "text" as const, text: pad("LATE-RECALL kept") }],
      context: { source: "memory" },
    },
    { role: "user" as const, content: [{ type: "text" as const, text: pad("THIRD-PROMPT add tests") }] },
    { role: "assistant" as const, content: [{ type: "text" as const, text: pad("THIRD-ANSWER added") }] },
  ];
  const model = summariser("THE-SUMMARY");
  const result = await compactMessages({
    messages: older,
    system: "be brief",
    provider: testProvider(),
    model: "model-x",
    stream: model.stream,
    signal: new AbortController().signal,
    window: 4000,
    trigger: "manual",
    droppedContext: new Set(["memory"]),
  });
  const block = model.requests[0]!.messages[0]!.content[0];
  const prompt = block?.type === "text" ? block.text : "";
  expect(prompt).not.toContain("RECALL old memory");
  expect(prompt).toContain("[Context from hook:UserPromptSubmit]\nHOOK-CONTEXT CI is green");
  expect(prompt).toContain("[User]\nFIRST-PROMPT fix the parser");
  expect(
    result.messages
      .slice(1)
      .some((m) => m.content[0]?.type === "text" && m.content[0].text.startsWith("LATE-RECALL")),
  ).toBe(true);
});

test("an image in a context message is not said to be the user's", () => {
  const [line] = serializeMessages([
    {
      role: "user",
      content: [{ type: "image", media_type: "image/png", data: "iVBORw0KGgo=", name: "shot.png" }],
      context: { source: "hook:UserPromptSubmit" },
    },
  ]);
  expect(line).toStartWith("[Context from hook:UserPromptSubmit: an image]");
  expect(line).not.toContain("User attached");
});
