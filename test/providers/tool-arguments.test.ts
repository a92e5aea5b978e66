/**
 * One reading of a tool call's arguments for every wire: the module's rules, then each wire against the
 * fake LLM, sending the same argument text (cut into pieces where the wire streams it) and giving the
 * same `tool_call` events.
 */
import { describe, expect, test } from "bun:test";
import { streamAnthropic } from "../../src/providers/anthropic.ts";
import { streamMistral } from "../../src/providers/mistral.ts";
import { streamOllama } from "../../src/providers/ollama.ts";
import { streamOpenAI } from "../../src/providers/openai.ts";
import { parseToolArguments, toolArgumentsOf } from "../../src/providers/tool-arguments.ts";
import type { StreamEvent } from "../../src/providers/types.ts";
import { chatChunk, namedSseFrames, sseFrames, useAdapterHarness } from "../support/stream-helpers.ts";

describe("parseToolArguments", () => {
  test("a JSON object is the input", () => {
    expect(parseToolArguments('{"path":"a.txt","limit":3}')).toEqual({ input: { path: "a.txt", limit: 3 } });
  });

  test("no arguments at all, or only blanks, is a call without arguments", () => {
    expect(parseToolArguments("")).toEqual({ input: {} });
    expect(parseToolArguments(" \n\t")).toEqual({ input: {} });
  });

  test("invalid JSON: no input, and an error that says why and quotes what was sent", () => {
    const parsed = parseToolArguments('{"path": "a');
    expect(parsed.input).toEqual({});
    expect(parsed.parse_error).toStartWith("not valid JSON (");
    expect(parsed.parse_error).toEndWith(': {"path": "a');
  });

  test("JSON that is not an object: no input, and an error quoting it", () => {
    for (const text of ["[1,2]", '"a.txt"', "42", "null", "true"]) {
      expect(parseToolArguments(text)).toEqual({ input: {}, parse_error: `not a JSON object: ${text}` });
    }
  });

  test("a long text is quoted up to 200 characters", () => {
    const text = `[${"1,".repeat(300)}1]`;
    const parsed = parseToolArguments(text);
    expect(parsed.parse_error).toBe(`not a JSON object: ${text.slice(0, 200)}…`);
  });
});

describe("toolArgumentsOf (arguments that may come as an object)", () => {
  test("an object is the input; none is no arguments", () => {
    expect(toolArgumentsOf({ city: "Tokyo" })).toEqual({ input: { city: "Tokyo" } });
    expect(toolArgumentsOf(undefined)).toEqual({ input: {} });
    expect(toolArgumentsOf(null)).toEqual({ input: {} });
  });

  test("text is read as JSON text, with the same outcomes", () => {
    for (const text of ['{"a":1}', "", '{"a":', "[1]"])
      expect(toolArgumentsOf(text)).toEqual(parseToolArguments(text));
  });

  test("another value is not an object", () => {
    expect(toolArgumentsOf([1, 2])).toEqual({ input: {}, parse_error: "not a JSON object: [1,2]" });
    expect(toolArgumentsOf(7)).toEqual({ input: {}, parse_error: "not a JSON object: 7" });
  });
});

/** The argument texts every wire is sent, by call id; each is cut in two where the wire streams pieces. */
const CASES: Record<string, string> = {
  call_ok: '{"path":"a.txt"}',
  call_none: "",
  call_cut: '{"path": "a',
  call_list: '["a.txt"]',
};

type ToolCallEvent = Extract<StreamEvent, { type: "tool_call" }>;

/** What every wire must report for CASES, in order. */
function expectedCalls(): ToolCallEvent[] {
  return Object.entries(CASES).map(([id, text]) => ({
    type: "tool_call" as const,
    id,
    name: "read_file",
    ...parseToolArguments(text),
  }));
}

const halves = (text: string): string[] =>
  text === "" ? [] : [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))];

const toolCallsOf = (events: StreamEvent[]) => events.filter((e) => e.type === "tool_call");

