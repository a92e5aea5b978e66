/**
 * End to end on a real terminal (tmux): `/think medium` typed in a chat on gpt-4o is saved as the
 * default, yet gpt-4o — which answers 400 to `reasoning_effort` — is sent none, in this chat and in a
 * later `ion run`, and the chat says so once. The endpoint is strict (test/support/strict-openai.ts):
 * it refuses `reasoning_effort` with OpenAI's `unsupported_parameter` body, as the real API does.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { strictNoReasoning } from "../support/strict-openai.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("chat-think-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-chat-think-tmux-00000000000042");
const NOTE = 'note: openai/gpt-4o does not reason, so the thinking level "medium" is not sent';

const count = (text: string, part: string) => text.split(part).length - 1;

describe.skipIf(!HAS_TMUX)("/think medium on gpt-4o", () => {
  test("saved as the default, never sent to gpt-4o (chat and a later run), said once a session", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: "openai/gpt-4o" });
    const strict = await strictNoReasoning();
    const term = await Terminal.start({ args: ["chat"], env: box.env(env), cwd: box.workspace, cols: 160 });
    await term.waitFor((screen) => screen.endsWith("\n> "), 10_000);

    await term.sendText("/think medium");
    await term.sendKeys("Enter");
    const file = join(box.configDir, "config.json");
    await term.waitFor(`thinking: medium (saved as your default in ${file})`);

    const from = server.requests.length;
    server.enqueue(strict.turn({ text: "First answer." }), strict.turn({ text: "Second answer." }));
    await term.sendText("hello");
    await term.sendKeys("Enter");
    await term.waitFor((screen) => screen.includes("First answer.") && screen.endsWith("> "));
    await term.sendText("again");
    await term.sendKeys("Enter");
    const screen = await term.waitFor((s) => s.includes("Second answer.") && s.endsWith("> "));
    expect(strict.violations).toEqual([]);
    expect(count(screen, NOTE)).toBe(1);
    const sent = server.requests.slice(from).map((r) => r.body as Record<string, unknown>);
    expect(sent).toHaveLength(2);
    expect(sent.map((body) => "reasoning_effort" in body)).toEqual([false, false]);

    // The saved level reaches the next run too, and is not sent there either.
    server.enqueue(strict.turn({ text: "Run answer." }));
    const run = await box.run(["run", "hi"], { env });
    expect(strict.violations).toEqual([]);
    expect([run.code, run.stdout]).toEqual([0, "Run answer.\n"]);
    expect(count(run.stderr, NOTE)).toBe(1);
  });
});
