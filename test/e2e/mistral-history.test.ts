/**
 * End to end: sessions continued on Mistral against the strict endpoint (test/support/strict-mistral.ts),
 * which answers as Mistral's API does — after a switch from a wire whose tool-call ids Mistral rejects,
 * and after a run stopped between the tool results and the next prompt (by --max-turns, or by Ctrl+C
 * while a tool runs).
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { zstdDecode } from "../history/support/fixtures.ts";
import { collect, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { ResultSchema } from "../support/output-schemas.ts";
import { strictMistralReply } from "../support/strict-mistral.ts";
import type { Wire } from "../support/wire-scripts.ts";

const KEY = "sk-test-mistral-history-00000000000042";
const MISTRAL = "mistral/mistral-small-latest";
const { server, env } = useOpenAIServer(KEY, (url) => ({
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: KEY,
  MISTRAL_BASE_URL: url,
  MISTRAL_API_KEY: KEY,
}));

interface SentMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
}
const sentMessages = (from: number) =>
  server.requests.slice(from).map((r) => (r.body as { messages: SentMessage[] }).messages);

async function runJson(box: Sandbox, args: string[]) {
  const run = await box.run(["run", ...args, "-o", "json"], { env });
  return { ...run, result: ResultSchema.parse(JSON.parse(run.stdout)) };
}

function sessionText(box: Sandbox, id: string): string {
  return zstdDecode(join(box.dataDir, "sessions", `${id}.jsonl.zst`));
}

const SWITCHES: { wire: Wire; model: string; id: string }[] = [
  { wire: "openai", model: "openai/gpt-4o-mini", id: "call_Xq1v8m2LpZ0aT9bC4dE6fG7h" },
  { wire: "anthropic", model: "anthropic/claude-sonnet-4-5", id: "toolu_01A09q90qw90lq917835lq9" },
];

describe.each(SWITCHES)("a session started on $model continued on Mistral", ({ wire, model, id }) => {
  test("a tool loop there: every request valid, exit 0; the session keeps the original id", async () => {
    using box = new Sandbox();
    await Bun.write(join(box.workspace, "notes.txt"), "hello\n");
    server.enqueueReply(wire, { toolCalls: [{ id, name: "list_files", input: { path: "." } }] });
    server.enqueueReply(wire, { text: "There is notes.txt." });
    const first = await runJson(box, ["-m", model, "list the files"]);
    expect([first.code, first.stderr]).toEqual([0, ""]);

    const rejected: string[] = [];
    server.enqueue(
      strictMistralReply({ toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] }, rejected),
      strictMistralReply({ text: "It says hello." }, rejected),
    );
    const from = server.requests.length;
    const second = await runJson(box, ["-c", "-m", MISTRAL, "read it"]);
    expect(rejected).toEqual([]);
    expect([second.code, second.stderr]).toEqual([0, ""]);
    expect(second.result).toMatchObject({ subtype: "success", result: "It says hello.", num_turns: 2 });

    const [opening, afterTool] = sentMessages(from);
    // The earlier call went out under a Mistral-form id, the same for the call and its result, and the
    // same in both requests (a stable prefix for prompt caching).
    const mapped = opening!.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    expect(mapped).toHaveLength(1);
    expect(mapped[0]).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(opening!.find((m) => m.role === "tool")?.tool_call_id).toBe(mapped[0]);
    expect(JSON.stringify(afterTool!.slice(0, opening!.length))).toBe(JSON.stringify(opening));
    expect(JSON.stringify(server.requests.slice(from).map((r) => r.body))).not.toContain(id);
    expect(sessionText(box, second.result.session_id)).toContain(id);
  });
});

describe("a Mistral session stopped by --max-turns during a tool loop", () => {
  test("-c with a new prompt: valid, exit 0; the inserted assistant turn is not saved", async () => {
    using box = new Sandbox();
    const rejected: string[] = [];
    server.enqueue(
      strictMistralReply({ toolCalls: [{ name: "list_files", input: { path: "." } }] }, rejected),
    );
    const first = await runJson(box, ["-m", MISTRAL, "--max-turns", "1", "list the files"]);
    expect(first.code).toBe(3);
    expect(first.result.subtype).toBe("error_max_turns");

    server.enqueue(strictMistralReply({ text: "Carrying on." }, rejected));
    const from = server.requests.length;
    const second = await runJson(box, ["-c", "-m", MISTRAL, "go on"]);
    expect(rejected).toEqual([]);
    expect([second.code, second.stderr]).toEqual([0, ""]);
    expect(second.result).toMatchObject({ subtype: "success", result: "Carrying on." });
    const [sent] = sentMessages(from);
    expect(sent!.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(sent![4]).toMatchObject({ role: "assistant", content: "(interrupted)" });

    const saved = sessionText(box, second.result.session_id);
    expect(saved).toContain("go on");
    expect(saved).not.toContain("(interrupted)");
  });
});

describe("a Mistral session interrupted during a tool call", () => {
  test("SIGINT while bash runs, then -c with a new prompt: valid, exit 0; the session keeps no extra turn", async () => {
    using box = new Sandbox();
    const started = join(box.workspace, "started");
    const rejected: string[] = [];
    server.enqueue(
      strictMistralReply(
        { toolCalls: [{ name: "bash", input: { command: "touch started; sleep 30" } }] },
        rejected,
      ),
    );
    const ion = box.spawn(["run", "-m", MISTRAL, "-y", "-o", "json", "run the slow job"], { env });
    const output = collect(ion);
    const deadline = Date.now() + 10_000;
    while (!existsSync(started) && Date.now() < deadline) await Bun.sleep(20);
    expect(existsSync(started)).toBe(true);
    ion.kill("SIGINT");
    const first = await output;
    expect(first.code).toBe(2);
    expect(ResultSchema.parse(JSON.parse(first.stdout)).subtype).toBe("error_interrupted");

    server.enqueue(strictMistralReply({ text: "Carrying on." }, rejected));
    const from = server.requests.length;
    const second = await runJson(box, ["-c", "-m", MISTRAL, "go on"]);
    expect(rejected).toEqual([]);
    expect([second.code, second.stderr]).toEqual([0, ""]);
    expect(second.result).toMatchObject({ subtype: "success", result: "Carrying on." });
    const [sent] = sentMessages(from);
    expect(sent!.slice(-3).map((m) => m.role)).toEqual(["tool", "assistant", "user"]);
    expect(sent!.at(-2)).toMatchObject({ role: "assistant", content: "(interrupted)" });
    expect(sessionText(box, second.result.session_id)).not.toContain("(interrupted)");
  }, 30_000);
});
