/**
 * End to end: text ion did not write — a model's answer and thinking, tool inputs and output, file
 * names, a repository's skills, a saved session — reaches human-readable output without its control
 * sequences (tab and newline kept), also when that output is a file someone `cat`s later; JSON output
 * keeps the exact text. The terminal cases (a live chat, approval questions) are in
 * terminal-text-tmux.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { NewEntry } from "../../src/history/schema.ts";
import { SessionStore } from "../../src/history/store.ts";
import { ionCommand, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { writeWithDirs } from "../support/files.ts";
import { jsonResponse } from "../support/stream-helpers.ts";

const KEY = "sk-test-terminal-text-000000000000042";
const MODEL = "openai/gpt-4o-mini";
const { server, env } = useOpenAIServer(KEY);

const ESC = "\x1b";
/** Clears the screen, renames the window, writes the clipboard, erases a line, colours text red. */
const HOSTILE = `${ESC}[2J${ESC}]0;pwned-title\x07${ESC}]52;c;UFdORUQ=${ESC}\\${ESC}[2K\u009b31m\r`;

/** Anything a terminal would act on: ESC, BEL, CR, the other C0 controls but tab and newline, DEL, C1. */
function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
}

function controlsIn(text: string): string[] {
  return [...text]
    .filter((c) => isControl(c.codePointAt(0)!))
    .map((c) => `U+${c.codePointAt(0)!.toString(16)}`);
}

async function configured(): Promise<Sandbox> {
  const box = new Sandbox();
  await box.writeConfig({ model: MODEL });
  return box;
}

describe("ion run -o text", () => {
  test("the answer written to a file has no control sequences; -o json keeps the exact text", async () => {
    using box = await configured();
    const answer = `Done.${HOSTILE}\nSecond\tline 👍`;
    server.enqueueReply("openai", { text: answer });
    const file = join(box.root, "answer.txt");
    const child = Bun.spawn([...ionCommand(), "run", "summarise"], {
      cwd: box.workspace,
      env: box.env(env),
      stdin: "ignore",
      stdout: Bun.file(file),
      stderr: "pipe",
    });
    const code = await child.exited;
    expect(await new Response(child.stderr).text()).toBe("");
    expect(code).toBe(0);
    const written = readFileSync(file, "utf8");
    expect(controlsIn(written)).toEqual([]);
    expect(written).toBe("Done.\nSecond\tline 👍\n");

    server.enqueueReply("openai", { text: answer });
    const json = await box.run(["run", "-o", "json", "summarise"], { env });
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { result: string }).result).toBe(answer);
  });

  test("-v: the model's thinking on stderr has no control sequences either", async () => {
    using box = await configured();
    server.enqueueReply("openai", { thinking: `Planning${HOSTILE} quietly.`, text: "Fine." });
    const run = await box.run(["run", "-v", "go"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Fine.\n");
    expect(run.stderr).toContain("Planning\n quietly."); // the lone CR is a line break
    expect(controlsIn(run.stderr)).toEqual([]);
  });
});

