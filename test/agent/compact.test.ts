import { describe, expect, test } from "bun:test";
import {
  type CompactInput,
  compactMessages,
  findCut,
  isSummaryMessage,
  serializeMessages,
  truncateMiddle,
} from "../../src/agent/compact.ts";
import { estimateTokens } from "../../src/agent/tokens.ts";
import { summaryMessage } from "../../src/history/view.ts";
import type { Message, StreamEvent, StreamFn, StreamRequest } from "../../src/providers/types.ts";
import { abortedSignal, testProvider, usageOf, userText } from "../support/stream-helpers.ts";

const SECTIONS = ["## Goal", "## Decisions", "## Files touched", "## Open work", "## Important facts"];

type Reply = StreamEvent[] | ((request: StreamRequest) => AsyncIterable<StreamEvent>);

/** A scripted summariser: request N gets reply N; every request is recorded. */
function scripted(...replies: Reply[]) {
  const requests: StreamRequest[] = [];
  const stream: StreamFn = (request) => {
    requests.push(request);
    const reply = replies[requests.length - 1];
    if (reply === undefined) throw new Error(`unexpected summary request #${requests.length}`);
    if (typeof reply === "function") return reply(request);
    return (async function* () {
      yield* reply;
    })();
  };
  return { stream, requests };
}

const summaryReply = (text: string): StreamEvent[] => [
  { type: "text_delta", text },
  { type: "done", stop_reason: "end_turn", usage: usageOf(50, 10) },
];
const failure = (kind: "server" | "context_overflow" = "server"): StreamEvent[] => [
  { type: "error", error: { kind, message: `${kind} from fake: no` }, usage: usageOf(3, 0) },
];
const promptOf = (request: StreamRequest | undefined) => {
  const block = request?.messages[0]?.content[0];
  return block?.type === "text" ? block.text : "";
};

const assistantText = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const toolCall = (id: string, name: string, input: Record<string, unknown>): Message => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name, input }],
});
const toolResult = (id: string, content: string, is_error = false): Message => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content, is_error }],
});

/** Four exchanges of ~100 tokens each: prompts at 0, 2, 4, 6. */
function chat(): Message[] {
  const pad = (s: string) => `${s} ${"lorem ipsum ".repeat(33)}`;
  return [
    userText(pad("FIRST-PROMPT fix the parser in src/parse.ts")),
    assistantText(pad("FIRST-ANSWER done")),
    userText(pad("SECOND-PROMPT now the lexer")),
    assistantText(pad("SECOND-ANSWER done")),
    userText(pad("THIRD-PROMPT add tests")),
    assistantText(pad("THIRD-ANSWER added")),
    userText(pad("FOURTH-PROMPT run them")),
    assistantText(pad("FOURTH-ANSWER green")),
  ];
}

function compactInput(
  messages: Message[],
  stream: StreamFn,
  overrides: Partial<CompactInput> = {},
): CompactInput {
  return {
    messages,
    system: "be brief",
    provider: testProvider(),
    model: "model-x",
    stream,
    signal: new AbortController().signal,
    window: 2000,
    trigger: "auto",
    ...overrides,
  };
}

