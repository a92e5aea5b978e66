/**
 * End to end: the small words of `sessions list`, `sessions show` and the chat's resume line. One
 * message is "1 message"; a CJK title (two columns a character) keeps the table aligned; `show`
 * numbers every entry, run ends included, so the message numbers never seem to skip.
 */
import { describe, expect, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const { server, env } = useOpenAIServer("sk-test-sessions-words-unused");
const MODEL = ["-m", "openai/gpt-4o-mini"];

async function latestId(box: Sandbox): Promise<string> {
  const list = await box.run(["sessions", "list", "--json"], { env });
  return (JSON.parse(list.stdout) as { id: string }[])[0]!.id;
}

describe("sessions in words", () => {
  test("a session of one message says 1 message, in show and in the chat's resume line", async () => {
    using box = new Sandbox();
    server.enqueue({
      status: 400,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ error: { message: "bad request", type: "invalid_request_error" } }),
      pathSuffix: "/chat/completions",
    });
    const failed = await box.run(["run", ...MODEL, "hello there"], { env });
    expect(failed.code).not.toBe(0);
    const show = await box.run(["sessions", "show", await latestId(box)], { env });
    expect(show.stdout).toMatch(/^1 message · /m);
    const chat = await box.run(["chat", ...MODEL], { env, stdin: "/quit\n" });
    expect(chat.code).toBe(0);
    expect(chat.stderr).toContain("(1 message)");
    expect(chat.stderr).not.toContain("1 messages");
  });

  test("show numbers every entry: no number is skipped", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "Hello." });
    expect((await box.run(["run", ...MODEL, "hi"], { env })).code).toBe(0);
    server.enqueueReply("openai", { toolCalls: [{ name: "read_file", input: { path: "x" } }] });
    server.enqueueReply("openai", { text: "No such file." });
    expect((await box.run(["run", ...MODEL, "-c", "read x"], { env })).code).toBe(0);
    const show = await box.run(["sessions", "show", await latestId(box)], { env });
    const numbers = [...show.stdout.matchAll(/^── .*?#(\d+)\b/gm)].map((m) => Number(m[1]));
    expect(numbers).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(show.stdout).toMatch(/^── run end #2: success · 1 turn/m);
  });

  test("sessions list aligns CJK titles by display width", async () => {
    using box = new Sandbox();
    for (const prompt of ["修复解析器的错误", "fix the parser"]) {
      server.enqueueReply("openai", { text: "OK." });
      expect((await box.run(["run", ...MODEL, prompt], { env })).code).toBe(0);
    }
    const list = await box.run(["sessions", "list"], { env });
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(list.stdout).toContain("修复解析器的错误");
    // The last column is right-aligned: every row ends at the same display column.
    expect(new Set(lines.map((line) => Bun.stringWidth(line))).size).toBe(1);
  });
});
