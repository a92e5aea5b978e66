import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fenceFor, renderMarkdown, type Transcript, transcriptTotals } from "../../src/history/export.ts";
import type { SessionEntry, SessionHeader } from "../../src/history/schema.ts";

const CWD = join(tmpdir(), "ion-export-demo");
const USAGE = {
  input_tokens: 1200,
  output_tokens: 300,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

const header: SessionHeader = {
  type: "session",
  version: 1,
  id: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
  created_at: "2025-06-01T10:00:00.000Z",
  cwd: CWD,
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  title: "Fix the parser",
};

const at = (minute: number) => `2025-06-01T10:${String(minute).padStart(2, "0")}:00.000Z`;

const entries: SessionEntry[] = [
  {
    n: 0,
    at: at(0),
    type: "message",
    message: { role: "user", content: [{ type: "text", text: "Why does parse fail?" }] },
  },
  {
    n: 1,
    at: at(1),
    type: "message",
    stop_reason: "tool_use",
    usage: USAGE,
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Read the parser first." },
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "call_1", name: "read_file", input: { path: "src/parse.ts" } },
      ],
    },
  },
  {
    n: 2,
    at: at(2),
    type: "message",
    message: {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "call_1", content: "const s = ```x```;", is_error: false },
      ],
    },
  },
  {
    n: 3,
    at: at(3),
    type: "compaction",
    trigger: "auto",
    summary: "The user asked about parse.\nThe parser was read.",
    first_kept: 2,
    tokens_before: 12000,
    tokens_after: 3000,
    method: "summary",
  },
  { n: 4, at: at(4), type: "model_change", provider: "openai", model: "gpt-4o" },
  {
    n: 5,
    at: at(5),
    type: "message",
    usage: {
      ...USAGE,
      input_tokens: 500,
      cache_read_input_tokens: 200,
      cache_creation_input_tokens: 100,
      output_tokens: 100,
    },
    message: { role: "assistant", content: [{ type: "text", text: "The quote is unbalanced." }] },
  },
  {
    n: 6,
    at: at(6),
    type: "run_end",
    subtype: "success",
    num_turns: 2,
    usage: USAGE,
    total_cost_usd: 0.0123,
    errors: [],
  },
];

const transcript: Transcript = { header, entries };

describe("renderMarkdown", () => {
  const md = renderMarkdown(transcript);

  test("title and metadata come first", () => {
    expect(md.startsWith("# Fix the parser\n\n")).toBe(true);
    expect(md).toContain(`- **Session:** \`${header.id}\``);
    expect(md).toContain(`- **Directory:** \`${CWD}\``);
    expect(md).toContain("- **Model:** anthropic/claude-sonnet-4-5");
    expect(md).toContain("- **Updated:** 2025-06-01T10:06:00.000Z");
    expect(md).toContain("- **Messages:** 4 · **Tokens:** 2,000 in / 400 out");
  });

  test("every message, compacted-away ones marked, in file order", () => {
    const first = md.indexOf("Why does parse fail?");
    const marker = md.indexOf("Compacted here (auto)");
    const after = md.indexOf("The quote is unbalanced.");
    expect(first).toBeGreaterThan(0);
    expect(marker).toBeGreaterThan(first);
    expect(after).toBeGreaterThan(marker);
    expect(md).toContain("## User *(compacted away: the model no longer sees it)*");
    expect(md).toContain("## Assistant *(compacted away: the model no longer sees it)*");
    // n = 2 is first_kept: still in the model's view.
    expect(md).toContain("**Tool result:** `read_file`\n");
  });

  test("the compaction: its marker, token counts and the quoted summary", () => {
    expect(md).toContain("*Compacted here (auto): summary of #0–#1, 12,000 → 3,000 tokens.");
    expect(md).toContain("> The user asked about parse.\n> The parser was read.");
  });

  test("thinking folds away; tool calls and results are fenced", () => {
    expect(md).toContain("<details><summary>Thinking</summary>\n\nRead the parser first.\n\n</details>");
    expect(md).toContain('**Tool call:** `read_file`\n\n```json\n{\n  "path": "src/parse.ts"\n}\n```');
    // The result holds a triple backtick: its fence must be longer.
    expect(md).toContain("````\nconst s = ```x```;\n````");
  });

  test("a message of tool results only has no User heading", () => {
    const section = md.slice(md.indexOf("**Tool result:**") - 40, md.indexOf("**Tool result:**"));
    expect(section).not.toContain("## User");
  });

  test("model changes and run ends", () => {
    expect(md).toContain("*Model changed to openai/gpt-4o.*");
    expect(md).toContain("*Run end: success · 2 turns · 1,200 in / 300 out tokens · $0.0123*");
  });

  test("an untitled, empty session still renders", () => {
    const empty = renderMarkdown({ header: { ...header, title: "  " }, entries: [] });
    expect(empty.startsWith("# Untitled session\n")).toBe(true);
    expect(empty).toContain(`- **Updated:** ${header.created_at}`);
    expect(empty.endsWith("\n")).toBe(true);
  });

  test("a failed run lists its errors; a dropped compaction says so", () => {
    const failed = renderMarkdown({
      header,
      entries: [
        {
          ...(entries[3] as Extract<SessionEntry, { type: "compaction" }>),
          method: "dropped",
          trigger: "overflow",
        },
        {
          ...(entries[6] as Extract<SessionEntry, { type: "run_end" }>),
          subtype: "error_max_turns",
          num_turns: 1,
          total_cost_usd: null,
          errors: ["max turns (1) reached"],
        },
      ],
    });
    expect(failed).toContain("Compacted here (overflow): oldest messages dropped of #0–#1");
    expect(failed).toContain(
      "*Run end: error_max_turns · 1 turn · 1,200 in / 300 out tokens — max turns (1) reached*",
    );
  });
});

describe("helpers", () => {
  test("fenceFor outgrows the longest backtick run", () => {
    expect(fenceFor("plain")).toBe("```");
    expect(fenceFor("a ``` b")).toBe("````");
    expect(fenceFor("`````")).toBe("``````");
  });

  test("transcriptTotals sums message usage, cache reads and writes counted as input", () => {
    expect(transcriptTotals(transcript)).toEqual({
      messages: 4,
      input_tokens: 2000,
      output_tokens: 400,
      updated_at: at(6),
    });
  });
});
