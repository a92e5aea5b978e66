/**
 * End to end, in a real terminal (tmux): a model's answer cannot clear the screen, rename the window
 * or write the clipboard, even with its escape sequences split between two streamed deltas; and an
 * approval question shows the whole call (or the whole diff of a write), with its control characters
 * written out, never obeyed.
 * Every test has its own sandbox, tmux server and API key; the server answers each key from that
 * test's own queue. Waits poll the screen; nothing sleeps for a fixed time.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import type { FakeResponse } from "../support/fake-llm.ts";
import { KeyedReplies } from "../support/keyed-replies.ts";
import { chatChunk, sseFrames } from "../support/stream-helpers.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";
import { type ScriptedReply, streamReply } from "../support/wire-scripts.ts";

if (!HAS_TMUX) console.warn("terminal-text-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env: serverEnv } = useOpenAIServer("sk-test-terminal-text-tmux-unused");
const MODEL = "openai/gpt-4o-mini";
const ESC = "\x1b";
const CHOICES = "? [y]es / [n]o / [a]lways ";
const replies = new KeyedReplies(server);
let rigs = 0;

/** A sandbox with a model configured, its own key, and ion in a terminal. */
class Rig {
  readonly box = new Sandbox();
  readonly key = `sk-test-terminal-text-tmux-${process.pid}-${++rigs}`;

  constructor() {
    replies.open(this.key);
  }

  async start(args: string[]): Promise<Terminal> {
    await this.box.writeConfig({ model: MODEL });
    return Terminal.start({
      args,
      env: this.box.env({ ...serverEnv, OPENAI_API_KEY: this.key }),
      cwd: this.box.workspace,
      cols: 100,
      rows: 30,
    });
  }

  reply(reply: ScriptedReply): void {
    this.respond(streamReply("openai", reply));
  }

  respond(response: FakeResponse): void {
    replies.push(this.key, response);
  }

  [Symbol.dispose](): void {
    replies.close(this.key);
    this.box[Symbol.dispose]();
  }
}

/** A streamed answer sent as exactly these text deltas, each in its own SSE frame and write. */
function answerInDeltas(deltas: string[]): FakeResponse {
  const usage = { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 };
  const frames = [
    chatChunk({ role: "assistant", content: "" }),
    ...deltas.map((content) => chatChunk({ content })),
    chatChunk({}, "stop"),
    chatChunk({}, null, { choices: [], usage }),
  ];
  return {
    headers: { "content-type": "text/event-stream" },
    chunks: [...frames.map((frame) => sseFrames(frame)), sseFrames("[DONE]")],
  };
}

/** The screen with the terminal's line wrapping undone (the rows of a 100-column pane joined). */
function unwrapped(screen: string): string {
  return screen.split("\n").join("");
}

async function send(term: Terminal, text: string): Promise<void> {
  await term.sendText(text);
  await term.sendKeys("Enter");
}

