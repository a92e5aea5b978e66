/**
 * End to end, in a real terminal (tmux): the project trust question. `ion run` asks once, showing
 * exactly what the project would run; yes is remembered (the next run does not ask); Ctrl+C at the
 * question ends the run. `ion chat` asks before its prompt, and a no leaves the chat usable, with
 * `/trust` saying what was skipped. Waits poll the screen, never sleep.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";

if (!HAS_TMUX) console.warn("project-trust-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env } = useOpenAIServer("sk-test-trust-tmux-00000001");
const QUESTION = "Trust this project? [y/N]";

/** Where a trusted project's own `api_base` sends its requests. */
let projectServer: FakeLLM;
beforeAll(async () => {
  projectServer = await startFakeLLM();
});
afterAll(async () => {
  await projectServer.stop();
});

function write(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2));
}

async function project(box: Sandbox): Promise<{ root: string; marker: string }> {
  await box.writeConfig({ model: "openai/gpt-4o-mini" });
  const marker = join(box.root, "server-started");
  write(join(box.workspace, ".mcp.json"), {
    mcpServers: { files: { command: "sh", args: ["-c", `touch ${marker}`] } },
  });
  write(join(box.workspace, ".ion", "config.json"), {
    providers: { openai: { api_base: `${projectServer.url}/v1` } },
  });
  return { root: realpathSync(box.workspace), marker };
}

function start(box: Sandbox, args: string[]): Promise<Terminal> {
  return Terminal.start({ args, env: box.env(env), cwd: box.workspace, cols: 120, rows: 30 });
}

const storeFile = (box: Sandbox) => join(box.dataDir, "trusted-projects.json");

describe.skipIf(!HAS_TMUX)("the trust question on a terminal", () => {
  test("ion run asks once showing what would run; yes is remembered and the next run does not ask", async () => {
    using box = new Sandbox();
    const p = await project(box);
    projectServer.enqueueReply("openai", { text: "answered by the project's server" });
    const first = await start(box, ["run", "-y", "hi"]);
    const screen = await first.waitFor(QUESTION, 10_000);
    expect(screen).toContain(`${p.root} is a project you have not trusted. Trusted, it would:`);
    expect(screen).toContain(`  MCP server "files" (.mcp.json): sh -c 'touch ${p.marker}'`);
    expect(screen).toContain(`  providers.openai.api_base (.ion/config.json): ${projectServer.url}/v1`);
    await first.sendText("y");
    await first.sendKeys("Enter");
    expect(await first.waitForExit(10_000)).toBe(0);
    expect(await first.capture()).toContain("answered by the project's server");
    const stored = JSON.parse(readFileSync(storeFile(box), "utf8")) as { projects: Record<string, unknown> };
    expect(Object.keys(stored.projects)).toEqual([p.root]);

    projectServer.enqueueReply("openai", { text: "again by the project's server" });
    const second = await start(box, ["run", "hi"]);
    expect(await second.waitForExit(10_000)).toBe(0);
    const after = await second.capture();
    expect(after).toContain("again by the project's server");
    expect(after).not.toContain(QUESTION);
  });

  test("Ctrl+C at the question ends the run: interrupted, exit 2, nothing sent or remembered", async () => {
    using box = new Sandbox();
    await project(box);
    const before = server.requests.length + projectServer.requests.length;
    const term = await start(box, ["run", "hi"]);
    await term.waitFor(QUESTION, 10_000);
    await term.sendKeys("C-c");
    expect(await term.waitForExit(5_000)).toBe(2);
    expect(server.requests.length + projectServer.requests.length).toBe(before);
    expect(existsSync(storeFile(box))).toBe(false);
  });

  test("the question shows its default; a typo gets one line, not the list again; Ctrl+C and Ctrl+D end the question's line", async () => {
    using box = new Sandbox();
    await project(box);
    const typo = await start(box, ["run", "hi"]);
    await typo.waitFor(QUESTION, 10_000);
    await typo.sendText("maybe");
    await typo.sendKeys("Enter");
    const again = await typo.waitFor(`answer y or n (Enter is no)\n${QUESTION}`, 10_000);
    expect(again.split("is a project you have not trusted")).toHaveLength(2);
    await typo.sendKeys("C-c");
    expect(await typo.waitForExit(5_000)).toBe(2);
    expect(await typo.capture()).toMatch(/Trust this project\? \[y\/N\] *\nion: interrupted/);

    const eof = await start(box, ["run", "hi"]);
    await eof.waitFor(QUESTION, 10_000);
    await eof.sendKeys("C-d");
    const after = await eof.waitFor("not trusted: all of the above is skipped", 10_000);
    expect(after).toMatch(/Trust this project\? \[y\/N\] *\nion: warning: not trusted/);
  });

  test("Ctrl+C at the chat's question ends the chat as interrupted (exit 2)", async () => {
    using box = new Sandbox();
    await project(box);
    const term = await start(box, ["chat"]);
    await term.waitFor(QUESTION, 10_000);
    await term.sendKeys("C-c");
    expect(await term.waitForExit(5_000)).toBe(2);
    expect(await term.capture()).not.toContain("new session");
    expect(existsSync(storeFile(box))).toBe(false);
  });

  test("ion chat asks before its prompt; after a no the chat goes on untrusted and /trust says so", async () => {
    using box = new Sandbox();
    const p = await project(box);
    const term = await start(box, ["chat"]);
    await term.waitFor(QUESTION, 10_000);
    await term.sendText("n");
    await term.sendKeys("Enter");
    await term.waitFor("not trusted: all of the above is skipped for this run", 10_000);
    await term.waitFor(/new session · openai\/gpt-4o-mini/, 10_000);
    await term.waitFor((screen) => screen.trimEnd().endsWith(">"), 10_000);
    // /mcp names the project's server it skipped, rather than saying there are none.
    await term.sendText("/mcp");
    await term.sendKeys("Enter");
    const skipped = `no MCP servers in this chat: the project's MCP server "files" (.mcp.json) was skipped: the project is not trusted (/trust shows what it runs; /trust yes trusts it from the next chat on)`;
    // The line is wider than the terminal: compare it unwrapped.
    await term.waitFor((screen) => screen.replaceAll("\n", "").includes(skipped), 10_000);
    await term.sendText("/trust");
    await term.sendKeys("Enter");
    // Not "/trust yes trusts it" alone: the /mcp line above says that too.
    const screen = await term.waitFor("/trust yes trusts it (from the next chat on)", 10_000);
    expect(screen).toContain(`${p.root}: not trusted; this chat skipped:`);
    await term.sendText("/trust yes");
    await term.sendKeys("Enter");
    await term.waitFor("leave and run `ion chat -c` to use it", 10_000);
    // Trusted now: /trust says so, and that a new chat loads it, instead of how to trust it.
    await term.sendText("/trust");
    await term.sendKeys("Enter");
    const trusted = await term.waitFor(
      "trusted: it loads when a chat starts (leave and run `ion chat -c`)",
      10_000,
    );
    const last = trusted.slice(trusted.lastIndexOf("> /trust\n"));
    expect(last).toContain(`${p.root}: trusted since `);
    expect(last).not.toContain("/trust yes trusts it");
    await term.sendKeys("C-d");
    expect(await term.waitForExit(10_000)).toBe(0);
    expect(existsSync(storeFile(box))).toBe(true);
    expect(existsSync(p.marker)).toBe(false);
  });
});
