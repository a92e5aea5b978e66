import { describe, expect, test } from "bun:test";
import { osc52 } from "../../src/chat/clipboard.ts";
import { resumeView } from "../../src/chat/resume-view.ts";
import { lastAnswer } from "../../src/chat/slash-copy.ts";
import type { CompactionEntry, SessionEntry } from "../../src/history/schema.ts";
import { modelView } from "../../src/history/view.ts";
import type { Message } from "../../src/providers/types.ts";
import { createStyle } from "../../src/ui/style.ts";

const plain = createStyle(false);
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const answer = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const call = (id: string, name: string, input: Record<string, unknown>): Message => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name, input }],
});
const result = (id: string): Message => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "ok", is_error: false }],
});

function entries(
  messages: Message[],
  compaction?: Omit<CompactionEntry, "n" | "at" | "type">,
): SessionEntry[] {
  const at = "2026-01-01T00:00:00.000Z";
  const list: SessionEntry[] = messages.map((message, n) => ({ type: "message", n, at, message }));
  if (compaction) list.push({ type: "compaction", n: messages.length, at, ...compaction });
  return list;
}

describe("resume view", () => {
  test("the last three exchanges: prompts, answer starts, one line per tool call; earlier ones counted", () => {
    const view = modelView(
      entries([
        user("zero"),
        answer("A0"),
        user("one\nmore lines"),
        answer("\n\nA1 first line\nA1 second"),
        user("two"),
        call("c1", "bash", { command: "ls -la" }),
        result("c1"),
        answer("A2"),
        user("three"),
        answer("A3"),
      ]),
    );
    expect(resumeView(view, plain, undefined)).toEqual([
      "… 2 earlier messages",
      "> one …",
      "  A1 first line …",
      "> two",
      "  ● bash  ls -la",
      "  A2",
      "> three",
      "  A3",
    ]);
  });

  test("many steps fold into a count; lines are cut to the width; escapes and controls cannot pass", () => {
    const steps = [1, 2, 3, 4, 5].map((i) => call(`c${i}`, "read_file", { path: `f${i}.ts` }));
    const view = modelView(
      entries([
        user("go \x1b]52;c;ZXZpbA==\x07now"),
        ...steps.flatMap((s, i) => [s, result(`c${i + 1}`)]),
        answer(`done ${"x".repeat(200)}`),
      ]),
    );
    const lines = resumeView(view, plain, 40);
    expect(lines).toEqual([
      "> go now",
      "  … 3 earlier lines",
      "  ● read_file  f4.ts",
      "  ● read_file  f5.ts",
      `  done ${"x".repeat(31)}…`,
    ]);
    expect(lines.every((l) => Bun.stringWidth(l) <= 39)).toBe(true);
    expect(resumeView(view, createStyle(true), 40)[0]).toBe("\x1b[2m> go now\x1b[22m");
  });

  test("after a compaction the summary is not shown as a prompt; no prompt yet shows nothing", () => {
    const compacted = modelView(
      entries([user("old"), answer("old answer"), user("new"), answer("new answer")], {
        trigger: "manual",
        summary: "they talked",
        first_kept: 2,
        tokens_before: 100,
        tokens_after: 10,
        method: "summary",
      }),
    );
    expect(resumeView(compacted, plain, undefined)).toEqual([
      "… earlier messages compacted into a summary",
      "> new",
      "  new answer",
    ]);
    expect(resumeView(modelView([]), plain, 80)).toEqual([]);
  });
});

describe("/copy", () => {
  test("the last answer is the last assistant text, tool steps skipped", () => {
    expect(
      lastAnswer([user("q"), answer("first"), user("q2"), answer("second"), call("c", "bash", {})]),
    ).toBe("second");
    expect(lastAnswer([user("q")])).toBeUndefined();
  });

  test("OSC 52 carries the text base64-encoded, BEL-terminated", () => {
    expect(osc52("héllo")).toBe(`\x1b]52;c;${Buffer.from("héllo").toString("base64")}\x07`);
  });
});
