/**
 * What memory learns from a turn (learn.ts), what it redacts first (redact.ts) and how recalled
 * memories read in the memory context message (render.ts).
 */
import { describe, expect, test } from "bun:test";
import { type AgentEvent, buildResult, type RunResult } from "../../src/agent/events.ts";
import type { TurnEndInfo } from "../../src/agent/session-extension.ts";
import { MAX_MEMORY_CHARS, turnMemories } from "../../src/memory/learn.ts";
import { redactForMemory } from "../../src/memory/redact.ts";
import { frameTokens, renderMemoryContext } from "../../src/memory/render.ts";
import type { MemoryRecord } from "../../src/memory/types.ts";

/** A made-up key in a provider's shape, put together at run time so no key-like text is committed. */
const keyShaped = (prefix: string, body: string): string => `${prefix}${body}`;

const ZERO = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

function result(text: string, subtype: RunResult["subtype"] = "success"): RunResult {
  return buildResult({
    subtype,
    result: text,
    session_id: "s1",
    provider: "openai",
    model: "gpt-4o-mini",
    num_turns: 1,
    duration_ms: 1,
    duration_api_ms: 1,
    usage: ZERO,
    total_cost_usd: 0,
    permission_denials: [],
    errors: subtype === "success" ? [] : ["the provider failed"],
    stop_reason: "end_turn",
    modelUsage: {},
  });
}

function turn(prompt: string, events: AgentEvent[], answer: RunResult): TurnEndInfo {
  return { sessionId: "s1", prompt: [{ type: "text", text: prompt }], events, result: answer };
}

const tool = (
  id: string,
  name: string,
  input: Record<string, unknown>,
  isError: boolean,
  parent?: string,
) => {
  const marked = parent === undefined ? {} : { parent_tool_use_id: parent };
  return [
    { type: "tool_start", id, name, input, ...marked },
    { type: "tool_end", id, name, is_error: isError, content: "…", duration_ms: 3, ...marked },
  ] as AgentEvent[];
};
const keep = (text: string) => text;

describe("turnMemories", () => {
  test("the user's words, one line per tool outcome, the answer: episodic memories of the session", () => {
    const events = [
      ...tool("t1", "read_file", { path: "notes.txt" }, false),
      ...tool("t2", "bash", { command: "npm   test\n --watch" }, true),
      // A subagent's own calls are not this turn's outcomes.
      ...tool("c1", "grep", { pattern: "TODO" }, false, "t9"),
    ];
    const memories = turnMemories(
      turn("Indent with tabs, please.", events, result("Noted: tabs.")),
      keep,
      1000,
    );
    expect(memories.map((m) => m.content)).toEqual([
      "user: Indent with tabs, please.",
      "read_file notes.txt: ok",
      "bash npm test --watch: error",
      "assistant: Noted: tabs.",
    ]);
    for (const memory of memories)
      expect(memory).toMatchObject({ source: "s1", type: "episodic", createdAt: 1000, validFrom: 1000 });
  });

  test("only text blocks of the prompt; images are not memories", () => {
    const info: TurnEndInfo = {
      sessionId: "s1",
      prompt: [
        { type: "text", text: "what is in" },
        { type: "image", media_type: "image/png", data: "iVBORw0KGgo=" },
        { type: "text", text: "this picture?" },
      ],
      events: [],
      result: result("A cat."),
    };
    expect(turnMemories(info, keep).map((m) => m.content)).toEqual([
      "user: what is in\nthis picture?",
      "assistant: A cat.",
    ]);
  });

  test("a turn that failed before any answer teaches nothing; one cut short after an answer does", () => {
    expect(turnMemories(turn("hello", [], result("", "error_during_execution")), keep)).toEqual([]);
    expect(turnMemories(turn("hello", [], result("Half an answer", "error_max_turns")), keep)).toHaveLength(
      2,
    );
  });

  test("everything goes through redact; a huge message is capped", () => {
    const huge = "x".repeat(MAX_MEMORY_CHARS * 3);
    const memories = turnMemories(turn(huge, [], result("ok")), (text) => text.replaceAll("ok", "[r]"));
    expect(memories[0]?.content.length).toBe(MAX_MEMORY_CHARS);
    expect(memories[0]?.content.endsWith("…")).toBe(true);
    expect(memories[1]?.content).toBe("assistant: [r]");
  });
});

