/**
 * End to end: the chat's line editor in a real terminal (tmux), read as a user reads the screen —
 * `--no-session` alone, cancelling a message continued with `\`, redrawing a line wider than the
 * terminal (editing, wide characters, a resize), ↑ bringing back a multi-line message whole, text typed
 * while an answer streams, and Esc twice cancelling a turn. One fake OpenAI-wire server for the file;
 * each test has its own sandbox, terminal and API key (its replies are queued under that key). Waits
 * poll the screen; nothing sleeps for a fixed time.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { transcript, useOpenAIServer } from "../support/e2e.ts";
import type { FakeResponse, RecordedRequest } from "../support/fake-llm.ts";
import { KeyedReplies, keyOf } from "../support/keyed-replies.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";
import { type ScriptedReply, streamReply } from "../support/wire-scripts.ts";

if (!HAS_TMUX) console.warn("chat-editor-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env: serverEnv } = useOpenAIServer("sk-test-chat-editor-unused");
const MODEL = "openai/gpt-4o-mini";
const STATUS = /openai\/gpt-4o-mini · [^\n]*\d+\.\ds\n/;
const replies = new KeyedReplies(server);
let rigs = 0;

class Rig {
  readonly box = new Sandbox();
  readonly key = `sk-test-chat-editor-${process.pid}-${++rigs}`;

  constructor() {
    replies.open(this.key);
  }

  env(): Record<string, string> {
    return this.box.env({ ...serverEnv, OPENAI_API_KEY: this.key });
  }

  /** `ion chat …` in a fresh terminal, waiting for its prompt. */
  async chat(args: string[] = ["chat"], cols = 100, rows = 30): Promise<Terminal> {
    // No memory: a later chat's request is then exactly what its line editor sent.
    await this.box.writeConfig({ model: MODEL, memory: { enabled: false } });
    const term = await Terminal.start({ args, env: this.env(), cwd: this.box.workspace, cols, rows });
    await term.waitFor(atPrompt(), 10_000);
    return term;
  }

  reply(reply: ScriptedReply, extra: Partial<FakeResponse> = {}): void {
    replies.push(this.key, { ...streamReply("openai", reply), ...extra });
  }

  requests(): RecordedRequest[] {
    return server.requests.filter((r) => keyOf(r) === this.key && r.path.endsWith("/chat/completions"));
  }

  async waitForRequests(count: number): Promise<RecordedRequest[]> {
    const deadline = Date.now() + 5000;
    while (this.requests().length < count) {
      if (Date.now() >= deadline) throw new Error(`timed out waiting for ${count} model request(s)`);
      await Bun.sleep(50);
    }
    return this.requests();
  }

  [Symbol.dispose](): void {
    replies.close(this.key);
    this.box[Symbol.dispose]();
  }
}

function atPrompt(prompt = "> "): (screen: string) => boolean {
  return (screen) => screen.endsWith(`\n${prompt}`);
}

/** The answer ended: its status line, then an empty prompt. */
function answered(text: string): (screen: string) => boolean {
  return (screen) => screen.includes(text) && STATUS.test(screen) && atPrompt()(screen);
}

async function send(term: Terminal, text: string): Promise<void> {
  await term.sendText(text);
  await term.sendKeys("Enter");
}

/** How many times `text` is on the screen and in its scrollback. */
function count(screen: string, text: string): number {
  return screen.split(text).length - 1;
}

/** A slow answer: `n` words, one every 100 ms, then `the-end`. */
function slowAnswer(rig: Rig, n = 40): void {
  const words = Array.from({ length: n }, (_, i) => `word${i}`);
  rig.reply({ text: `${words.join(" ")} the-end` }, { chunkDelayMs: 100 });
}

