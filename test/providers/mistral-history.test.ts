/**
 * The Mistral wire sends histories other wires wrote, and histories stopped between tool results and
 * the next prompt, in the form Mistral's API accepts — proven against the strict endpoint
 * (test/support/strict-mistral.ts), which answers as the real API does.
 */
import { describe, expect, test } from "bun:test";
import { streamMistral } from "../../src/providers/mistral.ts";
import { UNANSWERED_TOOL_RESULTS } from "../../src/providers/mistral-messages.ts";
import type { Message, StreamEvent } from "../../src/providers/types.ts";
import { useAdapterHarness, userText } from "../support/stream-helpers.ts";
import { checkMistralRequest, strictMistralReply } from "../support/strict-mistral.ts";

const { server, request, collect } = useAdapterHarness("mistral", streamMistral, {
  apiKey: "fake-mistral-key-history-0000000000",
  model: "mistral-small-latest",
  prompt: "hi",
});

interface SentMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
}

/** A tool step: the assistant's call with `id`, then its result. */
function toolStep(id: string, path: string): Message[] {
  return [
    { role: "assistant", content: [{ type: "tool_use", id, name: "read_file", input: { path } }] },
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: id, content: `contents of ${path}`, is_error: false }],
    },
  ];
}

/** Runs one request against the strict endpoint; returns its events, what was sent, and any rejection. */
async function strictly(messages: Message[]) {
  const rejected: string[] = [];
  server.enqueue(strictMistralReply({ text: "Done." }, rejected));
  const events: StreamEvent[] = await collect(request({ messages }));
  const sent = (server.requests.at(-1)!.body as { messages: SentMessage[] }).messages;
  return { events, sent, rejected };
}

function idsOf(sent: SentMessage[]): { calls: string[]; results: string[] } {
  return {
    calls: sent.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)),
    results: sent.flatMap((m) => (m.tool_call_id === undefined ? [] : [m.tool_call_id])),
  };
}

describe("Mistral after a switch: tool-call ids of other wires", () => {
  // Ids as OpenAI, Anthropic and Kimi (on the OpenAI wire) make them; Mistral takes only
  // `^[a-zA-Z0-9]{9}$`, and answers 400 "Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9."
  const FOREIGN = ["call_Xq1v8m2LpZ0aT9bC4dE6fG7h", "toolu_01A09q90qw90lq917835lq9", "functions.read_file:0"];
  const history: Message[] = [
    userText("read three files"),
    ...FOREIGN.flatMap((id, i) => toolStep(id, `f${i}.txt`)),
    { role: "assistant", content: [{ type: "text", text: "Read them." }] },
    userText("and once more, on Mistral"),
  ];

  test("the strict endpoint rejects the ids as they are (the bug this fixes)", () => {
    const raw = {
      messages: [
        { role: "user", content: "read" },
        { role: "assistant", tool_calls: [{ id: FOREIGN[0], function: { name: "read_file" } }] },
        { role: "tool", tool_call_id: FOREIGN[0], content: "x" },
      ],
    };
    expect(checkMistralRequest(raw)).toEqual({
      message: `Tool call id was ${FOREIGN[0]} but must be a-z, A-Z, 0-9, with a length of 9.`,
      type: "invalid_function_call",
      code: "3280",
    });
  });

  test("each foreign id becomes 9 alphanumerics, the same for the call and its result; accepted", async () => {
    const { events, sent, rejected } = await strictly(history);
    expect(rejected).toEqual([]);
    expect(events.at(-1)?.type).toBe("done");
    const { calls, results } = idsOf(sent);
    expect(calls).toHaveLength(3);
    for (const id of calls) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(new Set(calls).size).toBe(3);
    expect(results).toEqual(calls);
    expect(JSON.stringify(sent)).not.toContain("toolu_");
    // Only the request changes: the history keeps the ids it was given.
    expect(history[1]).toMatchObject({ content: [{ id: FOREIGN[0] }] });
  });

  test("the mapping is stable across turns: the earlier request is a byte-identical prefix", async () => {
    const first = await strictly(history);
    const longer: Message[] = [
      ...history,
      ...toolStep("Ab3dE6gH9", "own.txt"),
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
      userText("and again"),
    ];
    const second = await strictly(longer);
    expect(second.rejected).toEqual([]);
    const prefix = JSON.stringify(first.sent.slice(0, -1));
    expect(JSON.stringify(second.sent.slice(0, first.sent.length - 1))).toBe(prefix);
    // Mistral's own ids pass through unchanged.
    expect(idsOf(second.sent).calls.at(-1)).toBe("Ab3dE6gH9");
  });
});

describe("Mistral after an interrupted tool step", () => {
  // A run stopped by --max-turns (or an interrupt) after its tools ran, then the next prompt.
  const history: Message[] = [userText("list the files"), ...toolStep("Zx9Yw8Vu7", "."), userText("go on")];

  test("the strict endpoint rejects tool → user (the bug this fixes)", () => {
    const raw = {
      messages: [
        { role: "user", content: "list" },
        { role: "assistant", tool_calls: [{ id: "Zx9Yw8Vu7", function: { name: "list_files" } }] },
        { role: "tool", tool_call_id: "Zx9Yw8Vu7", content: "a.txt" },
        { role: "user", content: "go on" },
      ],
    };
    expect(checkMistralRequest(raw)).toEqual({
      message: "Unexpected role 'user' after role 'tool'",
      type: "invalid_request_message_order",
      code: "3230",
    });
  });

  test("an assistant turn noting the interruption goes between them; accepted; the history is untouched", async () => {
    const before = JSON.stringify(history);
    const { events, sent, rejected } = await strictly(history);
    expect(rejected).toEqual([]);
    expect(events.at(-1)?.type).toBe("done");
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent[3]).toMatchObject({ role: "assistant", content: UNANSWERED_TOOL_RESULTS });
    expect(sent[3]?.tool_calls).toBeUndefined();
    expect(JSON.stringify(history)).toBe(before);
  });

  test("a prompt in the same message as the tool results gets the same turn", async () => {
    const merged: Message[] = [
      userText("list the files"),
      toolStep("Zx9Yw8Vu7", ".")[0]!,
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "Zx9Yw8Vu7", content: "a.txt", is_error: false },
          { type: "text", text: "go on" },
        ],
      },
    ];
    const { sent, rejected } = await strictly(merged);
    expect(rejected).toEqual([]);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
  });

  test("tool results answered by the model need no extra turn", async () => {
    const answered: Message[] = [
      ...history.slice(0, -1),
      { role: "assistant", content: [{ type: "text", text: "a.txt" }] },
      userText("go on"),
    ];
    const { sent, rejected } = await strictly(answered);
    expect(rejected).toEqual([]);
    expect(JSON.stringify(sent)).not.toContain(UNANSWERED_TOOL_RESULTS);
  });
});
