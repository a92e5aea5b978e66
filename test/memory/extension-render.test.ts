/**
 * How the front ends tell that memories were recalled: stream-json one system line
 * (`subtype: "memory_recall"`, count and tokens, the session's id), `run -v` one dim stderr line,
 * the chat one dim line; plain `run` and json print nothing of it.
 */
import { describe, expect, test } from "bun:test";
import type { AgentEvent } from "../../src/agent/events.ts";
import { ChatRenderer } from "../../src/ui/chat-render.ts";
import { createRenderer, type OutputFormat } from "../../src/ui/renderer.ts";
import { createStyle } from "../../src/ui/style.ts";

function collector() {
  const chunks: string[] = [];
  return { writer: { write: (text: string) => void chunks.push(text) }, text: () => chunks.join("") };
}

const INIT: AgentEvent = {
  type: "init",
  session_id: "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
  cwd: "/work",
  provider: "openai",
  model: "gpt-4o-mini",
  tools: [],
  mcp_servers: [],
  skills: [],
  permission_mode: "ask",
  slash_commands: [],
  key_source: "OPENAI_API_KEY",
  context_window: 128000,
};
const RECALL: AgentEvent = { type: "memory_recall", count: 3, tokens: 212 };

async function render(format: OutputFormat, verbose: boolean) {
  const stdout = collector();
  const stderr = collector();
  const renderer = await createRenderer(format, {
    stdout: stdout.writer,
    stderr: stderr.writer,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    quiet: false,
    verbose,
    partial: false,
    color: false,
  });
  for (const event of [INIT, RECALL]) renderer.onEvent(event);
  renderer.close();
  return { out: stdout.text(), err: stderr.text() };
}

describe("memory_recall", () => {
  test("stream-json: one system line after init, with count, tokens, session_id and uuid", async () => {
    const lines = (await render("stream-json", false)).out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ type: "system", subtype: "init" });
    expect(lines[1]).toEqual({
      type: "system",
      subtype: "memory_recall",
      count: 3,
      tokens: 212,
      session_id: "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
      uuid: expect.any(String),
    });
  });

  test("a child agent's recall is not the session's line", async () => {
    const stdout = collector();
    const renderer = await createRenderer("stream-json", {
      stdout: stdout.writer,
      stderr: collector().writer,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      quiet: false,
      verbose: false,
      partial: false,
      color: false,
    });
    renderer.onEvent(INIT);
    renderer.onEvent({ ...RECALL, parent_tool_use_id: "call_1" });
    expect(stdout.text()).not.toContain("memory_recall");
  });

  test("run -v says it on stderr in one line; without -v, and in json, nothing", async () => {
    expect((await render("text", true)).err).toBe("memory: 3 memories recalled (212 tokens)\n");
    expect(await render("text", false)).toEqual({ out: "", err: "" });
    expect((await render("json", true)).out).toBe("");
  });

  test("the chat shows one dim line; a single memory is singular", async () => {
    const out = collector();
    const progress = collector();
    const renderer = new ChatRenderer({
      out: out.writer,
      progress: progress.writer,
      style: createStyle(true),
      color: true,
      interactive: false,
      showThinking: false,
    });
    await renderer.onEvent(INIT);
    await renderer.onEvent({ type: "memory_recall", count: 1, tokens: 40 });
    await renderer.suspend();
    const shown = out.text() + progress.text();
    expect(Bun.stripANSI(shown)).toBe("memory: 1 memory recalled (40 tokens)\n");
    expect(shown).toContain("\x1b[2m");
  });
});
