/**
 * End to end, in a real terminal (tmux): the chat prints the plan as a checklist under the plan call
 * each time the model changes it. The sandbox and key are the test's own; waits poll the screen.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { KeyedReplies } from "../support/keyed-replies.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";
import { type ScriptedReply, streamReply } from "../support/wire-scripts.ts";

if (!HAS_TMUX) console.warn("chat-plan-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env: serverEnv } = useOpenAIServer("sk-test-chat-plan-tmux-unused");
const replies = new KeyedReplies(server);
const KEY = `sk-test-chat-plan-tmux-${process.pid}`;
const atPrompt = (screen: string) => /\n(\[\w+\] )?> $/.test(screen);
/** tmux keeps written spaces at the end of a row, which no one sees. */
const visible = (screen: string) => screen.replace(/ +$/gm, "");

describe.skipIf(!HAS_TMUX)("the plan in a terminal chat", () => {
  test("the checklist appears under the plan call, and again with the new marks when it changes", async () => {
    using box = new Sandbox();
    replies.open(KEY);
    try {
      await box.writeConfig({ model: "openai/gpt-4o-mini" });
      const reply = (r: ScriptedReply) => replies.push(KEY, streamReply("openai", r));
      const plan = (items: { content: string; status: string }[]) =>
        reply({ toolCalls: [{ name: "plan", input: { items } }] });
      plan([
        { content: "read the config", status: "in_progress" },
        { content: "fix the parser", status: "pending" },
      ]);
      plan([
        { content: "read the config", status: "completed" },
        { content: "fix the parser", status: "in_progress" },
      ]);
      reply({ text: "Parser next." });
      const term = await Terminal.start({
        args: ["chat"],
        env: box.env({ ...serverEnv, OPENAI_API_KEY: KEY }),
        cwd: box.workspace,
        cols: 100,
        rows: 30,
      });
      await term.waitFor(atPrompt, 10_000);
      await term.sendText("fix the parser");
      await term.sendKeys("Enter");
      const screen = visible(await term.waitFor((s) => s.includes("Parser next.") && atPrompt(s), 10_000));
      const lines = screen.split("\n").map((line) => line.trim());
      const first = lines.indexOf("◐ read the config");
      expect(first).toBeGreaterThan(0);
      expect(lines[first + 1]).toBe("☐ fix the parser");
      const second = lines.indexOf("☑ read the config");
      expect(second).toBeGreaterThan(first);
      expect(lines[second + 1]).toBe("◐ fix the parser");
      expect(lines.indexOf("Parser next.")).toBeGreaterThan(second);
    } finally {
      replies.close(KEY);
    }
  });
});
