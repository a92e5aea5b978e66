/**
 * End to end, in a real terminal (tmux): the chat's comforts. Reopening a session shows its last
 * exchanges, dimmed (`-q` skips them); `/copy` puts the last answer on the clipboard through OSC 52
 * when no clipboard program is there (tmux, with `set-clipboard on`, keeps it as a paste buffer); a
 * turn longer than `chat.notify_after_s` rings the terminal's bell, a quick one does not. Every test has
 * its own sandbox, tmux server and API key; waits poll the screen, nothing sleeps for a fixed time.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import type { FakeResponse } from "../support/fake-llm.ts";
import { KeyedReplies } from "../support/keyed-replies.ts";
import { HAS_TMUX, Terminal } from "../support/tmux.ts";
import { type ScriptedReply, streamReply } from "../support/wire-scripts.ts";

if (!HAS_TMUX) console.warn("chat-comforts-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());
setDefaultTimeout(30_000);

const { server, env: serverEnv } = useOpenAIServer("sk-test-chat-comforts-unused");
const MODEL = "openai/gpt-4o-mini";
const PROMPT = "> ";
const replies = new KeyedReplies(server);
let rigs = 0;

/** A sandbox with its own key; the chat runs in fresh terminals. */
class Rig {
  readonly box = new Sandbox();
  readonly key = `sk-test-chat-comforts-${process.pid}-${++rigs}`;
  private readonly terms: Terminal[] = [];

  constructor() {
    replies.open(this.key);
  }