const KEY = "test-key-123";
const openai = useAdapterHarness("openai", streamOpenAI, { apiKey: KEY, model: "gpt-4o", prompt: "read" });
const anthropic = useAdapterHarness("anthropic", streamAnthropic, {
  apiKey: KEY,
  model: "claude-sonnet-4-20250514",
  prompt: "read",
});
const mistral = useAdapterHarness("mistral", streamMistral, {
  apiKey: KEY,
  model: "mistral-small-latest",
  prompt: "read",
});
const ollama = useAdapterHarness("ollama", streamOllama, { apiKey: KEY, model: "llama3.2", prompt: "read" });

describe("every wire reports the same arguments the same way", () => {
  test("OpenAI: arguments streamed in pieces per call index", async () => {
    const chunks = Object.entries(CASES).flatMap(([id, text], index) => {
      const [first = "", ...rest] = halves(text);
      return [
        chatChunk({
          tool_calls: [{ index, id, type: "function", function: { name: "read_file", arguments: first } }],
        }),
        ...rest.map((piece) => chatChunk({ tool_calls: [{ index, function: { arguments: piece } }] })),
      ];
    });
    openai.server.enqueue({ body: sseFrames(...chunks, chatChunk({}, "tool_calls"), "[DONE]") });
    expect(toolCallsOf(await openai.collect(openai.request()))).toEqual(expectedCalls());
  });

  test("Anthropic: input_json_delta pieces per content block", async () => {
    const blocks = Object.entries(CASES).flatMap(([id, text], index) => [
      {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id, name: "read_file", input: {} },
      },
      ...halves(text).map((partial_json) => ({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json },
      })),
      { type: "content_block_stop", index },
    ]);
    const message = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [],
      usage: { input_tokens: 1 },
    };
    anthropic.server.enqueue({
      body: namedSseFrames(
        { type: "message_start", message: { ...message, model: "claude-sonnet-4-20250514" } },
        ...blocks,
        {
          type: "message_delta",
          delta: { stop_reason: "tool_use", stop_sequence: null },
          usage: { output_tokens: 5 },
        },
        { type: "message_stop" },
      ),
    });
    expect(toolCallsOf(await anthropic.collect(anthropic.request()))).toEqual(expectedCalls());
  });

  test("Mistral: pieces per call index", async () => {
    const chunks = Object.entries(CASES).flatMap(([id, text], index) => {
      const [first = "", ...rest] = halves(text);
      return [
        chatChunk({
          content: "",
          tool_calls: [{ index, id, function: { name: "read_file", arguments: first } }],
        }),
        ...rest.map((piece) =>
          chatChunk({ content: "", tool_calls: [{ index, function: { name: "", arguments: piece } }] }),
        ),
      ];
    });
    const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
    mistral.server.enqueue({
      body: sseFrames(...chunks, chatChunk({ content: "" }, "tool_calls", { usage }), "[DONE]"),
    });
    expect(toolCallsOf(await mistral.collect(mistral.request()))).toEqual(expectedCalls());
  });

  test("Ollama: arguments as JSON text (as some builds and proxies send them) or as an object", async () => {
    const line = (value: unknown) => `${JSON.stringify(value)}\n`;
    const calls = Object.entries(CASES).map(([id, text]) => ({
      id,
      function: { name: "read_file", arguments: text },
    }));
    const asObject = { id: "call_object", function: { name: "read_file", arguments: { path: "a.txt" } } };
    ollama.server.enqueue({
      pathSuffix: "/api/chat",
      headers: { "content-type": "application/x-ndjson" },
      body: [
        line({ message: { role: "assistant", tool_calls: [...calls, asObject] }, done: false }),
        line({ message: { role: "assistant" }, done: true, prompt_eval_count: 3, eval_count: 2 }),
      ].join(""),
    });
    // The window and the model's facts known, so no /api/show comes first.
    const request = ollama.request({
      provider: ollama.provider({ numCtx: 8192 }),
      modelInfo: { reasoning: false, tool_call: true },
    });
    expect(toolCallsOf(await ollama.collect(request))).toEqual([
      ...expectedCalls(),
      { type: "tool_call", id: "call_object", name: "read_file", input: { path: "a.txt" } },
    ]);
  });
});