describe("compactMessages", () => {
  test("summarises the older half with the template, no tools, thinking off; keeps the newer half", async () => {
    const messages = chat();
    const model = scripted(summaryReply("THE-SUMMARY"));
    const result = await compactMessages(compactInput(messages, model.stream));

    expect(model.requests).toHaveLength(1);
    const request = model.requests[0]!;
    expect(request.tools).toEqual([]);
    expect(request.thinking).toBe("off");
    expect(request.model).toBe("model-x");
    expect(request.messages).toHaveLength(1);
    const prompt = promptOf(request);
    for (const section of SECTIONS) expect(prompt).toContain(section);
    expect(prompt).toContain("[User]\nFIRST-PROMPT fix the parser in src/parse.ts");
    expect(prompt).toContain("[Assistant]\nSECOND-ANSWER");
    expect(prompt).not.toContain("THIRD-PROMPT");
    expect(prompt).not.toContain("undefined");

    expect(result.method).toBe("summary");
    expect(result.summary).toBe("THE-SUMMARY");
    expect(result.kept).toBe(4);
    expect(result.messages).toEqual([summaryMessage("THE-SUMMARY"), ...messages.slice(4)]);
    expect(result.tokensBefore).toBe(estimateTokens(messages, "be brief"));
    expect(result.tokensAfter).toBe(estimateTokens(result.messages, "be brief"));
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore * 0.6);
    expect(result.usage).toEqual(usageOf(50, 10));
    // The input is not mutated.
    expect(messages).toEqual(chat());
  });

  test("the focus of /compact reaches the prompt; without one there is no focus line", async () => {
    const model = scripted(summaryReply("s"), summaryReply("s"));
    await compactMessages(compactInput(chat(), model.stream, { trigger: "manual", focus: "the lexer bug" }));
    await compactMessages(compactInput(chat(), model.stream));
    expect(promptOf(model.requests[0])).toContain("focus on: the lexer bug");
    expect(promptOf(model.requests[1])).not.toContain("focus on");
  });

  test("an earlier summary at the start of the view is re-summarised, not stacked", async () => {
    const messages = [summaryMessage("OLD-SUMMARY of long ago"), ...chat()];
    const model = scripted(summaryReply("NEW-SUMMARY"));
    const result = await compactMessages(compactInput(messages, model.stream));
    const prompt = promptOf(model.requests[0]);
    expect(prompt).toContain("[Summary of the conversation before this point]\nOLD-SUMMARY of long ago");
    expect(prompt).not.toContain("<conversation_summary>");
    expect(result.messages.filter(isSummaryMessage)).toHaveLength(1);
    expect(result.messages[0]).toEqual(summaryMessage("NEW-SUMMARY"));
  });

  test("a failed summary request is retried in chunks, each chunk carrying the summary so far", async () => {
    const model = scripted(failure(), summaryReply("PART-1"), summaryReply("PART-1+2"));
    const result = await compactMessages(compactInput(chat(), model.stream));
    expect(model.requests).toHaveLength(3);
    const [, first, second] = model.requests.map(promptOf);
    expect(first).toContain("FIRST-PROMPT");
    expect(first).not.toContain("SECOND-ANSWER");
    expect(first).toContain("part 1 of 2");
    expect(second).toContain("<previous_summary>\nPART-1\n</previous_summary>");
    expect(second).toContain("SECOND-ANSWER");
    expect(second).toContain("part 2 of 2");
    for (const section of SECTIONS) expect(second).toContain(section);
    expect(result).toMatchObject({ method: "summary", summary: "PART-1+2", kept: 4 });
    // Failed requests cost too.
    expect(result.usage).toEqual(usageOf(103, 20));
  });

  test("an older part above ~70 % of the window goes to chunks at once", async () => {
    const messages = chat();
    const older = estimateTokens(messages.slice(0, 4));
    const model = scripted(summaryReply("A"), summaryReply("B"), summaryReply("C"), summaryReply("D"));
    const result = await compactMessages(
      compactInput(messages, model.stream, { window: Math.floor(older / 0.7) - 20 }),
    );
    expect(promptOf(model.requests[0])).toContain("part 1 of");
    expect(result.method).toBe("summary");
    expect(result.summary).toBe(["A", "B", "C", "D"][model.requests.length - 1]!);
  });

  test("when the chunks fail too, the older part is dropped and the summary says how many", async () => {
    const model = scripted(failure(), failure("context_overflow"));
    const result = await compactMessages(compactInput(chat(), model.stream, { trigger: "overflow" }));
    expect(model.requests).toHaveLength(2);
    expect(result.method).toBe("dropped");
    expect(result.kept).toBe(4);
    expect(result.summary).toContain("4 earlier messages were dropped");
    expect(result.summary).toContain("context_overflow from fake: no");
    expect(result.messages).toEqual([summaryMessage(result.summary), ...chat().slice(4)]);
    expect(result.usage).toEqual(usageOf(6, 0));
  });

  test("dropping keeps an earlier summary's text", async () => {
    const messages = [summaryMessage("OLD-SUMMARY"), ...chat()];
    const model = scripted(failure(), failure(), failure());
    const result = await compactMessages(compactInput(messages, model.stream));
    expect(result.method).toBe("dropped");
    expect(result.summary).toContain("The summary from before them:\n\nOLD-SUMMARY");
  });

  test("a stream that throws, or an empty summary, counts as a failure, never as a throw", async () => {
    const model = scripted(() => {
      throw new Error("adapter bug");
    }, [{ type: "done", stop_reason: "end_turn", usage: usageOf(1, 0) }]);
    const result = await compactMessages(compactInput(chat(), model.stream));
    expect(result.method).toBe("dropped");
    expect(result.summary).toContain("was empty");
  });

  test("an aborted signal: no (further) requests, straight to dropping", async () => {
    const none = scripted();
    const before = await compactMessages(compactInput(chat(), none.stream, { signal: abortedSignal() }));
    expect(none.requests).toHaveLength(0);
    expect(before.method).toBe("dropped");

    const controller = new AbortController();
    const model = scripted(async function* () {
      controller.abort();
      yield* failure();
    });
    const during = await compactMessages(compactInput(chat(), model.stream, { signal: controller.signal }));
    expect(model.requests).toHaveLength(1);
    expect(during.method).toBe("dropped");
  });

  test("an unknown window still compacts (overflow, /compact) with one request", async () => {
    const model = scripted(summaryReply("S"));
    const result = await compactMessages(compactInput(chat(), model.stream, { window: undefined }));
    expect(model.requests).toHaveLength(1);
    expect(result.kept).toBe(4);
  });

  test("an empty view is returned as is", async () => {
    const model = scripted();
    const result = await compactMessages(compactInput([], model.stream));
    expect(result).toMatchObject({ messages: [], kept: 0 });
    expect(model.requests).toHaveLength(0);
  });
});

