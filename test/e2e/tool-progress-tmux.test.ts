/**
 * End to end, in a real terminal (tmux): what a user sees while tools run and when they end, in the
 * chat and in `ion run`'s stderr progress. A running command shows a ticking elapsed time and its
 * latest output line dimmed; a command stopped by its time limit says "timed out after N s"; the
 * result lines of parallel calls each name their call, with no spinner frame left among them.
 * Every test has its own sandbox, tmux server and API key; waits poll the screen, never sleep.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { KeyedReplies } from "../support/keyed-replies.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";
import { type ScriptedReply, streamReply } from "../support/wire-scripts.ts";

if (!HAS_TMUX) console.warn("tool-progress-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env: serverEnv } = useOpenAIServer("sk-test-tool-progress-tmux-unused");
const MODEL = "openai/gpt-4o-mini";
const AUTO_PROMPT = "[auto] > ";
const ESC = "\x1b";
const FRAMES = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const STEPS = "for i in 1 2 3; do echo step-$i; sleep 1; done";
const replies = new KeyedReplies(server);
let rigs = 0;

/** A sandbox with a model configured, its own key, and ion in a terminal. */
class Rig {
  readonly box = new Sandbox();
  readonly key = `sk-test-tool-progress-tmux-${process.pid}-${++rigs}`;

  constructor() {
    replies.open(this.key);
  }

  /** Starts ion; `colour` lets it style its output (the sandbox sets NO_COLOR otherwise). */
  async start(args: string[], colour = false): Promise<Terminal> {
    await this.box.writeConfig({ model: MODEL });
    return Terminal.start({
      args,
      env: this.box.env({ ...serverEnv, OPENAI_API_KEY: this.key, ...(colour ? { NO_COLOR: "" } : {}) }),
      cwd: this.box.workspace,
      cols: 100,
      rows: 30,
    });
  }

  reply(reply: ScriptedReply): void {
    replies.push(this.key, streamReply("openai", reply));
  }

  /** Three parallel read_file calls, the second of a file that does not exist. */
  readThree(): void {
    writeFileSync(join(this.box.workspace, "alpha.txt"), "A\n");
    writeFileSync(join(this.box.workspace, "gamma.txt"), "G\n");
    this.reply({
      toolCalls: ["alpha.txt", "missing.txt", "gamma.txt"].map((path) => ({
        name: "read_file",
        input: { path },
      })),
    });
    this.reply({ text: "Read two of three." });
  }

  [Symbol.dispose](): void {
    replies.close(this.key);
    this.box[Symbol.dispose]();
  }
}

async function send(term: Terminal, text: string): Promise<void> {
  await term.sendText(text);
  await term.sendKeys("Enter");
}

const atPrompt = (screen: string) => screen.endsWith(`\n${AUTO_PROMPT}`);

/**
 * The screen as a user reads it: a status line is blanked with spaces (no escape codes), and tmux
 * keeps written spaces at the end of a row, which no one can see.
 */
const visible = (screen: string) => screen.replace(/ +$/gm, "");

