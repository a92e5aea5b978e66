/**
 * The Chat Completions wire against strict endpoints that encode each vendor's documented rule: what a
 * model returns that only its vendor understands is kept and sent back (Gemini's thought signatures,
 * DeepSeek's and Kimi's reasoning_content, OpenRouter's reasoning_details), parallel calls Google
 * streams at one index stay apart, thinking goes only where the model takes it, and OpenRouter's "no
 * tool endpoints" 404 says what to do.
 */
import { describe, expect, test } from "bun:test";
import { mergeDetails, streamOpenAI } from "../../src/providers/openai.ts";
import type {
  AssistantBlock,
  Message,
  ResolvedProvider,
  StreamEvent,
  StreamRequest,
  ThinkingLevel,
  ToolSpec,
} from "../../src/providers/types.ts";
import { testProvider, useAdapterHarness, userText } from "../support/stream-helpers.ts";
import {
  geminiSignatures,
  openRouterNoToolEndpoints,
  type StrictEndpoint,
  strictGemini,
  strictGroqQwen,
  strictNoReasoning,
  strictOpenRouter,
  strictReasoningContent,
} from "../support/strict-openai.ts";

const KEY = "sk-test-vendors-key-0000000000000001";
const { server, provider, request, collect } = useAdapterHarness("openai", streamOpenAI, {
  apiKey: KEY,
  model: "gpt-4o",
  prompt: "Read a.txt and b.txt",
  resetRequestsEachTest: true,
});

const TOOLS: ToolSpec[] = [
  { name: "read_file", description: "Read a file", input_schema: { type: "object", properties: {} } },
];

/** The assistant message the agent loop keeps from a stream (the loop's rules, in short). */
function assistantOf(events: StreamEvent[], from: ResolvedProvider): Message {
  const blocks: AssistantBlock[] = [];
  const tag = (fields: Record<string, unknown>) => ({ provider: from.id, wire: from.wire, fields });
  for (const event of events) {
    const last = blocks.at(-1);
    if (event.type === "text_delta") {
      if (last?.type === "text") last.text += event.text;
      else blocks.push({ type: "text", text: event.text });
    } else if (event.type === "thinking_delta") {
      if (last?.type === "thinking") last.thinking += event.text;
      else blocks.push({ type: "thinking", thinking: event.text });
    } else if (event.type === "thinking_opaque") {
      let block = last;
      if (event.newBlock || block?.type !== "thinking") {
        block = { type: "thinking", thinking: "" };
        blocks.push(block);
      }
      if (block.type === "thinking") block.opaque = tag({ ...block.opaque?.fields, ...event.fields });
    } else if (event.type === "tool_call") {
      const opaque = event.opaque ? { opaque: tag(event.opaque) } : {};
      blocks.push({ type: "tool_use", id: event.id, name: event.name, input: event.input, ...opaque });
    }
  }
  return { role: "assistant", content: blocks };
}

/** Tool results for every call of `message`. */
function resultsFor(message: Message): Message {
  const ids = message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
  return {
    role: "user",
    content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: "ok", is_error: false })),
  };
}

/** A tool loop of `turns` steps against `strict`: every request must pass its rule. */
async function loop(strict: StrictEndpoint, base: StreamRequest, steps: number): Promise<Message[]> {
  const messages: Message[] = [...base.messages];
  for (let step = 0; step < steps; step++) {
    const last = step === steps - 1;
    server.enqueue(
      strict.turn(
        last
          ? { text: "Both files say ok." }
          : {
              thinking: `Step ${step}: I should read the files.`,
              calls: [
                { name: "read_file", input: { path: "a.txt" } },
                { name: "read_file", input: { path: "b.txt" } },
              ],
            },
      ),
    );
    const events = await collect({ ...base, messages: [...messages] });
    expect(events.at(-1)?.type).toBe("done");
    if (last) break;
    const reply = assistantOf(events, base.provider);
    messages.push(reply, resultsFor(reply));
  }
  expect(strict.violations).toEqual([]);
  return messages;
}