describe("redactForMemory", () => {
  test("the values of keys.json and the config, anywhere in the text", () => {
    const known = ["test-key-plain-value-123", "hdr-secret-value-456"];
    const text = "export KEY=test-key-plain-value-123 and the header hdr-secret-value-456.";
    const out = redactForMemory(text, known);
    expect(out).not.toContain("test-key-plain-value-123");
    expect(out).not.toContain("hdr-secret-value-456");
    expect(out).toContain("[redacted]");
  });

  test.each([
    ["an OpenAI-style key", keyShaped("sk-proj-", "abcdefghijklmnopqrstuvwx1234")],
    ["an Anthropic-style key", keyShaped("sk-ant-api03-", "abcdefghijklmnop1234")],
    ["a GitHub token", keyShaped("ghp_", "abcdefghijklmnopqrstuvwxyz0123456789")],
    ["a GitLab token", keyShaped("glpat-", "abcdefghij0123456789xy")],
    ["a Slack token", keyShaped("xoxb-", "1234567890-abcdefghij")],
    ["an AWS access key id", keyShaped("AKIA", "ABCDEFGHIJKLMNOP")],
    ["a Google key", keyShaped("AIza", "SyAbcdefghijklmnopqrstuvwxyz0123456")],
    ["a Hugging Face token", keyShaped("hf_", "abcdefghijklmnopqrstuvwxyz012345")],
    ["a JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
    ["an unlabelled 48-character token", "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4"],
  ])("%s", (_name, secret) => {
    const out = redactForMemory(`here it is: ${secret} (keep it safe)`, []);
    expect(out).not.toContain(secret);
    expect(out).toStartWith("here it is: ");
    expect(out).toEndWith(" (keep it safe)");
  });

  test("a key is replaced whole, not masked to its last characters", () => {
    expect(redactForMemory(`key ${keyShaped("sk-proj-", "abcdefghijklmnopqrstuvwx1234")} here`, [])).toBe(
      "key [redacted] here",
    );
    expect(redactForMemory("groq gsk_abcdefghijklmnopqrstuvwx1234", [])).toBe("groq [redacted]");
    expect(redactForMemory("see https://user:pw@example.com/x", [])).toBe("see https://***@example.com/x");
  });

  test("a named secret keeps its name, loses its value; a private key block goes whole", () => {
    expect(redactForMemory('api_key = "abcdef123456"', [])).toBe('api_key = "[redacted]"');
    expect(redactForMemory("DB_PASSWORD: hunter2hunter2", [])).toBe("DB_PASSWORD: [redacted]");
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----";
    expect(redactForMemory(`key:\n${pem}\ndone`, [])).toBe("key:\n[redacted]\ndone");
  });

  test("ordinary text, paths, commit hashes and session ids stay as written", () => {
    const text =
      "Fixed src/memory/learn.ts in 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39, session 0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee; the token budget is 4000.";
    expect(redactForMemory(text, [])).toBe(text);
  });
});

describe("renderMemoryContext", () => {
  const record = (content: string, createdAt: number): MemoryRecord => ({
    id: `id-${createdAt}`,
    content,
    source: "s0",
    type: "episodic",
    createdAt,
    validFrom: createdAt,
    validTo: null,
    tokens: Math.ceil(content.length / 4),
  });

  test("oldest first, each with its day, a memory of several lines one item", () => {
    const text = renderMemoryContext([
      record("assistant: Noted: tabs.\nAlso spaces after commas.", Date.UTC(2026, 10, 25)),
      record("user: Indent with tabs.", Date.UTC(2026, 10, 24)),
    ]);
    expect(text).toStartWith("<memory_context>\n");
    expect(text).toEndWith("</memory_context>\n");
    expect(text).toContain(
      "- [2026-11-24] user: Indent with tabs.\n- [2026-11-25] assistant: Noted: tabs.\n  Also spaces after commas.\n",
    );
  });

  test("the frame's tokens are those of the message with no memory", () => {
    expect(frameTokens()).toBe(Math.ceil(renderMemoryContext([]).length / 4));
    expect(frameTokens()).toBeGreaterThan(10);
  });
});