describe.skipIf(!HAS_TMUX)("the chat's line editor in a terminal", () => {
  test("ion chat --no-session alone starts a fresh chat that saves nothing", async () => {
    using rig = new Rig();
    await rig.box.writeConfig({ model: MODEL });
    rig.reply({ text: "Saved answer." });
    const first = await rig.box.run(["run", "remember this"], { env: rig.env() });
    expect(first.code).toBe(0);
    expect(rig.box.sessionFiles()).toHaveLength(1);

    const term = await rig.chat(["chat", "--no-session"]);
    expect(await term.capture()).toStartWith(`ion: new session · ${MODEL}`);
    rig.reply({ text: "Unsaved answer." });
    await send(term, "not remembered");
    await term.waitFor(answered("Unsaved answer."));
    const requests = await rig.waitForRequests(2);
    expect(transcript(requests[1]!)).toEqual(["user: not remembered"]);
    await term.sendKeys("C-d");
    expect(await term.waitForExit()).toBe(0);
    expect(rig.box.sessionFiles()).toHaveLength(1);
  });

  test("Ctrl+C on a message continued with \\ drops all of it; the next message is sent alone", async () => {
    using rig = new Rig();
    const term = await rig.chat();
    await send(term, "first part\\");
    await term.waitFor(atPrompt("… "));
    await term.sendText("second part");
    await term.waitFor((s) => s.endsWith("\n… second part"));
    await term.sendKeys("C-c");
    let screen = await term.waitFor(atPrompt());
    expect(screen).toContain("\n> first part\\\n… \n(message discarded)\n> ");
    rig.reply({ text: "Only the fresh one." });
    await send(term, "fresh");
    screen = await term.waitFor(answered("Only the fresh one."));
    expect(transcript((await rig.waitForRequests(1))[0]!)).toEqual(["user: fresh"]);
  });

  test("Ctrl+D on a continuation line discards the message and the chat goes on", async () => {
    using rig = new Rig();
    const term = await rig.chat();
    await send(term, "half a message\\");
    await term.waitFor(atPrompt("… "));
    await term.sendKeys("C-d");
    await term.waitFor((s) => s.includes("(message discarded)") && atPrompt()(s));
    expect(rig.requests()).toHaveLength(0);
    rig.reply({ text: "Still here." });
    await send(term, "after");
    await term.waitFor(answered("Still here."));
    expect(transcript((await rig.waitForRequests(1))[0]!)).toEqual(["user: after"]);
  });

  test("a line wider than the terminal: Ctrl+C, Ctrl+U and Backspace leave no stale row", async () => {
    using rig = new Rig();
    const term = await rig.chat(["chat"], 40, 20);
    const before = await term.capture();
    const long = "abcdefghij".repeat(7); // "> " and 70 characters: two rows of 40
    await term.sendText(long);
    await term.waitFor((s) =>
      s.endsWith("\n> abcdefghijabcdefghijabcdefghijabcdefgh\nijabcdefghijabcdefghijabcdefghij"),
    );
    await term.sendKeys("C-c");
    expect(await term.waitFor(atPrompt())).toBe(before);

    await term.sendText(long);
    await term.waitFor((s) => s.endsWith("abcdefghij"));
    await term.sendKeys("C-u");
    expect(await term.waitFor(atPrompt())).toBe(before);

    // Exactly 38 characters fill the first row; Backspace then goes back across the wrap.
    await term.sendText("x".repeat(45));
    await term.waitFor((s) => s.endsWith(`\n${"x".repeat(7)}`));
    await term.sendKeys(...Array.from({ length: 8 }, () => "BSpace"));
    expect(await term.waitFor((s) => s.endsWith(`> ${"x".repeat(37)}`))).toBe(`${before}${"x".repeat(37)}`);
    await term.sendKeys("C-u");
    await term.sendText("x".repeat(38));
    await term.waitFor((s) => s.endsWith(`> ${"x".repeat(38)}`));
    await term.sendKeys("C-u");
    expect(await term.waitFor(atPrompt())).toBe(before);
  });

  test("wide characters count two columns: a wrapped CJK line is redrawn once after Backspace", async () => {
    using rig = new Rig();
    const term = await rig.chat(["chat"], 40, 20);
    const before = await term.capture();
    await term.sendText("漢字".repeat(25)); // 100 columns after "> ": three rows, the first of 19 characters
    await term.waitFor((s) => s.endsWith(`\n${"字漢".repeat(5)}字`));
    await term.sendKeys(...Array.from({ length: 12 }, () => "BSpace"));
    const screen = await term.waitFor((s) => s.endsWith(`\n${"字漢".repeat(9)}字`));
    expect(screen).toBe(`${before}${"漢字".repeat(9)}漢\n${"字漢".repeat(9)}字`);
  });

  test("a resize narrower than a wrapped line being edited shows the line once", async () => {
    using rig = new Rig();
    const term = await rig.chat(["chat"], 100, 30);
    rig.reply({ text: "First answer." });
    await send(term, "first");
    await term.waitFor(answered("First answer."));
    const words = Array.from({ length: 20 }, (_, i) => `w${String(i).padStart(2, "0")}xyz`).join(" ");
    await term.sendText(words); // 139 characters: two rows at 100 columns
    await term.waitFor((s) => s.endsWith("w19xyz"));
    await term.sendKeys(...Array.from({ length: 14 }, () => "Left")); // before " w18xyz w19xyz"
    await term.resize(40, 30);
    await term.sendText("Z");
    let screen = await term.waitFor((s) => s.replaceAll("\n", "").includes("w17xyzZ w18xyz"));
    expect(count(screen, "> w00xyz")).toBe(1);
    expect(count(screen.replaceAll("\n", ""), "w00xyz")).toBe(1);
    await term.resize(100, 30);
    await term.sendKeys("BSpace");
    screen = await term.waitFor((s) => !s.includes("Z") && s.includes("w16xyz"));
    expect(count(screen, "> w00xyz")).toBe(1);
    rig.reply({ text: "Second answer." });
    await term.sendKeys("Enter");
    await term.waitFor(answered("Second answer."));
    expect(transcript((await rig.waitForRequests(2))[1]!).at(-1)).toBe(`user: ${words}`);
  });

  test("a resize that pushes a wrapped line's first row into the scrollback does not draw it again", async () => {
    using rig = new Rig();
    const term = await rig.chat(["chat"], 100, 30);
    const words = Array.from({ length: 20 }, (_, i) => `w${String(i).padStart(2, "0")}xyz`).join(" ");
    await term.sendText(words); // right under the first line: at 40 columns tmux pushes rows above the screen
    await term.waitFor((s) => s.endsWith("w19xyz"));
    await term.resize(40, 30);
    await term.sendText("Z");
    let screen = await term.waitFor((s) => s.endsWith("w19xyzZ"));
    // The screen and its scrollback hold the line once.
    expect(count(screen, "> w00xyz")).toBe(1);
    expect(count(screen.replaceAll("\n", ""), "w00xyz")).toBe(1);
    // An edit inside the line redraws the rows on the screen, not the one in the scrollback.
    await term.sendKeys(...Array.from({ length: 8 }, () => "Left"));
    await term.sendText("Q");
    screen = await term.waitFor((s) => s.replaceAll("\n", "").includes("w18xyzQ w19xyzZ"));
    expect(count(screen, "> w00xyz")).toBe(1);
    expect(count(screen.replaceAll("\n", ""), "w00xyz")).toBe(1);
    rig.reply({ text: "Got the long one." });
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("Got the long one.") && atPrompt()(s)); // the status line wraps
    const sent = transcript((await rig.waitForRequests(1))[0]!).at(-1);
    expect(sent).toBe(`user: ${words.replace("w18xyz w19xyz", "w18xyzQ w19xyzZ")}`);
  });

  test("in tmux as its users have it, a resize that brings a line's start to the screen's top keeps no copy", async () => {
    using rig = new Rig();
    const term = await rig.chat(["chat"], 100, 30);
    // tmux's default: a screen cleared from its top-left corner is copied into the scrollback.
    await term.setOption("scroll-on-clear", "on");
    const words = Array.from({ length: 20 }, (_, i) => `w${String(i).padStart(2, "0")}xyz`).join(" ");
    await term.sendText(words); // rows 1-2 under the first line; at 60 columns tmux keeps the last row
    await term.waitFor((s) => s.endsWith("w19xyz")); // where it was, so the line starts at the top
    await term.resize(60, 30);
    await term.sendKeys(...Array.from({ length: 7 }, () => "Left"));
    await term.sendText("Q"); // a redraw of the line
    const screen = await term.waitFor((s) => s.replaceAll("\n", "").includes("w18xyzQ w19xyz"));
    expect(count(screen, "> w00xyz")).toBe(1);
    expect(count(screen.replaceAll("\n", ""), "w00xyz")).toBe(1);
  });

  test("↑ brings back a message continued with \\ as the one message it was, in this chat and the next", async () => {
    using rig = new Rig();
    let term = await rig.chat();
    await send(term, "first line\\");
    await term.waitFor(atPrompt("… "));
    rig.reply({ text: "Got both lines." });
    await send(term, "second line");
    await term.waitFor(answered("Got both lines."));
    await term.sendKeys("Up");
    // readline marks the rows after the first with "| "; the message is what is sent.
    await term.waitFor((s) => s.endsWith("\n> first line\n| second line"));
    rig.reply({ text: "Got them again." });
    await term.sendKeys("Enter");
    await term.waitFor(answered("Got them again."));
    let requests = await rig.waitForRequests(2);
    expect(transcript(requests[1]!).at(-1)).toBe("user: first line\nsecond line");
    await term.sendKeys("C-d");
    expect(await term.waitForExit()).toBe(0);
    const file = join(rig.box.dataDir, "input_history.jsonl");
    expect(readFileSync(file, "utf8")).toBe(`${JSON.stringify("first line\nsecond line")}\n`.repeat(2));

    term = await rig.chat(["chat", "--new"]);
    await term.sendKeys("Up");
    await term.waitFor((s) => s.endsWith("\n> first line\n| second line"));
    rig.reply({ text: "And in a new chat." });
    await term.sendKeys("Enter");
    await term.waitFor(answered("And in a new chat."));
    requests = await rig.waitForRequests(3);
    expect(transcript(requests[2]!)).toEqual(["user: first line\nsecond line"]);
  });

  test("text typed while an answer streams waits on the next prompt and is never sent by itself", async () => {
    using rig = new Rig();
    const term = await rig.chat();
    slowAnswer(rig);
    await send(term, "tell me slowly");
    await term.waitFor("word2 ");
    await term.sendText("and then");
    await term.sendKeys("Enter"); // Enter during the answer sends nothing
    await term.sendText("more");
    const screen = await term.waitFor((s) => s.includes("the-end") && s.endsWith("\n> and then\n| more"));
    expect(screen.replaceAll("\n", "")).toContain("word38 word39 the-end");
    expect(count(screen, "and then")).toBe(1);
    expect(screen).not.toContain("(interrupted)");
    expect(rig.requests()).toHaveLength(1);
    await term.sendKeys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace");
    await term.sendText(" so on");
    await term.waitFor((s) => s.endsWith("\n> and then so on"));
    rig.reply({ text: "Sent when asked." });
    await term.sendKeys("Enter");
    await term.waitFor(answered("Sent when asked."));
    expect(transcript((await rig.waitForRequests(2))[1]!).at(-1)).toBe("user: and then so on");
  });

  test("text typed ahead is no answer to an approval question, and Ctrl+C still cancels", async () => {
    using rig = new Rig();
    const term = await rig.chat();
    rig.reply(
      {
        text: "Let me check with a command first.",
        toolCalls: [{ name: "bash", input: { command: "echo hi" } }],
      },
      { chunkDelayMs: 150 },
    );
    rig.reply({ text: "Not run, as you wish." });
    await send(term, "check something");
    await term.waitFor("Let me");
    await term.sendText("y");
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.endsWith("Allow bash: echo hi? [y]es / [n]o / [a]lways "));
    await send(term, "n");
    let screen = await term.waitFor((s) => s.includes("Not run, as you wish.") && s.endsWith("\n> y"));
    expect(screen).toContain("[a]lways n\n");
    const denied = JSON.stringify((await rig.waitForRequests(2))[1]!.body);
    expect(denied).toContain("permission denied");
    expect(denied).not.toContain('"stdout"');
    await term.sendKeys("C-u");
    await term.waitFor(atPrompt());

    // Ctrl+C during the next answer still stops it; what was typed meanwhile stays.
    slowAnswer(rig);
    await send(term, "again slowly");
    await term.waitFor("word2 ");
    await term.sendText("kept");
    await term.sendKeys("C-c");
    screen = await term.waitFor((s) => s.includes("(interrupted)") && s.endsWith("\n> kept"));
    expect(screen).not.toContain("the-end");
    expect(rig.requests()).toHaveLength(3);
  });

  test("Esc twice cancels a running answer; a single Esc and arrow keys do not", async () => {
    using rig = new Rig();
    const term = await rig.chat();
    slowAnswer(rig, 25);
    await send(term, "first slow one");
    await term.waitFor("word2 ");
    // One Esc, then arrow keys (escape sequences of their own): the answer runs to its end.
    await term.sendKeys("Escape");
    await term.sendKeys("Up", "Down", "Left", "Right", "Up");
    await term.sendKeys("Down");
    let screen = await term.waitFor(answered("the-end"));
    expect(screen).not.toContain("(interrupted)");

    slowAnswer(rig);
    await send(term, "second slow one");
    await term.waitForCount("word2 ", 2);
    await term.sendKeys("Escape");
    await term.sendKeys("Escape");
    screen = await term.waitFor((s) => s.includes("(interrupted)") && atPrompt()(s));
    expect(screen.split("> second slow one\n")[1]).not.toContain("the-end");
    expect(rig.requests()).toHaveLength(2);
  });
});
