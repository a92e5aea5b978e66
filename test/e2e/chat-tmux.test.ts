/**
 * End to end: `ion chat` in a real terminal (tmux), against one fake OpenAI-wire server for the file.
 * Every test has its own sandbox, tmux server and API key; the server routes each request to the
 * replies queued by the test whose key it carries, so a test that fails cannot leave replies for the
 * next one. Waits poll the screen; nothing sleeps for a fixed time.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { textOf, transcript, useOpenAIServer, type WireMessage } from "../support/e2e.ts";
import { type FakeResponse, FIXTURES, type RecordedRequest } from "../support/fake-llm.ts";
import { KeyedReplies, keyOf } from "../support/keyed-replies.ts";
import { HAS_TMUX, processesWith, Terminal } from "../support/tmux.ts";
import { type ScriptedReply, stallMidStream, streamReply } from "../support/wire-scripts.ts";

if (!HAS_TMUX) console.warn("chat-tmux: tmux is not installed; the terminal tests are skipped");
afterEach(() => Terminal.closeAll());

// Longer than any wait inside a test, so a wait that fails reports the screen, not a bare timeout.
setDefaultTimeout(30_000);

const { server, env: serverEnv } = useOpenAIServer("sk-test-chat-tmux-unused");
const MODEL = "openai/gpt-4o-mini";
const STATUS = /openai\/gpt-4o-mini · \d+% ctx · cost unknown · \d+\.\ds/;
const PROMPT = "> ";

/** Replies queued per API key: the server's queue holds one router per reply, in any order. */
const replies = new KeyedReplies(server);
let rigs = 0;

type Message = WireMessage;
type Body = { model: string; messages: Message[] };

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** One test's world: a sandbox with a model configured, its own key, and the chat in a terminal. */
class Rig {
  readonly box = new Sandbox();
  readonly key = `sk-test-chat-tmux-${process.pid}-${++rigs}`;
  private readonly terms: Terminal[] = [];

  constructor() {
    replies.open(this.key);
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return this.box.env({ ...serverEnv, OPENAI_API_KEY: this.key, ...extra });
  }

  async configure(config: Record<string, unknown> = { model: MODEL }): Promise<void> {
    await this.box.writeConfig(config);
  }

  /** Starts `ion chat …` (default `chat`) in a fresh terminal and waits for its prompt. */
  async chat(
    args: string[] = ["chat"],
    options: { env?: Record<string, string>; cols?: number; rows?: number; prompt?: string } = {},
  ): Promise<Terminal> {
    const env = this.env(options.env);
    for (const [name, value] of Object.entries(options.env ?? {})) if (value === "") delete env[name];
    const term = await Terminal.start({
      args,
      env,
      cwd: this.box.workspace,
      cols: options.cols ?? 100,
      rows: options.rows ?? 30,
    });
    this.terms.push(term);
    await term.waitFor((screen) => screen.endsWith(`\n${options.prompt ?? PROMPT}`), 10_000);
    return term;
  }

  /** Queues a streamed reply for this test's next model request. */
  reply(reply: ScriptedReply, extra: Partial<FakeResponse> = {}): void {
    this.respond({ ...streamReply("openai", reply), ...extra });
  }

  respond(response: FakeResponse): void {
    replies.push(this.key, response);
  }

  /** This test's model requests so far. */
  requests(): RecordedRequest[] {
    return server.requests.filter((r) => keyOf(r) === this.key && r.path.endsWith("/chat/completions"));
  }

  async waitForRequests(count: number, timeoutMs = 5000): Promise<RecordedRequest[]> {
    await until(() => this.requests().length >= count, `${count} model request(s)`, timeoutMs);
    return this.requests();
  }

  [Symbol.dispose](): void {
    for (const term of this.terms) term.close();
    replies.close(this.key);
    this.box[Symbol.dispose]();
  }
}

/** Types a message and presses Enter. */
async function send(term: Terminal, text: string): Promise<void> {
  await term.sendText(text);
  await term.sendKeys("Enter");
}

/** The screen ends with an empty prompt again. */
function atPrompt(prompt = PROMPT): (screen: string) => boolean {
  return (screen) => screen.endsWith(`\n${prompt}`);
}