describe("error lines", () => {
  test("a provider's error message is shown without its control sequences", async () => {
    using box = await configured();
    server.enqueue({
      ...jsonResponse(400, {
        error: { message: `bad request${HOSTILE} from the server`, type: "invalid_request_error" },
      }),
      pathSuffix: "/chat/completions",
    });
    const run = await box.run(["run", "go"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("bad request");
    expect(controlsIn(run.stderr)).toEqual([]);
  });
});

describe("ion chat with piped stdin", () => {
  test("a tool line naming a file with escape sequences in its name shows the name without them", async () => {
    using box = await configured();
    const name = `notes${ESC}]0;pwned-title\x07${ESC}[2J.txt`;
    writeWithDirs(join(box.workspace, name), `file body${HOSTILE}\n`);
    server.enqueueReply("openai", { toolCalls: [{ name: "read_file", input: { path: name } }] });
    server.enqueueReply("openai", {
      toolCalls: [{ name: "read_file", input: { path: `gone${ESC}[2J.txt` } }],
    });
    server.enqueueReply("openai", { text: `Read it.${HOSTILE}` });
    const run = await box.run([], { env, stdin: "read the notes\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Read it.\n");
    expect(run.stderr).toContain("● read_file  notes.txt\n");
    expect(run.stderr).toContain("● read_file  gone.txt\n");
    expect(controlsIn(run.stdout + run.stderr)).toEqual([]);
  });

  test("a tool line whose file name or command holds a newline marks that more follows the first line", async () => {
    using box = await configured();
    writeWithDirs(join(box.workspace, "notes\nsecond-part.txt"), "body\n");
    server.enqueueReply("openai", {
      toolCalls: [
        { name: "read_file", input: { path: "notes\nsecond-part.txt" } },
        { name: "bash", input: { command: "echo hi\r\nrm -rf ./important" } },
      ],
    });
    server.enqueueReply("openai", { text: "Done." });
    const run = await box.run([], { env, stdin: "read the notes\n" });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("● read_file  notes …\n");
    expect(run.stderr).toContain("● bash  echo hi …\n");
  });
});

describe("ion sessions", () => {
  /** A session in which every field a model or a tool filled holds escape sequences. */
  async function hostileSession(box: Sandbox): Promise<string> {
    const usage = {
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    const entries: NewEntry[] = [
      { type: "message", message: { role: "user", content: [{ type: "text", text: `hi${HOSTILE}` }] } },
      {
        type: "message",
        usage,
        stop_reason: "tool_use",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: `think${HOSTILE}ing` },
            { type: "text", text: `Answer${HOSTILE} text` },
            { type: "tool_use", id: "call_1", name: `read${ESC}[2Jfile`, input: { path: `a${HOSTILE}.txt` } },
          ],
        },
      },
      {
        type: "message",
        message: {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: `out${HOSTILE}put`, is_error: false },
          ],
        },
      },
      {
        type: "compaction",
        trigger: "auto",
        summary: `summary${HOSTILE}`,
        first_kept: 1,
        tokens_before: 100,
        tokens_after: 50,
        method: "summary",
      },
      {
        type: "run_end",
        subtype: "error_during_execution",
        num_turns: 1,
        usage,
        total_cost_usd: null,
        errors: [`server said${HOSTILE}`],
      },
    ];
    const writer = await SessionStore.forDataDir(box.dataDir).create({
      cwd: realpathSync(box.workspace),
      provider: "openai",
      model: "gpt-4o",
      title: `Title${HOSTILE}`,
    });
    await writer.append(entries);
    await writer.close();
    return writer.id;
  }

  test("show prints the transcript without control sequences; --json keeps them, escaped", async () => {
    using box = new Sandbox();
    const id = await hostileSession(box);
    const show = await box.run(["sessions", "show", id]);
    expect(show.code).toBe(0);
    expect(controlsIn(show.stdout)).toEqual([]);
    for (const text of [
      "Title\n",
      "thinking:",
      "┊ think\n  ┊ ing",
      "Answer\n text",
      "● readfile",
      "    out\n    put",
      "server said",
    ])
      expect(show.stdout).toContain(text);
    const json = await box.run(["sessions", "show", id, "--json"]);
    expect(json.stdout).toContain("Title\\u001b[2J\\u001b]0;pwned-title\\u0007");
  });

  test("export prints Markdown without control sequences, to stdout and to a file", async () => {
    using box = new Sandbox();
    const id = await hostileSession(box);
    const exported = await box.run(["sessions", "export", id]);
    expect(exported.code).toBe(0);
    expect(controlsIn(exported.stdout)).toEqual([]);
    expect(exported.stdout).toStartWith("# Title\n");
    const file = join(box.root, "session.md");
    expect((await box.run(["sessions", "export", id, "-o", file])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(exported.stdout);
  });
});

describe("ion skills", () => {
  function hostileSkill(box: Sandbox): void {
    writeWithDirs(
      join(box.workspace, ".ion/skills/deploy/SKILL.md"),
      `---\nname: deploy\ndescription: "Deploys safely\\e]0;pwned-title\\a\\e]52;c;UFdORUQ=\\e\\\\\\e[2J now"\n---\n# Deploy\n${HOSTILE}\nkubectl apply\n`,
    );
  }

  test("list and show print a repository's skill without its control sequences; --json keeps them", async () => {
    using box = new Sandbox();
    hostileSkill(box);
    const list = await box.run(["skills"]);
    expect(list.code).toBe(0);
    expect(controlsIn(list.stdout + list.stderr)).toEqual([]);
    expect(list.stdout).toMatch(/\ndeploy +Deploys safely now +\S+\/\.ion\/skills\/deploy\/SKILL\.md +yes\n/);

    const show = await box.run(["skills", "show", "deploy"]);
    expect(show.code).toBe(0);
    expect(show.stdout).toBe("# Deploy\n\nkubectl apply\n");
    expect(controlsIn(show.stdout + show.stderr)).toEqual([]);

    const chat = await box.run([], { env: { ...env, ION_MODEL: MODEL }, stdin: "/skills\n/skill deploy\n" });
    expect(chat.stdout + chat.stderr).toContain("deploy");
    expect(chat.stdout + chat.stderr).toContain("Deploys safely now");
    expect(controlsIn(chat.stdout + chat.stderr)).toEqual([]);

    const json = await box.run(["skills", "--json"]);
    const deploy = (JSON.parse(json.stdout) as { name: string; description: string }[]).find(
      (s) => s.name === "deploy",
    );
    expect(deploy?.description).toBe(
      `Deploys safely${ESC}]0;pwned-title\x07${ESC}]52;c;UFdORUQ=${ESC}\\${ESC}[2J now`,
    );
  });
});
