/**
 * End to end, in a real terminal (tmux): the approval question of an MCP tool shows the call's whole
 * input — what it would write, not only where — since ion cannot know what the server makes of a
 * path alone. Waits poll the screen, never sleep.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FILESYSTEM_SERVER } from "../mcp/support.ts";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("mcp-approval-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-mcp-approval-tmux-unused");

describe.skipIf(!HAS_TMUX)("an MCP tool's approval on a terminal", () => {
  test("shows every key of the input before the question, the content too; no denies it", async () => {
    using box = new Sandbox();
    await box.writeConfig({
      model: "openai/gpt-4o-mini",
      mcpServers: { files: { command: process.execPath, args: [FILESYSTEM_SERVER, box.workspace] } },
    });
    const path = join(box.workspace, "x.txt");
    server.enqueueReply("openai", {
      toolCalls: [{ name: "mcp__files__write_file", input: { path, content: "hello\nrm -rf ~" } }],
    });
    server.enqueueReply("openai", { text: "did not write it" });
    const term = await Terminal.start({
      args: ["run", "write x.txt"],
      env: box.env(env),
      cwd: box.workspace,
      cols: 120,
      rows: 30,
    });
    const screen = await term.waitFor(
      "Allow mcp__files__write_file (the 4 lines above)? [y]es / [n]o / [a]lways",
      15_000,
    );
    // tmux keeps the spaces written at the end of a row (the cleared progress line): not seen.
    expect(screen.replace(/ +$/gm, "")).toContain(
      `{\n  "path": "${path}",\n  "content": "hello\\nrm -rf ~"\n}\nAllow mcp__files__write_file`,
    );
    await term.sendText("n");
    await term.sendKeys("Enter");
    expect(await term.waitForExit(10_000)).toBe(0);
    expect(await term.capture()).toContain("did not write it");
    expect(existsSync(path)).toBe(false);
  });
});
