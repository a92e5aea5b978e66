/**
 * End to end: `ion run` with thinking on the Anthropic wire, doing a tool loop against a strict endpoint
 * that refuses what the real API refuses (see test/support/strict-anthropic.ts for the quoted rules).
 *
 * Anthropic, "Troubleshooting thinking": "Claude Opus 4.7, Claude Opus 4.8, Claude Sonnet 5, Claude Fable
 * 5, and Claude Mythos 5 do not support [extended thinking] and reject requests that use it, returning a
 * 400 error." Extended thinking, on Claude 3.7 Sonnet: "redacted_thinking blocks are decrypted when passed
 * back to the API, allowing Claude to continue its response without losing context."
 */
import { describe, expect, test } from "bun:test";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { warmCatalog } from "../support/e2e.ts";
import { parseStreamJson, ResultSchema } from "../support/output-schemas.ts";
import { useFakeLLM } from "../support/stream-helpers.ts";
import { serveStrict, strictAnthropic } from "../support/strict-anthropic.ts";

const KEY = "test-key-anthropic-thinking";
const server = useFakeLLM();
const env = () => ({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY });

type Wire = { role: string; content: { type: string; [key: string]: unknown }[] };
const messagesOf = (i: number) => (server.requests[i]!.body as { messages: Wire[] }).messages;

async function notesBox(): Promise<Sandbox> {
  const box = new Sandbox();
  await Bun.write(`${box.workspace}/notes.txt`, "hello from notes\n");
  return box;
}

describe("a tool loop with --thinking", () => {
  test("medium on claude-opus-4-7: adaptive effort medium, the signed thinking sent back, exit 0", async () => {
    using box = await notesBox();
    const strict = strictAnthropic();
    strict.reply({
      thinking: "I will read notes.txt.",
      toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }],
    });
    strict.reply({ text: "It says hello." });
    const before = server.requests.length;
    serveStrict(server, strict, 2);
    const run = await box.run(
      [
        "run",
        "-m",
        "anthropic/claude-opus-4-7",
        "--thinking",
        "medium",
        "-o",
        "json",
        "What is in notes.txt?",
      ],
      { env: env() },
    );
    expect(run.code).toBe(0);
    expect(strict.verdicts).toEqual([null, null]);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).result).toBe("It says hello.");
    for (const request of server.requests.slice(before)) {
      expect(request.body).toMatchObject({
        thinking: { type: "adaptive" },
        output_config: { effort: "medium" },
      });
    }
    expect(messagesOf(before + 1)[1]?.content.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
    expect(run.stderr).toContain(
      "medium thinking sent to anthropic/claude-opus-4-7 as adaptive thinking at effort medium",
    );
    // Said once a session, though both requests were mapped.
    expect(run.stderr.split("adaptive thinking at effort").length).toBe(2);
  });

  test("claude-3-7-sonnet's redacted_thinking goes back in the loop and shows as Claude Code shows it", async () => {
    using box = await notesBox();
    const strict = strictAnthropic();
    const data = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP";
    strict.reply({
      redacted: [data],
      thinking: "Reading it.",
      toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }],
    });
    strict.reply({ text: "It says hello." });
    const before = server.requests.length;
    serveStrict(server, strict, 2);
    const run = await box.run(
      [
        "run",
        "-m",
        "anthropic/claude-3-7-sonnet-20250219",
        "--thinking",
        "low",
        "-o",
        "stream-json",
        "What is in notes.txt?",
      ],
      { env: env() },
    );
    expect(run.code).toBe(0);
    expect(strict.verdicts).toEqual([null, null]);
    expect(server.requests[before]?.body).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
    expect(messagesOf(before + 1)[1]?.content[0]).toEqual({ type: "redacted_thinking", data });
    const { middle } = parseStreamJson(jsonLines(run.stdout));
    const first = middle.find((l) => l.type === "assistant");
    const content = first && "message" in first ? first.message.content : [];
    expect(content.map((b) => b.type)).toEqual(["redacted_thinking", "thinking", "tool_use"]);
    expect(content[0]).toEqual({ type: "redacted_thinking", data });
  });
});

describe("a model that does not reason", () => {
  test("with a warmed catalogue, claude-3-5-sonnet (no reasoning) is sent no thinking, and the user is told", async () => {
    using box = new Sandbox();
    const catalogEnv = { ...env(), ION_MODELS_URL: `${server.url}/api.json` };
    await warmCatalog(server, box, catalogEnv, ["claude-3-5-sonnet-20241022"]);
    const strict = strictAnthropic();
    strict.reply({ text: "Hi." });
    const before = server.requests.length;
    serveStrict(server, strict, 1);
    const run = await box.run(
      ["run", "-m", "anthropic/claude-3-5-sonnet-20241022", "--thinking", "high", "-o", "json", "hi"],
      { env: catalogEnv },
    );
    expect(run.code).toBe(0);
    expect(server.requests[before]?.body).not.toHaveProperty("thinking");
    expect(run.stderr).toContain(
      "thinking is off for anthropic/claude-3-5-sonnet-20241022: the model does not reason",
    );
  });
});
