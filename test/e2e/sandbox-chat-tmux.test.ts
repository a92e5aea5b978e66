/**
 * End to end on a real terminal (tmux): a call that asks to leave the sandbox is asked about — plainly
 * "OUTSIDE the sandbox", with no "always" — even after "always" was given to bash inside it; once
 * allowed it runs unsandboxed. `/sandbox` shows and changes the sandbox for the chat. Waits poll the
 * screen; nothing sleeps for a fixed time.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

const HAS_BWRAP = Bun.which("bwrap") !== null;
if (!HAS_TMUX) console.warn("sandbox-chat-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { env, server } = useOpenAIServer("test-key-sandbox-chat-1");
const MODEL = "openai/gpt-4o-mini";

async function chatIn(box: Sandbox, args: string[] = []): Promise<Terminal> {
  await box.writeConfig({ model: MODEL });
  const term = await Terminal.start({
    args: ["chat", ...args],
    env: box.env(env),
    cwd: box.workspace,
    cols: 160,
  });
  await term.waitFor((screen) => screen.endsWith("\n> ") || screen.endsWith("\n[auto] > "), 10_000);
  return term;
}

describe.skipIf(!HAS_TMUX || !HAS_BWRAP)("leaving the sandbox in a chat", () => {
  test("an earlier 'always' for bash does not cover it: asked OUTSIDE the sandbox, no always; yes runs it outside", async () => {
    using box = new Sandbox("/var/tmp");
    const term = await chatIn(box);
    server.enqueueReply("openai", {
      toolCalls: [{ id: "c1", name: "bash", input: { command: "touch inside.txt" } }],
    });
    server.enqueueReply("openai", {
      toolCalls: [{ id: "c2", name: "bash", input: { command: "touch ~/escalated.txt", sandbox: false } }],
    });
    server.enqueueReply("openai", { text: "Both done." });
    await term.sendText("make the files");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("Allow bash: touch inside.txt? [y]es / [n]o / [a]lways"));
    await term.sendText("a");
    await term.sendKeys("Enter");
    const asked = await term.waitFor((s) =>
      s.includes("Allow bash OUTSIDE the sandbox: touch ~/escalated.txt? [y]es / [n]o "),
    );
    expect(asked).not.toContain("escalated.txt? [y]es / [n]o / [a]lways");
    expect(existsSync(join(box.home, "escalated.txt"))).toBe(false);
    await term.sendText("y");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("Both done."));
    expect(existsSync(join(box.workspace, "inside.txt"))).toBe(true);
    expect(existsSync(join(box.home, "escalated.txt"))).toBe(true);
  });

  test("in mode auto (-y) the chat still asks; no denies it and the file is not made", async () => {
    using box = new Sandbox("/var/tmp");
    const term = await chatIn(box, ["-y"]);
    server.enqueueReply("openai", {
      toolCalls: [{ id: "c1", name: "bash", input: { command: "touch ~/escalated.txt", sandbox: false } }],
    });
    server.enqueueReply("openai", { text: "Understood." });
    await term.sendText("make it");
    await term.sendKeys("Enter");
    await term.waitFor((s) =>
      s.includes("Allow bash OUTSIDE the sandbox: touch ~/escalated.txt? [y]es / [n]o "),
    );
    await term.sendText("n");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("Understood."));
    expect(existsSync(join(box.home, "escalated.txt"))).toBe(false);
  });

  test("/sandbox shows the sandbox; /sandbox read-only and network on change it for the chat", async () => {
    using box = new Sandbox();
    const term = await chatIn(box);
    await term.sendText("/sandbox");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("sandbox: bwrap · workspace-write · network off"));
    await term.sendText("/sandbox read-only");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("for this chat: bwrap · read-only · network off"));
    await term.sendText("/sandbox network on");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("for this chat: bwrap · read-only · network on"));
    server.enqueueReply("openai", {
      toolCalls: [{ id: "c1", name: "bash", input: { command: "touch here.txt" } }],
    });
    server.enqueueReply("openai", { text: "Tried." });
    await term.sendText("make here.txt");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("Allow bash: touch here.txt?"));
    await term.sendText("y");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("Tried."));
    expect(existsSync(join(box.workspace, "here.txt"))).toBe(false);
  });
});