/** The elapsed seconds on the status line under `● bash  <command>` (undefined when there is none). */
function elapsedUnder(screen: string, command: string): number | undefined {
  const lines = screen.split("\n");
  const at = lines.indexOf(`● bash  ${command}`);
  const match = /^ {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (\d+\.\d)s/.exec(lines[at + 1] ?? "");
  return match ? Number(match[1]) : undefined;
}

/**
 * Waits until the status line shows a running command's output line and a timer that moved on. The
 * terminal has colour on: the screen is read without escapes, then with them for the dim output line.
 */
async function expectLiveStatus(term: Terminal): Promise<void> {
  const first = await term.waitFor((s) => elapsedUnder(s, STEPS) !== undefined, 10_000);
  const before = elapsedUnder(first, STEPS)!;
  // The timer ticks by itself, between output lines too.
  await term.waitFor((s) => (elapsedUnder(s, STEPS) ?? before) > before, 5000);
  const screen = await term.waitFor(
    (s) => new RegExp(`● bash {2}${literal(STEPS)}\\n {2}. \\d+\\.\\ds · step-2$`).test(s),
    5000,
  );
  expect(screen).not.toContain("step-1"); // only the latest line, and only on the status line
  // The output line is dim (SGR 2).
  const styled = await term.captureWithEscapes();
  expect(styled).toMatch(new RegExp(`${ESC}\\[2mstep-[23]`));
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe.skipIf(!HAS_TMUX)("tool progress in the chat", () => {
  test("a running command shows a ticking elapsed time and its latest output line, dimmed", async () => {
    using rig = new Rig();
    const term = await rig.start(["chat", "-y"], true);
    await term.waitFor(atPrompt, 10_000);
    rig.reply({ toolCalls: [{ name: "bash", input: { command: STEPS } }] });
    rig.reply({ text: "Counted to three." });
    await send(term, "count slowly");
    await expectLiveStatus(term);
    const screen = visible(await term.waitFor((s) => s.includes("Counted to three.") && atPrompt(s), 10_000));
    // The status line gave way to the end line: no timer, no output line, no spinner left.
    expect(screen).toMatch(
      new RegExp(`● bash {2}${literal(STEPS)}\\n {2}✓ \\d+\\.\\ds\\nCounted to three\\.`),
    );
    expect(screen).not.toMatch(/step-\d/);
    expect(screen).not.toMatch(FRAMES);
  });

  test("a command stopped by its time limit says it timed out, and after how long", async () => {
    using rig = new Rig();
    const term = await rig.start(["chat", "-y"]);
    await term.waitFor(atPrompt, 10_000);
    rig.reply({ toolCalls: [{ name: "bash", input: { command: "sleep 5", timeout_ms: 1000 } }] });
    rig.reply({ text: "It took too long." });
    await send(term, "sleep a while");
    const screen = visible(await term.waitFor((s) => s.includes("It took too long.") && atPrompt(s), 10_000));
    expect(screen).toContain("● bash  sleep 5\n  ✗ timed out after 1 s\n");
    expect(screen).not.toContain("killed");
  });

  test("parallel calls: each result line names its call, the failed one too, and no spinner stays", async () => {
    using rig = new Rig();
    const term = await rig.start(["chat", "-y"]);
    await term.waitFor(atPrompt, 10_000);
    rig.readThree();
    await send(term, "read the three files");
    const screen = visible(
      await term.waitFor((s) => s.includes("Read two of three.") && atPrompt(s), 10_000),
    );
    const results = screen.split("\n").filter((line) => /^ {2}[✓✗]/.test(line));
    expect(results).toHaveLength(3);
    expect(results[0]).toMatch(/^ {2}✓ read_file alpha\.txt · \d+\.\ds$/);
    expect(results[1]).toMatch(/^ {2}✗ read_file missing\.txt · .*missing\.txt/);
    expect(results[2]).toMatch(/^ {2}✓ read_file gamma\.txt · \d+\.\ds$/);
    expect(screen).not.toMatch(FRAMES);
    expect(screen).not.toContain("Ionizing");
  });
});

describe.skipIf(!HAS_TMUX)("tool progress in ion run's stderr on a terminal", () => {
  test("a running command shows a ticking elapsed time and its latest output line", async () => {
    using rig = new Rig();
    rig.reply({ toolCalls: [{ name: "bash", input: { command: STEPS } }] });
    rig.reply({ text: "Counted to three." });
    const term = await rig.start(["run", "-y", "count slowly"], true);
    await expectLiveStatus(term);
    expect(await term.waitForExit(10_000)).toBe(0);
    const screen = visible(await term.capture());
    expect(screen).toMatch(new RegExp(`● bash {2}${literal(STEPS)}\\n {2}✓ \\d+\\.\\ds\\n`));
    expect(screen).not.toMatch(/step-\d/);
  });

  test("a command stopped by its time limit says it timed out", async () => {
    using rig = new Rig();
    rig.reply({ toolCalls: [{ name: "bash", input: { command: "sleep 5", timeout_ms: 1000 } }] });
    rig.reply({ text: "It took too long." });
    const term = await rig.start(["run", "-y", "sleep a while"]);
    expect(await term.waitForExit(10_000)).toBe(0);
    expect(visible(await term.capture())).toContain("● bash  sleep 5\n  ✗ timed out after 1 s\n");
  });

  test("parallel calls: each result line names its call and no spinner frame stays", async () => {
    using rig = new Rig();
    rig.readThree();
    const term = await rig.start(["run", "read the three files"]);
    expect(await term.waitForExit(10_000)).toBe(0);
    const screen = visible(await term.capture());
    const results = screen.split("\n").filter((line) => /^ {2}[✓✗]/.test(line));
    expect(results).toHaveLength(3);
    expect(results[0]).toMatch(/^ {2}✓ read_file alpha\.txt · \d+\.\ds$/);
    expect(results[1]).toMatch(/^ {2}✗ read_file missing\.txt · .*missing\.txt/);
    expect(results[2]).toMatch(/^ {2}✓ read_file gamma\.txt · \d+\.\ds$/);
    expect(screen).not.toMatch(FRAMES);
  });
});
