/**
 * End to end: the permission mode changed on a real terminal (tmux) is applied and saved in the user
 * config, and the chat says so in a line — for `/mode` and for Shift+Tab, which draws the line above the
 * prompt and keeps what was being typed. The piped counterpart (refused) is chat-piped-permissions.test.ts.
 * Waits poll the screen; nothing sleeps for a fixed time.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("chat-tmux-mode: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { env } = useOpenAIServer("sk-test-chat-tmux-mode-0000000000042");
const MODEL = "openai/gpt-4o-mini";

/** A sandbox with a model configured and `ion chat` waiting at its prompt. */
async function chatIn(box: Sandbox): Promise<Terminal> {
  await box.writeConfig({ model: MODEL });
  const term = await Terminal.start({ args: ["chat"], env: box.env(env), cwd: box.workspace, cols: 140 });
  await term.waitFor((screen) => screen.endsWith("\n> "), 10_000);
  return term;
}

async function savedMode(box: Sandbox): Promise<string | undefined> {
  const file = join(box.configDir, "config.json");
  const deadline = Date.now() + 5000;
  for (;;) {
    const mode = (JSON.parse(readFileSync(file, "utf8")) as { permissions?: { mode?: string } }).permissions
      ?.mode;
    if (mode !== undefined || Date.now() >= deadline) return mode;
    await Bun.sleep(50);
  }
}

describe.skipIf(!HAS_TMUX)("the mode on a terminal", () => {
  test("/mode auto is applied, saved, and the chat says where", async () => {
    using box = new Sandbox();
    const term = await chatIn(box);
    await term.sendText("/mode auto");
    await term.sendKeys("Enter");
    const file = join(box.configDir, "config.json");
    const screen = await term.waitFor((s) => s.endsWith("\n[auto] > "));
    expect(screen).toContain(`\nmode: auto (saved as your default in ${file})\n`);
    expect(await savedMode(box)).toBe("auto");
  });

  test("Shift+Tab says it saved the mode, above the prompt, and keeps the line being typed", async () => {
    using box = new Sandbox();
    const term = await chatIn(box);
    await term.sendText("half a thought");
    await term.waitFor((s) => s.endsWith("\n> half a thought"));
    await term.sendKeys("BTab");
    const file = join(box.configDir, "config.json");
    const screen = await term.waitFor((s) => s.endsWith("\n[auto] > half a thought"));
    const lines = screen.split("\n");
    expect(lines.at(-2)).toBe(`mode: auto (saved as your default in ${file})`);
    expect(screen).not.toContain("\n> half a thought");
    expect(await savedMode(box)).toBe("auto");
  });
});