describe.skipIf(!HAS_TMUX)("untrusted text in a terminal", () => {
  test("chat: an answer's sequences, split across deltas, neither clear, retitle, copy nor colour", async () => {
    using rig = new Rig();
    const term = await rig.start(["chat"]);
    await term.waitFor((s) => s.endsWith("\n> "), 10_000);
    const titleBefore = await term.title();
    rig.respond(
      answerInDeltas([
        "Before.\n",
        `Clearing${ESC}[`,
        "2J the screen,",
        ` naming${ESC}]0;pwned-`,
        "title\x07 the window,",
        ` writing${ESC}]52;c;UFdORUQ=${ESC}`,
        "\\ the clipboard,",
        ` colouring ${ESC}[31mred${ESC}[0m and erasing${ESC}[1A${ESC}[2K`,
        " nothing.\r\nDone.",
      ]),
    );
    await send(term, "show me");
    const screen = await term.waitFor((s) => s.includes("Done.") && s.endsWith("\n> "));
    // Nothing was cleared or erased: the greeting and the question are still on screen, above the answer.
    expect(screen).toMatch(
      /ion: new session · openai\/gpt-4o-mini · \/help for commands\n> show me\nBefore\. *\nClearing the screen, naming the window, writing the clipboard, colouring red and erasing nothing\.\nDone\.\n/,
    );
    expect(await term.title()).toBe(titleBefore);
    expect((await term.clipboard()).join("\n")).not.toContain("PWNED");
    // NO_COLOR is set, so any colour on screen would be the model's.
    expect(await term.captureWithEscapes()).not.toContain("[31m");
  });

  test("run: an answer streamed to the terminal neither clears, retitles, copies nor colours", async () => {
    using rig = new Rig();
    rig.respond(
      answerInDeltas([
        `Clearing${ESC}[`,
        "2J the screen,",
        ` naming${ESC}]2;pwned-`,
        "title\x07 the window,",
        ` writing${ESC}]52;c;UFdORUQ=\x07 the clipboard,`,
        ` colouring ${ESC}[31mred${ESC}[0m and erasing${ESC}[1A${ESC}[2K nothing.\rDone.`,
      ]),
    );
    const term = await rig.start(["run", "show me"]);
    expect(await term.waitForExit(10_000)).toBe(0);
    // The first line is still there: nothing cleared the screen or erased the line above.
    expect(await term.capture()).toStartWith(
      "Clearing the screen, naming the window, writing the clipboard, colouring red and erasing nothing.\nDone.\n",
    );
    expect(await term.title()).not.toContain("pwned");
    expect((await term.clipboard()).join("\n")).not.toContain("PWNED");
    expect(await term.captureWithEscapes()).not.toContain("[31m");
  });

  test("chat: an approval shows ESC[2K ESC[1G written out, so the command cannot erase its own question", async () => {
    using rig = new Rig();
    const term = await rig.start(["chat"]);
    await term.waitFor((s) => s.endsWith("\n> "), 10_000);
    const command = `touch pwned-file ${ESC}[2K${ESC}[1Gecho harmless listing`;
    rig.reply({ toolCalls: [{ name: "bash", input: { command } }] });
    rig.reply({ text: "Not run." });
    await send(term, "list the files");
    const question = `Allow bash: touch pwned-file \\x1b[2K\\x1b[1Gecho harmless listing${CHOICES}`;
    await term.waitFor(question);
    await send(term, "n");
    const screen = await term.waitFor((s) => s.includes("Not run.") && s.endsWith("\n> "));
    expect(screen).toContain(`\n> list the files\n${question}n\n`);
    expect(existsSync(join(rig.box.workspace, "pwned-file"))).toBe(false);
  });

  test("run: a 300-character one-line command is shown whole, its `; echo PWNED > f` tail included", async () => {
    using rig = new Rig();
    const command = `echo ${"a".repeat(300 - "echo ".length - "; echo PWNED > f".length)}; echo PWNED > f`;
    expect(command).toHaveLength(300);
    rig.reply({ toolCalls: [{ name: "bash", input: { command } }] });
    rig.reply({ text: "Fine, not run." });
    const term = await rig.start(["run", "tidy up"]);
    const question = `Allow bash: ${command}${CHOICES}`;
    await term.waitFor((s) => unwrapped(s).includes(question), 10_000);
    await send(term, "n");
    expect(await term.waitForExit(10_000)).toBe(0);
    expect(await term.capture()).toContain("Fine, not run.");
    expect(existsSync(join(rig.box.workspace, "f"))).toBe(false);
  });

  test("run: a multi-line command shows every line before the question, a CR in it written out", async () => {
    using rig = new Rig();
    const lines = Array.from({ length: 44 }, (_, i) => `echo step-${i + 1}`);
    lines.push(`rm -rf ./important # looks done\r${" ".repeat(30)}`);
    rig.reply({ toolCalls: [{ name: "bash", input: { command: lines.join("\n") } }] });
    rig.reply({ text: "Stopped." });
    const term = await rig.start(["run", "tidy up"]);
    const screen = await term.waitFor(`Allow bash (the 45 lines above)${CHOICES}`, 10_000);
    const shown = lines.slice(0, 44).map((line) => `${line}\n`);
    expect(screen).toContain(
      `${shown.join("")}rm -rf ./important # looks done\\r${" ".repeat(30)}\nAllow bash (the 45 lines above)`,
    );
    await send(term, "n");
    expect(await term.waitForExit(10_000)).toBe(0);
  });

  test("run: a write's diff is shown whole, its escape sequences written out, never obeyed", async () => {
    using rig = new Rig();
    const lines = Array.from({ length: 40 }, (_, i) => `line-${i + 1}`);
    const hostile = `ok${ESC}[2K${ESC}[1G${ESC}]0;pwned-title\x07 then\r hidden`;
    const content = `${[...lines, hostile, "last-line"].join("\n")}\n`;
    rig.reply({ toolCalls: [{ name: "write_file", input: { path: "notes.txt", content } }] });
    rig.reply({ text: "Left alone." });
    const term = await rig.start(["run", "write the notes"]);
    const titleBefore = await term.title();
    const screen = await term.waitFor(`Allow write_file: notes.txt${CHOICES}`, 10_000);
    // Every added line is on screen, the first and the last included; the hostile one written out.
    const shown = lines.map((line) => `+${line}\n`).join("");
    expect(screen).toContain(
      `${shown}+ok\\x1b[2K\\x1b[1G\\x1b]0;pwned-title\\x07 then\\r hidden\n+last-line\n`,
    );
    expect(await term.title()).toBe(titleBefore);
    await send(term, "n");
    expect(await term.waitForExit(10_000)).toBe(0);
    expect(await term.capture()).toContain("Left alone.");
    expect(existsSync(join(rig.box.workspace, "notes.txt"))).toBe(false);
  });
});
