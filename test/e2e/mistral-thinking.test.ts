/**
 * End to end: `ion run` through a tool loop on Mistral with thinking set, against the strict endpoint
 * (test/support/strict-mistral.ts), which refuses `reasoning_effort` where Mistral does — on models
 * without adjustable reasoning, and in values other than "none" and "high".
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { strictMistralReply } from "../support/strict-mistral.ts";

const KEY = "sk-test-mistral-thinking-000000000000042";
const { server, env } = useOpenAIServer(KEY, (url) => ({ MISTRAL_BASE_URL: url, MISTRAL_API_KEY: KEY }));

/** A read_file call, then the answer: two requests, the second with the tool step in its history. */
async function toolLoop(box: Sandbox, args: string[]) {
  await Bun.write(join(box.workspace, "notes.txt"), "hello\n");
  const rejected: string[] = [];
  server.enqueue(
    strictMistralReply({ toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] }, rejected),
    strictMistralReply({ text: "It says hello." }, rejected),
  );
  const from = server.requests.length;
  const run = await box.run(["run", ...args, "-o", "json", "read notes.txt"], { env });
  const sent = server.requests.slice(from).map((r) => r.body as Record<string, unknown>);
  return { run, sent, rejected };
}

describe("a tool loop on Mistral with thinking set", () => {
  test("mistral-large-latest after thinking medium is saved: no reasoning_effort, said once, exit 0", async () => {
    using box = new Sandbox();
    expect((await box.run(["config", "set", "thinking", "medium"], { env })).code).toBe(0);
    const { run, sent, rejected } = await toolLoop(box, ["-m", "mistral/mistral-large-latest"]);
    expect(rejected).toEqual([]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: false, result: "It says hello." });
    expect(sent).toHaveLength(2);
    expect(sent.map((body) => body.reasoning_effort)).toEqual([undefined, undefined]);
    const note =
      'note: mistral/mistral-large-latest does not reason, so the thinking level "medium" is not sent';
    expect(run.stderr.split(note).length - 1).toBe(1);
  });

  test("mistral-small-latest at --thinking medium: sent as high on every request, said once", async () => {
    using box = new Sandbox();
    const { run, sent, rejected } = await toolLoop(box, [
      "-m",
      "mistral/mistral-small-latest",
      "--thinking",
      "medium",
    ]);
    expect(rejected).toEqual([]);
    expect(run.code).toBe(0);
    expect(sent.map((body) => body.reasoning_effort)).toEqual(["high", "high"]);
    const note = 'mistral/mistral-small-latest takes thinking as "high", so "medium" is sent as that';
    expect(run.stderr.split(note).length - 1).toBe(1);
  });
});
