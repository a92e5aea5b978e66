/**
 * End to end: the plan in a piped chat — the checklist printed when the model changes the plan (on
 * stderr, plain, no escape codes), `/plan` showing it, and the plan back after `-c`.
 */
import { describe, expect, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const KEY = "sk-test-chat-plan-0000000000000000042";
const { server, env } = useOpenAIServer(KEY);

const items = [
  { content: "read the config", status: "completed" },
  { content: "fix the parser", status: "in_progress" },
  { content: "run the tests", status: "pending" },
];

describe("the plan in a chat", () => {
  test("printed as a checklist when it changes, shown by /plan, and back after -c", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: "openai/gpt-4o-mini" });
    server.enqueueReply("openai", { toolCalls: [{ id: "call_1", name: "plan", input: { items } }] });
    server.enqueueReply("openai", { text: "On it." });
    const run = await box.run(["chat"], { env, stdin: "fix the parser\n/plan\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("On it.\n");
    expect(run.stdout + run.stderr).not.toContain("\x1b");
    const checklist = ["☑ read the config", "◐ fix the parser", "☐ run the tests"];
    const lines = run.stderr.split("\n").map((line) => line.trim());
    // Once under the tool's line, once more for /plan.
    for (const item of checklist) expect(lines.filter((line) => line === item)).toHaveLength(2);

    const before = server.requests.length;
    server.enqueueReply("openai", { text: "Continuing." });
    const again = await box.run(["chat", "-c"], { env, stdin: "/plan\ngo on\n" });
    expect(again.code).toBe(0);
    const shown = again.stderr.split("\n").map((line) => line.trim());
    for (const item of checklist) expect(shown).toContain(item);
    const body = JSON.stringify(server.requests[before]?.body);
    expect(body).toContain("[in_progress] fix the parser");
  });
});
