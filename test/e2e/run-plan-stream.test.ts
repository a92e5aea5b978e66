/**
 * End to end: plan updates in `ion run -o stream-json` — the model's `plan` call is an assistant
 * tool_use line carrying the whole list (as Claude Code's TodoWrite carries its `todos`), and its
 * tool_result is the user line after it; the next request carries the updated plan.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
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

type Block = {
  type: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
};
type Line = { type: string; message?: { content?: Block[] } };

const first = [
  { content: "read the config", status: "in_progress" },
  { content: "fix the parser", status: "pending" },
];
const second = [
  { content: "read the config", status: "completed" },
  { content: "fix the parser", status: "in_progress" },
];

test("each plan update is a tool_use line with the items and a tool_result line", async () => {
  using box = new Sandbox();
  const from = server.requests.length;
  server.enqueueReply("openai", { toolCalls: [{ id: "call_plan1", name: "plan", input: { items: first } }] });
  server.enqueueReply("openai", {
    toolCalls: [{ id: "call_plan2", name: "plan", input: { items: second } }],
  });
  server.enqueueReply("openai", { text: "Parser next." });
  const run = await box.run(["run", "-m", "openai/gpt-4o-mini", "-o", "stream-json", "fix the parser"], {
    env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "test-key-plan-stream" },
  });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const lines = jsonLines(run.stdout);
  const { init, result } = parseStreamJson(lines);
  expect(init.tools).toContain("plan");
  expect(result.result).toBe("Parser next.");

  const blocks = (lines as Line[]).flatMap((line) =>
    (line.message?.content ?? []).map((block) => ({ line: line.type, ...block })),
  );
  const uses = blocks.filter((b) => b.type === "tool_use" && b.name === "plan");
  expect(uses).toEqual([
    { line: "assistant", type: "tool_use", id: "call_plan1", name: "plan", input: { items: first } },
    { line: "assistant", type: "tool_use", id: "call_plan2", name: "plan", input: { items: second } },
  ]);
  const results = blocks.filter((b) => b.type === "tool_result");
  expect(results.map((b) => [b.line, b.tool_use_id, JSON.stringify(b.content)])).toEqual([
    ["user", "call_plan1", expect.stringContaining("Plan updated (0/2 completed).")],
    ["user", "call_plan2", expect.stringContaining("Plan updated (1/2 completed).")],
  ]);
  // Each result line comes right after its call's line.
  const order = blocks.filter((b) => b.type === "tool_use" || b.type === "tool_result").map((b) => b.line);
  expect(order).toEqual(["assistant", "user", "assistant", "user"]);

  const last = JSON.stringify(server.requests[from + 2]?.body);
  expect(last).toContain("[in_progress] fix the parser");
  expect(last).toContain("[completed] read the config");
});

test("plan.auto: the designer's request first, its lines a child's, its plan in the main request", async () => {
  using box = new Sandbox();
  await box.writeConfig({ plan: { auto: true } });
  const from = server.requests.length;
  server.enqueueReply("openai", {
    text: "- read the loader\n- change the order",
    usage: { input: 300, output: 20 },
  });
  server.enqueueReply("openai", { text: "Done.", usage: { input: 500, output: 5 } });
  const prompt =
    "Refactor the config loader so that project files are read after the user file, and keep every existing test green.";
  const run = await box.run(["run", "-m", "openai/gpt-4o-mini", "-o", "stream-json", prompt], {
    env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "test-key-plan-stream" },
  });
  expect(run.code).toBe(0);
  expect(run.stderr).toBe("ion: plan.auto: the designer plans this first (one extra request)\n");
  const lines = jsonLines(run.stdout);
  const { result } = parseStreamJson(lines);
  expect(result.result).toBe("Done.");
  expect(result.usage.input_tokens).toBe(800);
  const parents = lines.filter((l) => l.type === "assistant").map((l) => l.parent_tool_use_id);
  expect(parents).toEqual([expect.stringMatching(/^before_turn_/), null]);
  expect(server.requests.length - from).toBe(2);
  expect(JSON.stringify(server.requests[from]?.body)).toContain("You are a subagent (designer)");
  expect(JSON.stringify(server.requests[from + 1]?.body)).toContain("[pending] change the order");
});
