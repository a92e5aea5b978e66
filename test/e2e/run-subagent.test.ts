/**
 * End to end: `ion run -o stream-json` with a parent that hands a search to an explorer subagent — the
 * child's lines carry `parent_tool_use_id`, its request has only read tools, its answer is the
 * parent's tool result, and its tokens are in the run's result.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm.ts";
import { parseStreamJson } from "../support/output-schemas.ts";

let server: FakeLLM;
beforeAll(async () => {
  server = await startFakeLLM();
});
afterAll(async () => {
  await server.stop();
});

type Body = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };

test("a task call runs a child whose lines carry parent_tool_use_id and whose tokens reach the result", async () => {
  using box = new Sandbox();
  writeFileSync(join(box.workspace, "notes.txt"), "the answer is 42\n");
  const from = server.requests.length;
  server.enqueueReply("openai", {
    toolCalls: [
      { id: "call_task01", name: "task", input: { description: "look", prompt: "Read notes.txt" } },
    ],
    usage: { input: 100, output: 10 },
  });
  server.enqueueReply("openai", {
    toolCalls: [{ id: "call_read01", name: "read_file", input: { path: "notes.txt" } }],
    usage: { input: 1000, output: 20 },
  });
  server.enqueueReply("openai", { text: "It says 42.", usage: { input: 2000, output: 30 } });
  server.enqueueReply("openai", { text: "Done: 42.", usage: { input: 200, output: 5 } });
  const run = await box.run(["run", "-m", "openai/gpt-4o-mini", "-o", "stream-json", "find the answer"], {
    env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "test-key-subagent" },
  });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const lines = jsonLines(run.stdout);
  const { init, result } = parseStreamJson(lines);
  expect(init.tools).toContain("task");
  const child = lines.filter((l) => l.parent_tool_use_id === "call_task01");
  expect(child.map((l) => l.type)).toEqual(["assistant", "user", "assistant"]);
  expect(lines.filter((l) => l.type === "system" && l.subtype === "init")).toHaveLength(1);
  expect(result.result).toBe("Done: 42.");
  expect(result.usage.input_tokens).toBe(3300);

  const sent = server.requests.slice(from).map((r) => r.body as Body);
  expect(sent[1]?.tools?.map((t) => t.function.name).sort()).toEqual([
    "glob",
    "grep",
    "list_files",
    "read_file",
    "symbols",
  ]);
  const toolResult = sent[3]?.messages.find((m) => m.role === "tool");
  expect(String(toolResult?.content)).toContain("It says 42.");
  expect(String(toolResult?.content)).toContain("task id: call_task01");

  // The child's conversation is in the session file and shows once (its last save), under its call.
  const shown = await box.run(["sessions", "show", result.session_id ?? ""], { env: { NO_COLOR: "1" } });
  expect(shown.code).toBe(0);
  expect(shown.stdout.match(/── subagent explorer #\d+ for tool call call_task01: look ──/g)).toHaveLength(1);
  const shownChild = shown.stdout.slice(shown.stdout.indexOf("── subagent explorer"));
  expect(shownChild).toContain("    Read notes.txt");
  expect(shownChild).toContain("    ● read_file");
  expect(shownChild).toContain("✓ result of read_file");
  expect(shownChild).toContain("    It says 42.");
  expect(shown.stdout).not.toContain("extension state");
  expect(shown.stdout).toMatch(/── subagent step saved #\d+ \(its conversation is at #\d+\) ──/);
});