describe("Gemini 3 on Google's OpenAI endpoint", () => {
  const google = () => provider({ id: "google", name: "Google Gemini", keySource: "env GEMINI_API_KEY" });
  const base = () =>
    request({ provider: google(), model: "gemini-3-flash-preview", tools: TOOLS, thinking: "medium" });

  test("parallel calls streamed at index 0 stay apart, and the first keeps its thought signature", async () => {
    const signatures = await geminiSignatures();
    const gemini = strictGemini(signatures);
    server.enqueue(
      gemini.turn({
        calls: [
          { name: "read_file", input: { path: "a.txt" } },
          { name: "read_file", input: { path: "b.txt" } },
        ],
      }),
    );
    const events = await collect(base());
    const calls = events.filter((e) => e.type === "tool_call");
    expect(calls.map((c) => c.type === "tool_call" && c.input)).toEqual([
      { path: "a.txt" },
      { path: "b.txt" },
    ]);
    expect(calls[0]?.type === "tool_call" && calls[0].opaque).toEqual({
      extra_content: { google: { thought_signature: signatures[0] } },
    });
    expect(calls[1]?.type === "tool_call" && calls[1].opaque).toBeUndefined();
    expect(new Set(calls.map((c) => c.type === "tool_call" && c.id)).size).toBe(2);
  });

  test("a tool loop sends each signature back on its call (the endpoint answers 400 otherwise)", async () => {
    const gemini = strictGemini(await geminiSignatures());
    const messages = await loop(gemini, base(), 3);
    expect(messages).toHaveLength(5);
  });

  test("calls another provider made get Google's documented stand-in, another provider's fields never", async () => {
    const gemini = strictGemini(await geminiSignatures());
    server.enqueue(gemini.turn({ text: "ok" }));
    const foreign = { provider: "openrouter", wire: "openai" as const, fields: { extra_content: { x: 1 } } };
    const messages: Message[] = [
      userText("read a.txt"),
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_01", name: "read_file", input: { path: "a.txt" }, opaque: foreign },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "ok", is_error: false }],
      },
    ];
    const events = await collect({ ...base(), messages });
    expect(events.at(-1)?.type).toBe("done");
    const sent = server.requests.at(-1)?.body as {
      messages: { tool_calls?: { extra_content?: unknown }[] }[];
    };
    expect(sent.messages[1]?.tool_calls?.[0]?.extra_content).toEqual({
      google: { thought_signature: "skip_thought_signature_validator" },
    });
  });
});

describe("DeepSeek and Kimi thinking mode", () => {
  const custom = (id: string, quirks: ResolvedProvider["quirks"] = {}) =>
    testProvider({ id, name: id, baseURL: `${server.url}/v1`, apiKey: KEY, quirks });

  test("a custom provider serving deepseek-v4-pro gets reasoning_content back on tool-call turns", async () => {
    const strict = strictReasoningContent("deepseek");
    const messages = await loop(
      strict,
      request({ provider: custom("deepseek"), model: "deepseek-v4-pro", tools: TOOLS }),
      3,
    );
    const sent = server.requests.at(-1)?.body as {
      messages: { role: string; reasoning_content?: unknown }[];
    };
    expect(sent.messages.filter((m) => m.role === "assistant").map((m) => m.reasoning_content)).toEqual([
      "Step 0: I should read the files.",
      "Step 1: I should read the files.",
    ]);
    expect(messages).toHaveLength(5);
  });

  test("Kimi K2.x the same, and the setting turns it on for any model or off for these", async () => {
    await loop(
      strictReasoningContent("kimi"),
      request({ provider: custom("moonshot"), model: "kimi-k2.5", tools: TOOLS }),
      2,
    );
    await loop(
      strictReasoningContent("deepseek"),
      request({
        provider: custom("gateway", { resendReasoningContent: true }),
        model: "my-reasoner",
        tools: TOOLS,
      }),
      2,
    );
    // Off: the field is never sent, so a strict DeepSeek endpoint rejects the second step.
    const strict = strictReasoningContent("deepseek");
    const off = request({
      provider: custom("ds", { resendReasoningContent: false }),
      model: "deepseek-v4-pro",
      tools: TOOLS,
    });
    server.enqueue(strict.turn({ thinking: "hm", calls: [{ name: "read_file", input: {} }] }));
    const first = await collect(off);
    const reply = assistantOf(first, off.provider);
    server.enqueue(strict.turn({ text: "done" }));
    const second = await collect({ ...off, messages: [...off.messages, reply, resultsFor(reply)] });
    expect(second.at(-1)).toMatchObject({ type: "error", error: { kind: "bad_request", status: 400 } });
    expect(strict.violations).toHaveLength(1);
  });

  test("a built-in vendor is never sent a field it does not know", async () => {
    const groq = provider({ id: "groq", name: "Groq" });
    server.enqueue(strictReasoningContent("deepseek").turn({ text: "ok" }));
    const messages: Message[] = [
      userText("go"),
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "read_file", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "ok", is_error: false }] },
    ];
    await collect(request({ provider: groq, model: "moonshotai/kimi-k2-instruct", messages }));
    const sent = server.requests.at(-1)?.body as { messages: Record<string, unknown>[] };
    expect(sent.messages[1]).not.toHaveProperty("reasoning_content");
  });
});