  /** `extra` values of "" remove the variable from the environment. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    const env = this.box.env({ ...serverEnv, OPENAI_API_KEY: this.key, ...extra });
    for (const [name, value] of Object.entries(extra)) if (value === "") delete env[name];
    return env;
  }

  async chat(args: string[], extra: Record<string, string> = {}): Promise<Terminal> {
    const term = await Terminal.start({
      args,
      env: this.env(extra),
      cwd: this.box.workspace,
      cols: 100,
      rows: 30,
    });
    this.terms.push(term);
    await term.waitFor(atPrompt, 10_000);
    return term;
  }

  reply(reply: ScriptedReply, extra: Partial<FakeResponse> = {}): void {
    replies.push(this.key, { ...streamReply("openai", reply), ...extra });
  }

  sessionIds(): string[] {
    return this.box.sessionFiles().map((f) => f.slice(0, -".jsonl.zst".length));
  }

  [Symbol.dispose](): void {
    // Before the sandbox goes: a terminal's PATH may point into it (tmux is found there).
    for (const term of this.terms) term.close();
    replies.close(this.key);
    this.box[Symbol.dispose]();
  }
}

const atPrompt = (screen: string) => screen.endsWith(`\n${PROMPT}`);

async function send(term: Terminal, text: string): Promise<void> {
  await term.sendText(text);
  await term.sendKeys("Enter");
}

/**
 * The text attributes in effect where `text` starts on a screen captured with escapes (tmux writes an
 * attribute only where it changes, so a dimmed block has one `ESC[2m` before its first line).
 */
function attributesAt(escaped: string, text: string): string[] {
  const at = escaped.indexOf(text);
  if (at === -1) throw new Error(`${JSON.stringify(text)} is not on screen:\n${Bun.stripANSI(escaped)}`);
  const sgr = escaped
    .slice(0, at)
    .split("\x1b[")
    .map((part) => /^([\d;]*)m/.exec(part)?.[1])
    .filter((params) => params !== undefined);
  return sgr.at(-1)?.split(";") ?? [];
}

/** tmux's bell flag for the chat's window: set when the program wrote BEL (the session is detached). */
function bellFlag(term: Terminal, env: Record<string, string>): string {
  const result = Bun.spawnSync(
    [
      "tmux",
      "-L",
      term.socket,
      "-f",
      "/dev/null",
      "display-message",
      "-p",
      "-t",
      "ion:0",
      "#{window_bell_flag}",
    ],
    { env, stdout: "pipe", stderr: "pipe" },
  );
  if (result.exitCode !== 0) throw new Error(`tmux display-message failed: ${result.stderr.toString()}`);
  return result.stdout.toString().trim();
}

async function waitForBell(term: Terminal, env: Record<string, string>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (bellFlag(term, env) !== "1") {
    if (Date.now() >= deadline)
      throw new Error(`no bell after ${timeoutMs} ms; screen:\n${await term.capture()}`);
    await Bun.sleep(50);
  }
}

describe.skipIf(!HAS_TMUX)("the chat's comforts in a terminal", () => {
  test("reopening a session shows its last exchanges, dimmed; -q does not; /resume shows them too", async () => {
    using rig = new Rig();
    await rig.box.writeConfig({ model: MODEL });
    writeFileSync(join(rig.box.workspace, "notes.txt"), "plums\n");
    let term = await rig.chat(["chat"]);
    rig.reply({ text: "First answer, line one.\nFirst answer, line two." });
    await send(term, "first question");
    await term.waitFor((s) => s.includes("line two.") && atPrompt(s));
    rig.reply({ toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] });
    rig.reply({ text: "The notes say plums." });
    await send(term, "second question");
    await term.waitFor((s) => s.includes("The notes say plums.") && atPrompt(s));
    await send(term, "/quit");
    expect(await term.waitForExit()).toBe(0);

    // Colours on, to see the view dimmed.
    term = await rig.chat(["chat"], { NO_COLOR: "" });
    const screen = await term.capture();
    expect(screen).toMatch(/^ion: resumed [0-9a-f-]{13} "first question"/);
    // The notice may wrap; the view is the lines between it and the prompt.
    const view = [
      "> first question",
      "  First answer, line one. …",
      "> second question",
      "  ● read_file  notes.txt",
      "  The notes say plums.",
    ].join("\n");
    expect(screen.endsWith(`\n${view}\n${PROMPT}`)).toBe(true);
    const escaped = await term.captureWithEscapes();
    for (const text of ["> first question", "First answer, line one.", "● read_file", "notes say plums"])
      expect(attributesAt(escaped, text)).toContain("2");
    await send(term, "/quit");
    expect(await term.waitForExit()).toBe(0);

    term = await rig.chat(["chat", "-q"]);
    const quiet = await term.capture();
    expect(quiet).toMatch(/^ion: resumed /);
    expect(quiet).not.toContain("first question\n");
    expect(quiet).not.toContain("plums");
    await send(term, "/quit");
    expect(await term.waitForExit()).toBe(0);

    const [id] = rig.sessionIds();
    term = await rig.chat(["chat", "--new"]);
    await send(term, `/resume ${id}`);
    await term.waitFor((s) => s.includes("  The notes say plums.") && atPrompt(s));
    expect(await term.capture()).toContain("\n> first question\n");
  });

  test("/copy with no clipboard program puts the last answer on the clipboard through OSC 52", async () => {
    using rig = new Rig();
    await rig.box.writeConfig({ model: MODEL });
    // A PATH with only a shell and tmux: no pbcopy, wl-copy, xclip or xsel, whatever this machine has.
    const bin = join(rig.box.root, "bin");
    mkdirSync(bin);
    for (const program of ["sh", "tmux"]) symlinkSync(Bun.which(program)!, join(bin, program));
    const term = await rig.chat(["chat"], { PATH: bin, DISPLAY: "", WAYLAND_DISPLAY: "" });
    const answer = "The answer is 42.\nSecond line — with ünïcode.";
    rig.reply({ text: answer });
    await send(term, "what is it?");
    await term.waitFor((s) => s.includes("ünïcode.") && atPrompt(s));
    expect(await term.clipboard()).toEqual([]);
    await send(term, "/copy");
    await term.waitFor((s) => s.includes("copied the last answer") && atPrompt(s));
    expect(await term.capture()).toContain(
      "copied the last answer (45 characters) via the terminal (OSC 52)",
    );
    expect(await term.clipboard()).toEqual([answer]);
  });

  test("/copy uses a clipboard program that can reach a display; if it fails, OSC 52 and why", async () => {
    using rig = new Rig();
    await rig.box.writeConfig({ model: MODEL });
    // A stand-in xclip on a PATH with only it, a shell and tmux: it keeps what it is given, or fails
    // once told to — after reading its input, as the real one does, so the failure is its exit status
    // and never a write to a pipe already closed.
    const bin = join(rig.box.root, "bin");
    const kept = join(rig.box.root, "clipboard.txt");
    const failing = join(rig.box.root, "xclip-fails");
    mkdirSync(bin);
    for (const program of ["sh", "tmux"]) symlinkSync(Bun.which(program)!, join(bin, program));
    const xclip = join(bin, "xclip");
    writeFileSync(
      xclip,
      `#!/bin/sh\n[ "$*" = "-selection clipboard" ] || exit 2\n[ -e '${failing}' ] && { ${Bun.which("cat")} > /dev/null; exit 1; }\nexec ${Bun.which("cat")} > '${kept}'\n`,
    );
    chmodSync(xclip, 0o755);
    const term = await rig.chat(["chat"], { PATH: bin, DISPLAY: ":99", WAYLAND_DISPLAY: "" });
    const answer = "Copy me, please.";
    rig.reply({ text: answer });
    await send(term, "what is it?");
    await term.waitFor((s) => s.includes(answer) && atPrompt(s));
    await send(term, "/copy");
    await term.waitFor((s) => s.includes("copied the last answer") && atPrompt(s));
    expect(await term.capture()).toContain("copied the last answer (16 characters) via xclip\n");
    expect(readFileSync(kept, "utf8")).toBe(answer);
    expect(await term.clipboard()).toEqual([]);

    writeFileSync(failing, "");
    await send(term, "/copy");
    await term.waitFor((s) => s.includes("(OSC 52)") && atPrompt(s));
    expect(await term.capture()).toContain(
      "copied the last answer (16 characters) via the terminal (OSC 52) (xclip exited with status 1)",
    );
    expect(await term.clipboard()).toEqual([answer]);
  });

  test("a turn longer than chat.notify_after_s rings the bell; a quick one does not", async () => {
    using rig = new Rig();
    await rig.box.writeConfig({ model: MODEL, chat: { notify_after_s: 1 } });
    const env = rig.env();
    const term = await rig.chat(["chat"]);
    rig.reply({ text: "Quick." });
    await send(term, "fast one");
    await term.waitFor((s) => s.includes("Quick.") && atPrompt(s));
    // Something after the turn has been drawn, so a bell written at its end would have been seen.
    await send(term, "/help");
    await term.waitFor((s) => s.includes("/copy") && atPrompt(s));
    expect(bellFlag(term, env)).toBe("0");

    const slow = streamReply("openai", { text: "Slow answer in several parts, each a little late." });
    rig.reply(
      { text: "Slow answer in several parts, each a little late." },
      {
        chunkDelayMs: Math.ceil(1500 / (slow.chunks!.length - 1)),
      },
    );
    await send(term, "slow one");
    await term.waitFor((s) => s.includes("a little late.") && atPrompt(s));
    await waitForBell(term, env);
  });

  test("no bell when a long turn ends while the user is typing", async () => {
    using rig = new Rig();
    await rig.box.writeConfig({ model: MODEL, chat: { notify_after_s: 1 } });
    const env = rig.env();
    const term = await rig.chat(["chat"]);
    const answer = "Slow answer in several parts, each a little late.";
    const slow = streamReply("openai", { text: answer });
    rig.reply({ text: answer }, { chunkDelayMs: Math.ceil(1500 / (slow.chunks!.length - 1)) });
    await send(term, "slow one");
    // Type ahead while the answer streams, as someone writing the next message does.
    let typed = 0;
    while (!(await term.capture()).includes("a little late.")) {
      await term.sendText("x");
      typed++;
      await Bun.sleep(150);
    }
    // The typed text waits on the next prompt.
    await term.waitFor((s) => s.endsWith(`\n${PROMPT}${"x".repeat(typed)}`));
    await term.sendKeys("C-u");
    // Something after the turn has been drawn, so a bell written at its end would have been seen.
    await send(term, "/help");
    await term.waitFor((s) => s.includes("/copy") && atPrompt(s));
    expect(typed).toBeGreaterThan(3);
    expect(bellFlag(term, env)).toBe("0");
  });
});