describe("serializeMessages", () => {
  test("role labels, tool calls as name + JSON input, results with their tool's name, long ones truncated", () => {
    const long = `${"a".repeat(3000)}THE-END`;
    const text = serializeMessages([
      userText("read it"),
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "PRIVATE" },
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "c1", name: "read_file", input: { path: "src/a.ts" } },
        ],
      },
      toolResult("c1", long),
      toolResult("c2", "nope", true),
    ]).join("\n\n");
    expect(text).toContain("[User]\nread it");
    expect(text).toContain('[Assistant]\nReading.\n\n[Tool call: read_file] {"path":"src/a.ts"}');
    expect(text).toContain("[Tool result: read_file]\naaa");
    expect(text).toContain("characters omitted");
    expect(text).toContain("THE-END");
    expect(text.length).toBeLessThan(2500);
    expect(text).toContain("[Tool result: tool (error)]\nnope");
    expect(text).not.toContain("PRIVATE");
  });

  test("truncateMiddle keeps head and tail within the limit", () => {
    expect(truncateMiddle("short", 10)).toBe("short");
    const cut = truncateMiddle("x".repeat(50) + "y".repeat(50), 20);
    expect(cut.startsWith("x".repeat(14))).toBe(true);
    expect(cut.endsWith("y".repeat(6))).toBe(true);
    expect(cut).toContain("[80 characters omitted]");
  });
});

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed from its seed. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random conversation: prompts, answers, tool batches of 1–3 calls with their results, summaries. */
function randomConversation(seed: number): Message[] {
  const random = rng(seed);
  const size = () => "x".repeat(Math.floor(random() ** 3 * 4000));
  const messages: Message[] = random() < 0.2 ? [summaryMessage(`earlier ${size()}`)] : [];
  let id = 0;
  const exchanges = 1 + Math.floor(random() * 6);
  for (let e = 0; e < exchanges; e++) {
    messages.push(userText(`prompt ${e} ${size()}`));
    const steps = Math.floor(random() * 5);
    for (let s = 0; s < steps; s++) {
      const calls = 1 + Math.floor(random() * 3);
      const ids = Array.from({ length: calls }, () => `call-${id++}`);
      messages.push({
        role: "assistant",
        content: [
          ...(random() < 0.5 ? [{ type: "text" as const, text: `step ${size()}` }] : []),
          ...ids.map((i) => ({ type: "tool_use" as const, id: i, name: "bash", input: { command: size() } })),
        ],
      });
      messages.push({
        role: "user",
        content: ids.map((i) => ({
          type: "tool_result" as const,
          tool_use_id: i,
          content: size(),
          is_error: false,
        })),
      });
    }
    if (random() < 0.8) messages.push(assistantText(`answer ${size()}`));
  }
  return messages;
}

describe("findCut", () => {
  test("never splits a tool call from its result (500 random conversations)", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const messages = randomConversation(seed);
      const cut = findCut(messages);
      const context = `seed ${seed}, cut ${cut} of ${messages.length}`;
      expect(cut, context).toBeGreaterThanOrEqual(1);
      expect(cut, context).toBeLessThanOrEqual(messages.length);
      const olderCalls = new Set(
        messages
          .slice(0, cut)
          .flatMap((m) => m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []))),
      );
      const keptResults = messages
        .slice(cut)
        .flatMap((m) => m.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])));
      for (const id of keptResults) expect(olderCalls.has(id), `${context}: ${id} split`).toBe(false);
      // The kept part starts at a real prompt or an assistant message, or is empty.
      const first = messages[cut];
      if (first?.role === "user") {
        expect(
          first.content.some((b) => b.type === "tool_result"),
          context,
        ).toBe(false);
        expect(isSummaryMessage(first), context).toBe(false);
      }
    }
  });

  test("prefers a real prompt near half the tokens", () => {
    expect(findCut(chat())).toBe(4);
  });

  test("a prompt's per-turn context stays with it: the cut falls before the context, never between", () => {
    const messages = chat();
    messages.splice(4, 0, {
      role: "user",
      content: [{ type: "text", text: "<memory>parser notes</memory>" }],
      context: { source: "memory" },
    });
    expect(findCut(messages)).toBe(4);
  });

  test("in one long tool-using run (a single prompt) it cuts at an assistant step", () => {
    const messages: Message[] = [userText("do the thing")];
    for (let i = 0; i < 10; i++) {
      messages.push(toolCall(`c${i}`, "bash", { command: `step ${i}` }));
      messages.push(toolResult(`c${i}`, "y".repeat(400)));
    }
    const cut = findCut(messages);
    expect(messages[cut]?.role).toBe("assistant");
    expect(cut).toBeGreaterThan(5);
    expect(cut).toBeLessThan(15);
  });

  test("when only a huge last result remains, everything is summarised rather than keeping it all", () => {
    const messages = [userText("go"), toolCall("c", "bash", {}), toolResult("c", "z".repeat(100_000))];
    expect(findCut(messages)).toBe(3);
  });
});
