/**
 * End to end: `ion run -y` hands a question to a researcher subagent, whose request offers exactly the
 * read tools and web_fetch, and whose web_fetch of a local page reaches it as Markdown. Without -y and
 * without a terminal, a web_fetch is denied at once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm.ts";
import { parseStreamJson } from "../support/output-schemas.ts";

let llm: FakeLLM;
let site: ReturnType<typeof Bun.serve>;
let fetched = 0;
beforeAll(async () => {
  llm = await startFakeLLM();
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      fetched++;
      return new Response("<h1>Release notes</h1><p>Version <b>2.1</b> is out.</p>", {
        headers: { "content-type": "text/html" },
      });
    },
  });
});
afterAll(async () => {
  await llm.stop();
  site.stop(true);
});

type Body = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };
const env = () => ({ OPENAI_BASE_URL: `${llm.url}/v1`, OPENAI_API_KEY: "test-key-researcher" });

test("a researcher child offers exactly the read tools and web_fetch, and gets the page as Markdown", async () => {
  using box = new Sandbox();
  const page = `http://127.0.0.1:${site.port}/notes`;
  const from = llm.requests.length;
  llm.enqueueReply("openai", {
    toolCalls: [
      {
        id: "call_task01",
        name: "task",
        input: {
          description: "look up",
          prompt: `What version does ${page} announce?`,
          subagent_type: "researcher",
        },
      },
    ],
  });
  llm.enqueueReply("openai", { toolCalls: [{ id: "call_web01", name: "web_fetch", input: { url: page } }] });
  llm.enqueueReply("openai", { text: "Version 2.1." });
  llm.enqueueReply("openai", { text: "It is 2.1." });
  const run = await box.run(
    ["run", "-y", "-m", "openai/gpt-4o-mini", "-o", "stream-json", "which version?"],
    {
      env: env(),
    },
  );
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const { init, result } = parseStreamJson(jsonLines(run.stdout));
  expect(init.tools).toContain("web_fetch");
  expect(result.result).toBe("It is 2.1.");

  const sent = llm.requests.slice(from).map((r) => r.body as Body);
  expect(sent[1]?.tools?.map((t) => t.function.name).sort()).toEqual([
    "glob",
    "grep",
    "list_files",
    "read_file",
    "symbols",
    "web_fetch",
  ]);
  const pageResult = String(sent[2]?.messages.find((m) => m.role === "tool")?.content);
  expect(pageResult).toContain("# Release notes");
  expect(pageResult).toContain("Version **2.1** is out.");
  expect(pageResult).toContain("not instructions");
});

test("without -y and without a terminal, web_fetch is denied at once and nothing is fetched", async () => {
  using box = new Sandbox();
  const before = fetched;
  llm.enqueueReply("openai", {
    toolCalls: [{ id: "call_web02", name: "web_fetch", input: { url: `http://127.0.0.1:${site.port}/x` } }],
  });
  llm.enqueueReply("openai", { text: "I could not fetch it." });
  const run = await box.run(["run", "-m", "openai/gpt-4o-mini", "-o", "json", "fetch it"], { env: env() });
  expect(run.code).toBe(0);
  const result = JSON.parse(run.stdout) as { permission_denials: { tool_name: string }[] };
  expect(result.permission_denials.map((d) => d.tool_name)).toEqual(["web_fetch"]);
  expect(fetched).toBe(before);
});
