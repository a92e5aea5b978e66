/**
 * End to end, in a real terminal (tmux): `ion run`'s answer and its stderr progress share the screen.
 * A tool line after streamed text starts on a line of its own, and a request retried three times
 * quotes the server's message once, then only counts. Waits poll the screen, never sleep.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";
import { streamReply } from "../support/wire-scripts.ts";

if (!HAS_TMUX) console.warn("run-progress-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-run-progress-tmux-unused");
const CHAT = "/chat/completions";

async function start(box: Sandbox, args: string[]): Promise<Terminal> {
  await box.writeConfig({ model: "openai/gpt-4o-mini" });
  return Terminal.start({ args, env: box.env(env), cwd: box.workspace, cols: 100, rows: 30 });
}

/** tmux keeps written spaces at the end of a row, which no one can see. */
const visible = (screen: string) => screen.replace(/ +$/gm, "");

describe.skipIf(!HAS_TMUX)("ion run on a terminal", () => {
  test("a tool line after streamed text starts on a new line", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      text: "Let me look.",
      toolCalls: [{ name: "bash", input: { command: "echo hi" } }],
    });
    server.enqueueReply("openai", { text: "Found it." });
    const term = await start(box, ["run", "-y", "look"]);
    expect(await term.waitForExit(15_000)).toBe(0);
    const screen = visible(await term.capture());
    expect(screen).toMatch(/Let me look\.\n● bash {2}echo hi\n {2}✓ \d+\.\ds\nFound it\.\n/);
  });

  test("three retries quote the server's message once, then count", async () => {
    using box = new Sandbox();
    const message =
      "Rate limit reached for gpt-4o-mini.\nLimit 3 requests per minute.\nPlease try again later.";
    const limited = {
      status: 429,
      headers: { "content-type": "application/json", "retry-after-ms": "50" },
      body: JSON.stringify({ error: { message, type: "requests", code: "rate_limit_exceeded" } }),
      pathSuffix: CHAT,
    };
    server.enqueue(limited, limited, limited);
    server.enqueueReply("openai", { text: "Finally." });
    const term = await start(box, ["run", "hi"]);
    expect(await term.waitForExit(15_000)).toBe(0);
    const screen = visible(await term.capture());
    expect(screen.match(/rate limited from openai/g)).toHaveLength(1);
    expect(screen.match(/Please try again later/g)).toHaveLength(1);
    expect(screen).toMatch(/retrying in \d+\.\ds \(1\/3\): rate limited from openai: Rate limit reached/);
    expect(screen).toMatch(/\nretry 2\/3 in \d+\.\ds\nretry 3\/3 in \d+\.\ds\n/);
    expect(screen).toContain("Finally.");
  });

  test("one Ctrl+C while the answer streams ends the run: interrupted, exit 2", async () => {
    using box = new Sandbox();
    server.enqueue({
      ...streamReply("openai", { text: `${"and more ".repeat(40)}the end` }),
      chunkDelayMs: 150,
    });
    const term = await start(box, ["run", "slow please"]);
    await term.waitFor("and more", 10_000);
    await term.sendKeys("C-c");
    expect(await term.waitForExit(5_000)).toBe(2);
    const screen = visible(await term.capture());
    expect(screen).toContain("interrupted");
    expect(screen).not.toContain("the end");
  });

  test("Ctrl+C at an approval question ends the run: the tool does not run, exit 2", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { toolCalls: [{ name: "bash", input: { command: "touch ran.txt" } }] });
    server.enqueueReply("openai", { text: "should not be asked for" });
    const term = await start(box, ["run", "make a file"]);
    await term.waitFor("[y]es / [n]o / [a]lways", 10_000);
    await term.sendKeys("C-c");
    expect(await term.waitForExit(5_000)).toBe(2);
    expect(await Bun.file(`${box.workspace}/ran.txt`).exists()).toBe(false);
  });
});