describe("OpenRouter reasoning_details", () => {
  const openrouter = () => provider({ id: "openrouter", name: "OpenRouter" });

  test("fragments of one detail are joined; later ones add text and the signature", () => {
    const merged = mergeDetails(
      [],
      [
        { type: "reasoning.text", text: "Let ", signature: null, format: "anthropic-claude-v1", index: 0 },
        { type: "reasoning.text", text: "me", signature: "sig", format: "anthropic-claude-v1", index: 0 },
        { type: "reasoning.encrypted", data: "abc", id: "tool_1", format: "google-gemini-v1", index: 1 },
      ],
    );
    expect(merged).toEqual([
      { type: "reasoning.text", text: "Let me", signature: "sig", format: "anthropic-claude-v1", index: 0 },
      { type: "reasoning.encrypted", data: "abc", id: "tool_1", format: "google-gemini-v1", index: 1 },
    ]);
  });

  for (const [family, model] of [
    ["gemini", "google/gemini-3-flash-preview"],
    ["claude", "anthropic/claude-opus-4.7"],
  ] as const) {
    test(`${model}: a tool loop passes the reasoning blocks back unmodified`, async () => {
      const strict = strictOpenRouter(family, await geminiSignatures());
      await loop(strict, request({ provider: openrouter(), model, tools: TOOLS, thinking: "high" }), 3);
    });
  }

  test("a model without tool endpoints: say so and offer --no-tools, not the base URL", async () => {
    server.enqueue(openRouterNoToolEndpoints().turn({ text: "hi" }));
    const events = await collect(
      request({ provider: openrouter(), model: "deepseek/deepseek-r1:free", tools: TOOLS }),
    );
    const last = events.at(-1);
    expect(last?.type).toBe("error");
    const message = last?.type === "error" ? last.error.message : "";
    expect(message).toContain("openrouter/deepseek/deepseek-r1:free cannot use tools");
    expect(message).toContain("--no-tools");
    expect(message).not.toContain("base URL");
  });
});

describe("thinking only where the model takes it, in its values", () => {
  async function sent(strict: StrictEndpoint, req: StreamRequest) {
    server.enqueue(strict.turn({ text: "ok" }));
    const events = await collect(req);
    expect(strict.violations).toEqual([]);
    expect(events.at(-1)?.type).toBe("done");
    const body = server.requests.at(-1)?.body as { reasoning_effort?: unknown };
    return { effort: body.reasoning_effort, notices: events.filter((e) => e.type === "notice") };
  }

  test("gpt-4o after /think medium: no reasoning_effort, and a notice", async () => {
    const strict = await strictNoReasoning();
    const { effort, notices } = await sent(strict, request({ model: "gpt-4o", thinking: "medium" }));
    expect(effort).toBeUndefined();
    expect(notices).toEqual([
      { type: "notice", text: 'openai/gpt-4o does not reason, so the thinking level "medium" is not sent' },
    ]);
  });

  test("the catalogue's word wins over the model id", async () => {
    const strict = await strictNoReasoning();
    const info = { reasoning: false, tool_call: true };
    const { effort } = await sent(
      strict,
      request({ model: "o9-preview", thinking: "high", modelInfo: info }),
    );
    expect(effort).toBeUndefined();
  });

  test("groq qwen/qwen3-32b: every level is sent as default with a notice, off as none", async () => {
    const groq = provider({ id: "groq", name: "Groq" });
    const cases: [ThinkingLevel, string][] = [
      ["off", "none"],
      ["low", "default"],
      ["medium", "default"],
      ["high", "default"],
    ];
    for (const [level, want] of cases) {
      const { effort, notices } = await sent(
        strictGroqQwen(),
        request({ provider: groq, model: "qwen/qwen3-32b", thinking: level }),
      );
      expect(effort).toBe(want);
      expect(notices).toHaveLength(level === "off" ? 0 : 1);
    }
  });

  test("Gemini 3 Pro has no medium level: sent as high; Gemini 3 Flash takes medium as it is", async () => {
    const google = provider({ id: "google", name: "Google Gemini" });
    const gemini = strictGemini(await geminiSignatures());
    const pro = await sent(
      gemini,
      request({ provider: google, model: "gemini-3-pro-preview", thinking: "medium" }),
    );
    expect(pro.effort).toBe("high");
    expect(pro.notices).toHaveLength(1);
    const flash = await sent(
      gemini,
      request({ provider: google, model: "gemini-3-flash-preview", thinking: "medium" }),
    );
    expect(flash).toEqual({ effort: "medium", notices: [] });
  });
});