describe.skipIf(!HAS_TMUX)("ion chat in a terminal", () => {
  test("a prompt streams its answer, then the dim status line and the prompt again", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    expect(await term.capture()).toBe(`ion: new session · ${MODEL} · /help for commands\n${PROMPT}`);
    rig.reply({ text: "Hello from the fake model, streamed in pieces." });
    await send(term, "hello there");
    const screen = await term.waitFor((s) => STATUS.test(s) && atPrompt()(s));
    const lines = screen.split("\n");
    expect(lines.slice(1, 3)).toEqual(["> hello there", "Hello from the fake model, streamed in pieces."]);
    expect(lines[3]).toMatch(new RegExp(`^${STATUS.source}$`));
    expect(lines[4]).toBe(PROMPT);
    const [request] = await rig.waitForRequests(1);
    expect((request!.body as Body).model).toBe("gpt-4o-mini");
    expect(transcript(request!)).toEqual(["user: hello there"]);
  });

  test("Ctrl+C in the middle of a slow stream stops it; the next prompt works", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
    rig.reply({ text: `${words.join(" ")} the-end` }, { chunkDelayMs: 100 });
    await send(term, "tell me slowly");
    await term.waitFor("word2 ");
    await term.sendKeys("C-c");
    let screen = await term.waitFor(atPrompt());
    expect(screen).toContain("(interrupted)");
    expect(screen).not.toContain("the-end");

    rig.reply({ text: "Second answer." });
    await send(term, "and now quickly");
    screen = await term.waitFor((s) => s.includes("Second answer.") && atPrompt()(s));
    // The cancelled turn has its status line too (no context figure yet: no usage was reported).
    expect(screen).toMatch(
      /\(interrupted\)\nopenai\/gpt-4o-mini · cost unknown · \d+\.\ds\n> and now quickly\n/,
    );
    expect(screen).toMatch(new RegExp(`Second answer\\.\\n${STATUS.source}\\n> $`));
    const requests = await rig.waitForRequests(2);
    // What was said before the cancel is kept, exactly as it was shown.
    const shown = screen.split("> tell me slowly\n")[1]!.split("\n(interrupted)")[0]!;
    expect(shown).toMatch(/^word0 word1 word2 /);
    expect(transcript(requests[1]!)).toEqual([
      "user: tell me slowly",
      `assistant: ${shown}`,
      "user: and now quickly",
    ]);
  });

  test("Ctrl+C during a bash call kills the command and returns to the prompt", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat(["chat", "-y"], { prompt: "[auto] > " });
    // A unique duration makes the process findable in /proc: `sleep 30.<digits>`.
    const marker = `sleep 30.${String(Math.random()).slice(2, 11)}`;
    rig.reply({ toolCalls: [{ name: "bash", input: { command: marker } }] });
    await send(term, "wait a bit");
    await term.waitFor(`● bash  ${marker}`);
    await until(() => processesWith(marker).length > 0, "the sleep to start");
    await term.sendKeys("C-c");
    const screen = await term.waitFor(atPrompt("[auto] > "), 8000);
    expect(screen).toMatch(
      new RegExp(
        `● bash {2}${marker.replace(".", "\\.")}\\n {2}✗ killed · \\d+\\.\\ds\\n\\(interrupted\\)\\n`,
      ),
    );
    await until(() => processesWith(marker).length === 0, "the sleep to be killed");
    // The cancelled turn asks the model nothing more.
    expect(rig.requests()).toHaveLength(1);
  });

  test("approval: y runs the call, n denies it, and the answers never enter the input history", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    rig.reply({ toolCalls: [{ name: "bash", input: { command: "echo approved-output" } }] });
    rig.reply({ text: "It printed approved-output." });
    await send(term, "run the echo");
    await term.waitFor("Allow bash: echo approved-output? [y]es / [n]o / [a]lways ");
    await send(term, "y");
    await term.waitFor((s) => s.includes("It printed approved-output.") && atPrompt()(s));
    let requests = await rig.waitForRequests(2);
    const toolResult = (requests[1]!.body as Body).messages.find((m) => m.role === "tool");
    expect(JSON.parse(textOf(toolResult!))).toEqual({
      stdout: "approved-output\n",
      stderr: "",
      exit_code: 0,
    });

    rig.reply({ toolCalls: [{ name: "bash", input: { command: "echo denied-output" } }] });
    rig.reply({ text: "Understood, not running it." });
    await send(term, "run the other echo");
    await term.waitFor("Allow bash: echo denied-output? [y]es / [n]o / [a]lways ");
    await send(term, "n");
    const screen = await term.waitFor((s) => s.includes("Understood, not running it.") && atPrompt()(s));
    requests = await rig.waitForRequests(4);
    const denial = (requests[3]!.body as Body).messages.filter((m) => m.role === "tool").at(-1);
    expect(textOf(denial!)).toStartWith("permission denied: bash was not run");
    expect(screen).toMatch(
      /\n> run the echo\nAllow bash: echo approved-output\? \[y\]es \/ \[n\]o \/ \[a\]lways y\n● bash {2}echo approved-output\n {2}✓ \d+\.\ds\nIt printed approved-output\.\n/,
    );
    expect(screen).toContain(
      "\n> run the other echo\nAllow bash: echo denied-output? [y]es / [n]o / [a]lways n\n● bash  echo denied-output\n  ✗ denied\n",
    );

    // ↑ recalls the last message, not the "n" answered to the question.
    await term.sendKeys("Up");
    await term.waitFor((s) => s.endsWith("\n> run the other echo"));
  });

  test("approval: a (always) lets a second call of the same tool run without asking", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    rig.reply({ toolCalls: [{ name: "bash", input: { command: "echo first-call" } }] });
    rig.reply({ toolCalls: [{ name: "bash", input: { command: "echo second-call" } }] });
    rig.reply({ text: "Both ran." });
    await send(term, "run two echos");
    await term.waitFor("Allow bash: echo first-call?");
    await send(term, "a");
    const screen = await term.waitFor((s) => s.includes("Both ran.") && atPrompt()(s));
    expect(screen.split("Allow bash").length - 1).toBe(1);
    expect(screen).toContain("● bash  echo second-call");
    const requests = await rig.waitForRequests(3);
    const tools = (requests[2]!.body as Body).messages.filter((m) => m.role === "tool").map(textOf);
    expect(tools).toHaveLength(2);
    expect(JSON.parse(tools[1]!)).toEqual({ stdout: "second-call\n", stderr: "", exit_code: 0 });
  });

  test("Tab completes /he to /help; a mistyped /modle gets a did-you-mean; neither reaches the model", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    await term.sendText("/he");
    await term.sendKeys("Tab");
    await term.waitFor((s) => s.endsWith("\n> /help "));
    await term.sendKeys("Enter");
    let screen = await term.waitFor(atPrompt());
    expect(screen).toMatch(/^\/model \[provider\/model\]\s+switch model/m);
    expect(screen).toContain("Ctrl+T cycles thinking");

    await send(term, "/modle");
    screen = await term.waitFor("unknown command /modle");
    await term.waitFor(atPrompt());
    expect(screen).toContain("unknown command /modle — did you mean /model, /mode?");
    expect(rig.requests()).toHaveLength(0);
  });

  test("/skills lists them; /skill with Tab completion activates one, and only then its body is sent", async () => {
    using rig = new Rig();
    await rig.configure();
    const dir = join(rig.box.configDir, "skills", "release-notes");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "SKILL.md"),
      "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nRELEASE-NOTES-BODY\n",
    );
    const term = await rig.chat();
    await send(term, "/skills");
    let screen = await term.waitFor("/skill NAME puts");
    expect(screen).toMatch(/^release-notes +Write release notes from the git log\.$/m);
    expect(screen).toMatch(/^developer +/m);

    rig.reply({ text: "before" });
    await send(term, "first");
    await term.waitFor((s) => STATUS.test(s) && atPrompt()(s));
    await term.sendText("/skill rel");
    await term.sendKeys("Tab");
    await term.waitFor((s) => s.endsWith("\n> /skill release-notes"));
    await term.sendKeys("Enter");
    screen = await term.waitFor("skill release-notes is active");
    rig.reply({ text: "after" });
    await send(term, "second");
    const [before, after] = await rig.waitForRequests(2);
    const system = (r: RecordedRequest) => textOf((r.body as Body).messages[0]!);
    expect(system(before!)).not.toContain("RELEASE-NOTES-BODY");
    expect(system(after!)).toContain("RELEASE-NOTES-BODY");
  });

  test("/context shows what fills the window, part by part", async () => {
    using rig = new Rig();
    await rig.configure({ model: MODEL, context_window: 128_000 });
    writeFileSync(join(rig.box.workspace, "AGENTS.md"), "Use tabs, not spaces.\n");
    const term = await rig.chat();
    await send(term, "/context");
    const screen = await term.waitFor("total (estimate)");
    expect(screen).toMatch(/^system prompt +\d+ +\d+\.\d%$/m);
    expect(screen).toContain(join(rig.box.workspace, "AGENTS.md").slice(-20));
    expect(screen).toMatch(/^skills index +\d+/m);
    expect(screen).toMatch(/^tools +\d+/m);
    expect(screen).toMatch(/^history +\d+/m);
    expect(screen).toMatch(/^total \(estimate\) +\d+ +\d+\.\d% +of 128000 tokens$/m);
    expect(rig.requests()).toHaveLength(0);
  });

  test("/model opens a fuzzy picker; typing filters, Enter picks, the next request uses that model", async () => {
    using rig = new Rig();
    await rig.configure();
    const modelsDev = readFileSync(join(FIXTURES, "models-dev-snapshot.json"), "utf8");
    const openaiModels = readFileSync(join(FIXTURES, "models/openai-v1-models.json"), "utf8");
    const json = { "content-type": "application/json" };
    server.enqueue({ pathSuffix: "/models-dev/api.json", headers: json, body: modelsDev });
    server.enqueue({ pathSuffix: "/v1/models", headers: json, body: openaiModels });
    const term = await rig.chat(["chat"], { env: { ION_MODELS_URL: `${server.url}/models-dev/api.json` } });
    await send(term, "/model");
    await term.waitFor("model-id-1");
    await term.sendText("id-2");
    await term.waitFor((s) => s.includes("Search: id-2") && !s.includes("model-id-1"));
    await term.sendKeys("Enter");
    await term.waitFor("model: openai/model-id-2");
    await term.waitFor(atPrompt());
    rig.reply({ text: "From the picked model." });
    await send(term, "which model?");
    await term.waitFor("From the picked model.");
    const [request] = await rig.waitForRequests(1);
    expect((request!.body as Body).model).toBe("model-id-2");
  });

  test("/clear starts a new session: the next request has none of the earlier messages", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    rig.reply({ text: "Noted: apple." });
    await send(term, "remember apple");
    await term.waitFor("Noted: apple.");
    await term.waitFor(atPrompt());
    await send(term, "/clear");
    await term.waitFor("new session; the previous one is kept");
    await term.waitFor(atPrompt());
    rig.reply({ text: "I know of no fruit." });
    await send(term, "which fruit?");
    await term.waitFor("I know of no fruit.");
    const requests = await rig.waitForRequests(2);
    expect(transcript(requests[1]!)).toEqual(["user: which fruit?"]);
    await term.waitFor(atPrompt());
    expect(rig.box.sessionFiles()).toHaveLength(2);
  });

  test("/resume ID and the /resume picker: the next request carries the resumed conversation", async () => {
    using rig = new Rig();
    // Exactly the resumed conversation: no memory of the other session recalled into it.
    await rig.configure({ model: MODEL, memory: { enabled: false } });
    const ids: string[] = [];
    for (const fruit of ["banana", "cherry"]) {
      rig.reply({ text: `Noted: ${fruit}.` });
      const run = await rig.box.run(["run", "-o", "json", `remember ${fruit}`], { env: rig.env() });
      expect(run.code).toBe(0);
      ids.push((JSON.parse(run.stdout) as { session_id: string }).session_id);
    }
    const term = await rig.chat(["chat", "--new"]);
    // The picker lists both saved sessions; typing filters them; Enter resumes the one left.
    await send(term, "/resume");
    await term.waitFor((s) => s.includes("remember banana") && s.includes("remember cherry"));
    await term.sendText("cherry");
    await term.waitFor((s) => s.includes("Search: cherry") && !s.includes("remember banana"));
    await term.sendKeys("Enter");
    await term.waitFor(`resumed ${ids[1]!.slice(0, 13)} · remember cherry · 2 messages`);
    await term.waitFor(atPrompt());
    rig.reply({ text: "It was cherry." });
    await send(term, "which fruit?");
    await term.waitFor("It was cherry.");
    let requests = await rig.waitForRequests(3);
    expect(transcript(requests[2]!)).toEqual([
      "user: remember cherry",
      "assistant: Noted: cherry.",
      "user: which fruit?",
    ]);
    await term.waitFor(atPrompt());

    await send(term, `/resume ${ids[0]}`);
    await term.waitFor(`resumed ${ids[0]!.slice(0, 13)} · remember banana · 2 messages`);
    await term.waitFor(atPrompt());
    rig.reply({ text: "It was banana." });
    await send(term, "and this one?");
    await term.waitFor("It was banana.");
    requests = await rig.waitForRequests(4);
    expect(transcript(requests[3]!)).toEqual([
      "user: remember banana",
      "assistant: Noted: banana.",
      "user: and this one?",
    ]);
  });

  test("Ctrl+D on an empty line exits 0", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    await term.sendKeys("C-d");
    expect(await term.waitForExit()).toBe(0);
    // The prompt's line is ended: what the shell prints next starts on a line of its own.
    expect((await term.capture()).split("\n").slice(0, 3)).toEqual([
      `ion: new session · ${MODEL} · /help for commands`,
      PROMPT,
      "ION-EXIT=0",
    ]);
  });

  test("Ctrl+C clears a typed line; twice on an empty line it exits 0", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    await term.sendText("half a thought");
    await term.waitFor("> half a thought");
    await term.sendKeys("C-c");
    await term.waitFor((s) => !s.includes("half a thought") && atPrompt()(s));
    await term.sendKeys("C-c");
    await term.waitFor("(press Ctrl+C again to exit, or Ctrl+D)");
    await term.sendKeys("C-c");
    expect(await term.waitForExit()).toBe(0);
    expect(await term.capture()).toContain("\n(press Ctrl+C again to exit, or Ctrl+D)\n> \nION-EXIT=0");
    expect(rig.requests()).toHaveLength(0);
  });

  test("a resize while typing leaves the typed text on the prompt line, drawn once", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat(["chat"], { cols: 100, rows: 30 });
    const typed = "the quick brown fox jumps over the lazy dog and keeps on running";
    await term.sendText(typed);
    await term.waitFor((s) => s.endsWith(`\n> ${typed}`));
    // Narrower than the line: the terminal re-wraps it onto two rows; ion redraws it from its first row.
    await term.resize(40, 20);
    await term.sendText(" far");
    let screen = await term.waitFor((s) => s.replaceAll("\n", "").endsWith(`> ${typed} far`));
    expect(screen.split("\n").filter((l) => l.startsWith("> "))).toEqual([`> ${typed}`.slice(0, 40)]);
    await term.resize(100, 30);
    await term.sendText(" away");
    screen = await term.waitFor((s) => s.endsWith(`\n> ${typed} far away`));
    expect(screen.split("the quick brown fox")).toHaveLength(2);
    rig.reply({ text: "Over the lazy dog." });
    await term.sendKeys("Enter");
    await term.waitFor("Over the lazy dog.");
    const [request] = await rig.waitForRequests(1);
    expect(transcript(request!)).toEqual([`user: ${typed} far away`]);
  });

  test("a resize while an answer streams leaves the answer as it was written", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    const text = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
    rig.reply({ text }, { chunkDelayMs: 60 });
    await send(term, "stream slowly");
    await term.waitFor("beta ");
    await term.resize(90, 30);
    const screen = await term.waitFor(atPrompt());
    expect(screen.split("\n").slice(1, 3)).toEqual(["> stream slowly", text]);
  });

  test("NO_COLOR=1: no escape sequence on the screen", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat(["chat"], { env: { NO_COLOR: "1" } });
    rig.reply({ text: "Code:\n```ts\nconst answer = 42;\n```\nDone." });
    await send(term, "show code");
    await term.waitFor((s) => s.includes("Done.") && atPrompt()(s));
    const screen = await term.captureWithEscapes();
    expect(screen).toContain("const answer = 42;");
    expect(screen).not.toContain("\x1b");
  });

  test("with colour, a code fence is highlighted and the status line dimmed", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat(["chat"], { env: { NO_COLOR: "" } });
    rig.reply({ text: "Code:\n```ts\nconst answer = 42;\n```\nDone." });
    await send(term, "show code");
    await term.waitFor((s) => s.includes("Done.") && atPrompt()(s));
    const lines = (await term.captureWithEscapes()).split("\n");
    const code = lines.find((l) => l.includes("answer"))!;
    expect(code).toContain("\x1b[");
    expect(Bun.stripANSI(code)).toBe("const answer = 42;");
    expect(lines.find((l) => l.includes("Code:"))).not.toContain("\x1b[3"); // prose is not coloured
    expect(lines.find((l) => l.includes("% ctx"))).toContain("\x1b[2m");
  });

  test("Ctrl+T then Shift+Tab: the prompt reads [low auto] > and the config file has both", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    await term.sendKeys("C-t");
    await term.waitFor((s) => s.endsWith("\n[low] > "));
    await term.sendKeys("BTab");
    await term.waitFor((s) => s.endsWith("\n[low auto] > "));
    const file = join(rig.box.configDir, "config.json");
    const read = () => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    await until(
      () => read().thinking === "low" && (read().permissions as { mode?: string })?.mode === "auto",
      "the config file to hold both",
    );
    expect(read()).toEqual({ model: MODEL, thinking: "low", permissions: { mode: "auto" } });
  });

  test("a multi-line bracketed paste is sent as one message with its newlines", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    await term.paste("line one\nline two\n  indented three");
    await term.waitFor((s) => s.endsWith("\n> [pasted text #1 +3 lines]"));
    rig.reply({ text: "Three lines received." });
    await term.sendKeys("Enter");
    await term.waitFor("Three lines received.");
    const [request] = await rig.waitForRequests(1);
    expect(transcript(request!)).toEqual(["user: line one\nline two\n  indented three"]);
  });

  test("a pasted message recalled with ↑ in a later chat sends its text, lines and all, not the paste's marker", async () => {
    using rig = new Rig();
    await rig.configure();
    let term = await rig.chat();
    await term.paste("multi\nline\nmessage");
    rig.reply({ text: "First time." });
    await term.sendKeys("Enter");
    await term.waitFor((s) => s.includes("First time.") && atPrompt()(s));
    await term.sendKeys("C-d");
    expect(await term.waitForExit()).toBe(0);

    term = await rig.chat(["chat", "--new"]);
    await term.sendKeys("Up");
    await term.waitFor((s) => s.endsWith("\n> multi\n| line\n| message"));
    rig.reply({ text: "Second time." });
    await term.sendKeys("Enter");
    await term.waitFor("Second time.");
    const requests = await rig.waitForRequests(2);
    expect(transcript(requests[0]!)).toEqual(["user: multi\nline\nmessage"]);
    expect(transcript(requests[1]!)).toEqual(["user: multi\nline\nmessage"]);
  });

  test("a trailing backslash continues the message on a second line", async () => {
    using rig = new Rig();
    await rig.configure();
    const term = await rig.chat();
    await send(term, "first part\\");
    await term.waitFor((s) => s.endsWith("\n… "));
    rig.reply({ text: "Both parts." });
    await send(term, "second part");
    await term.waitFor("Both parts.");
    const [request] = await rig.waitForRequests(1);
    expect(transcript(request!)).toEqual(["user: first part\nsecond part"]);
  });

  test("kill -9 mid-answer, then ion chat again: the session reopens with every completed turn", async () => {
    using rig = new Rig();
    await rig.configure();
    let term = await rig.chat();
    rig.reply({ text: "Answer one." });
    await send(term, "turn one");
    await term.waitFor((s) => s.includes("Answer one.") && atPrompt()(s));
    rig.respond(stallMidStream("openai", { text: "Partial answer that never ends" }));
    await send(term, "turn two");
    await term.waitFor("Partial");
    process.kill(term.pid, "SIGKILL");
    expect(await term.waitForExit()).toBe(128 + 9);

    term = await rig.chat();
    expect(await term.capture()).toMatch(/^ion: resumed [0-9a-f-]{13} "turn one" \(\d+ messages\) · /);
    rig.reply({ text: "Answer three." });
    await send(term, "turn three");
    await term.waitFor("Answer three.");
    const requests = await rig.waitForRequests(3);
    expect(transcript(requests[2]!)).toEqual([
      "user: turn one",
      "assistant: Answer one.",
      "user: turn two",
      "user: turn three",
    ]);
  });
});
