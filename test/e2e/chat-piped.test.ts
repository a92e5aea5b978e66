/**
 * End to end: `ion` / `ion chat` with stdin a pipe — one turn per line (a trailing `\` joins the next),
 * answers alone on stdout with no escape codes, everything else on stderr, slash commands run and never
 * sent, and the usage and configuration errors of the command.
 */
import { describe, expect, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { textOf, transcript, useOpenAIServer, type WireMessage } from "../support/e2e.ts";

const KEY = "sk-test-chat-piped-0000000000000000042";
const MODEL = "openai/gpt-4o-mini";
const STATUS = /^openai\/gpt-4o-mini · (\d+% ctx · )?cost unknown · \d+\.\ds$/;
const { server, env } = useOpenAIServer(KEY);

type Message = WireMessage;

/** A sandbox with a model configured. */
async function configured(): Promise<Sandbox> {
  const box = new Sandbox();
  await box.writeConfig({ model: MODEL });
  return box;
}

/** Runs ion with `stdin` piped and returns the run plus the model requests it made. */
async function piped(box: Sandbox, args: string[], stdin: string) {
  const before = server.requests.length;
  const run = await box.run(args, { env, stdin });
  return { ...run, requests: server.requests.slice(before) };
}

describe("ion chat with piped stdin", () => {
  test("`printf 'hello\\n/quit\\n' | ion` answers on stdout, no escape codes, exit 0", async () => {
    using box = await configured();
    server.enqueueReply("openai", { text: "Hello! **How** can I help?" });
    const run = await piped(box, [], "hello\n/quit\n");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Hello! **How** can I help?\n");
    expect(run.stdout + run.stderr).not.toContain("\x1b");
    const stderr = run.stderr.trimEnd().split("\n");
    expect(stderr[0]).toBe(`ion: new session · ${MODEL} · /help for commands`);
    expect(stderr[1]).toMatch(STATUS);
    expect(stderr).toHaveLength(2);
    expect(run.requests).toHaveLength(1);
    expect(transcript(run.requests[0]!)).toEqual(["user: hello"]);
  });

  test("several lines are several turns of one session; EOF without /quit exits 0", async () => {
    using box = await configured();
    for (const answer of ["One.", "Two.", "Three."]) server.enqueueReply("openai", { text: answer });
    const run = await piped(box, ["chat"], "first\nsecond\n\nthird\n");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("One.\nTwo.\nThree.\n");
    expect(run.stderr.split("\n").filter((l) => STATUS.test(l))).toHaveLength(3);
    expect(run.requests).toHaveLength(3);
    expect(transcript(run.requests[2]!)).toEqual([
      "user: first",
      "assistant: One.",
      "user: second",
      "assistant: Two.",
      "user: third",
    ]);

    const list = await box.run(["sessions", "list", "--json"], { env });
    const sessions = JSON.parse(list.stdout) as { id: string; messages: number }[];
    expect(sessions).toHaveLength(1);
    const show = await box.run(["sessions", "show", "--json", sessions[0]!.id], { env });
    expect(show.code).toBe(0);
    const { header, entries } = JSON.parse(show.stdout) as {
      header: { title: string };
      entries: { type: string; message?: Message }[];
    };
    expect(header.title).toBe("first");
    const messages = entries.filter((e) => e.type === "message").map((e) => e.message!);
    expect(messages.map((m) => `${m.role}: ${textOf(m)}`)).toEqual([
      "user: first",
      "assistant: One.",
      "user: second",
      "assistant: Two.",
      "user: third",
      "assistant: Three.",
    ]);
  });

  test("a line ending in a backslash is joined to the next with a newline", async () => {
    using box = await configured();
    server.enqueueReply("openai", { text: "Joined." });
    const run = await piped(box, ["chat"], "first part\\\nsecond part\n");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Joined.\n");
    expect(run.requests).toHaveLength(1);
    expect(transcript(run.requests[0]!)).toEqual(["user: first part\nsecond part"]);
  });

  test("slash commands run on stderr and never reach the model", async () => {
    using box = await configured();
    server.enqueueReply("openai", { text: "Only this." });
    const run = await piped(
      box,
      ["chat"],
      "/help\n/cost\nthe question\n/model\n/quit\nnot read after /quit\n",
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Only this.\n");
    expect(run.stderr).toMatch(/^\/model \[provider\/model\]\s+switch model/m);
    expect(run.stderr).toMatch(/^this chat: 0 model requests · in 0 /m);
    expect(run.stderr).toContain(`model: ${MODEL}\n`);
    expect(run.requests).toHaveLength(1);
    expect(transcript(run.requests[0]!)).toEqual(["user: the question"]);
  });

  test("an unknown /command is told (with a did-you-mean when one is close) and nothing is sent", async () => {
    using box = await configured();
    const run = await piped(box, ["chat"], "/foo\n/hepl\n");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("unknown command /foo (/help lists them; nothing was sent)\n");
    expect(run.stderr).toMatch(
      /unknown command \/hepl — did you mean \/help\b.*\(\/help lists them; nothing was sent\)\n/,
    );
    expect(run.requests).toHaveLength(0);
  });

  test("an argument is a usage error: exit 64", async () => {
    using box = await configured();
    const run = await piped(box, ["chat", "extra-arg"], "");
    expect(run.code).toBe(64);
    expect(run.stdout).toBe("");
    expect(run.stderr).toStartWith('ion: unexpected argument "extra-arg" for "ion chat"\n');
    expect(run.requests).toHaveLength(0);
  });

  test("--new with -r is a usage error: exit 64", async () => {
    using box = await configured();
    const run = await piped(box, ["chat", "--new", "-r", "0123"], "");
    expect(run.code).toBe(64);
    expect(run.stderr).toBe("ion: --new and --resume cannot be used together\n");
  });

  test("no model configured and stdin not a terminal: exit 1 with the commands to run, as ion run", async () => {
    using box = new Sandbox();
    const chat = await piped(box, ["chat"], "hello\n");
    const run = await box.run(["run", "hello"], { env });
    expect(chat.code).toBe(1);
    expect(chat.stdout).toBe("");
    expect(chat.stderr).toBe(
      [
        "ion: no model configured (found in the environment: OPENAI_API_KEY)",
        "  hint: run `ion config set model openai/MODEL` (`ion models --provider openai` lists them), or `ion config init` on a terminal, or pass -m provider/model",
        "",
      ].join("\n"),
    );
    expect(chat.stderr).toBe(run.stderr);
    expect(chat.requests).toHaveLength(0);
  });
});
