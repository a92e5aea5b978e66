/**
 * End to end: Claude Code's flag names on `ion run`, `--input-format stream-json` (a multi-turn
 * conversation over one pipe), and usage errors that still print their one result object.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { AnyResultSchema, parseStreamJson, ResultSchema } from "../support/output-schemas.ts";

const { server, env } = useOpenAIServer("test-key-claude-flags");
const MODEL = ["-m", "openai/gpt-4o-mini"];
type Body = { messages: { role: string; content: unknown }[] };
const lastBody = () => server.requests.at(-1)!.body as Body;
const user = (text: string) => JSON.stringify({ type: "user", message: { role: "user", content: text } });

describe("Claude Code's flags", () => {
  test("--include-partial-messages, --dangerously-skip-permissions, --system-prompt, --append-system-prompt", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ id: "c1", name: "write_file", input: { path: "a.txt", content: "A" } }],
    });
    server.enqueueReply("openai", { text: "done" });
    const run = await box.run(
      [
        "run",
        "--model",
        "openai/gpt-4o-mini",
        "-o",
        "stream-json",
        "--include-partial-messages",
        "--dangerously-skip-permissions",
        "--system-prompt",
        "BASE-PREAMBLE",
        "--append-system-prompt",
        "APPENDED-TEXT",
        "write it",
      ],
      { env },
    );
    expect(run.code).toBe(0);
    const { init, middle } = parseStreamJson(jsonLines(run.stdout));
    expect(init).toMatchObject({ permission_mode: "auto", permissionMode: "bypassPermissions" });
    expect(middle.some((l) => l.type === "stream_event")).toBe(true);
    expect(readFileSync(join(box.workspace, "a.txt"), "utf8")).toBe("A");
    const system = JSON.stringify(lastBody().messages[0]);
    expect(system).toContain("BASE-PREAMBLE");
    expect(system.indexOf("APPENDED-TEXT")).toBeGreaterThan(system.indexOf("BASE-PREAMBLE"));
  });

  test("--permission-mode acceptEdits lets file edits through and still denies bash without a terminal", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [
        { id: "w1", name: "write_file", input: { path: "b.txt", content: "B" } },
        { id: "b1", name: "bash", input: { command: "touch ran.txt" } },
      ],
    });
    server.enqueueReply("openai", { text: "ok" });
    const run = await box.run(
      ["run", ...MODEL, "-o", "stream-json", "--permission-mode", "acceptEdits", "go"],
      {
        env,
      },
    );
    expect(run.code).toBe(0);
    const { init, result } = parseStreamJson(jsonLines(run.stdout));
    expect(init).toMatchObject({ permission_mode: "ask", permissionMode: "acceptEdits" });
    expect(existsSync(join(box.workspace, "b.txt"))).toBe(true);
    expect(existsSync(join(box.workspace, "ran.txt"))).toBe(false);
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual(["bash"]);
  });

  test("--permission-mode plan is read-only: only read tools are offered", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "planned" });
    const run = await box.run(
      ["run", ...MODEL, "-o", "stream-json", "--permission-mode", "plan", "plan it"],
      { env },
    );
    expect(run.code).toBe(0);
    const { init } = parseStreamJson(jsonLines(run.stdout));
    expect(init).toMatchObject({ permission_mode: "read", permissionMode: "plan" });
    expect(init.tools).not.toContain("bash");
    expect(init.tools).not.toContain("write_file");
  });

  test("a bad --permission-mode, and -y with plan, are usage errors", async () => {
    using box = new Sandbox();
    const bad = await box.run(["run", ...MODEL, "--permission-mode", "yolo", "x"], { env });
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("--permission-mode must be one of");
    const both = await box.run(["run", ...MODEL, "-y", "--permission-mode", "plan", "x"], { env });
    expect(both.code).toBe(64);
  });
});

describe("--input-format stream-json", () => {
  test("three user messages over one pipe: three turns of one session, each with its result", async () => {
    using box = new Sandbox();
    for (const text of ["one", "two", "three"]) server.enqueueReply("openai", { text });
    const stdin = [
      user("first"),
      JSON.stringify({
        type: "user",
        message: { role: "user", content: [{ type: "text", text: "second" }] },
      }),
      "not json",
      user("third"),
      "",
    ].join("\n");
    const run = await box.run(["run", ...MODEL, "--input-format", "stream-json", "-o", "stream-json"], {
      env,
      stdin,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("stdin line 3 skipped: not JSON");
    const lines = jsonLines(run.stdout);
    const results = lines.filter((l) => l.type === "result").map((l) => ResultSchema.parse(l));
    expect(results.map((r) => r.result)).toEqual(["one", "two", "three"]);
    expect(new Set(results.map((r) => r.session_id)).size).toBe(1);
    // The third request carries the whole conversation.
    const roles = lastBody().messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    const show = await box.run(["sessions", "show", results[0]!.session_id], { env });
    for (const text of ["first", "second", "third", "one", "two", "three"])
      expect(show.stdout).toContain(text);
  });

  test("a skipped line's quoted type reaches stderr without its terminal control characters", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "done" });
    // JSON.stringify leaves C1 controls (U+009B is CSI) and DEL as they are.
    const stdin = [JSON.stringify({ type: "\u009b2J\u007fx" }), user("hi"), ""].join("\n");
    const run = await box.run(["run", ...MODEL, "--input-format", "stream-json", "-o", "stream-json"], {
      env,
      stdin,
    });
    expect(run.code).toBe(0);
    // The whole sequence (CSI 2J: clear the screen) goes, not just its introducer.
    expect(run.stderr).toContain('stdin line 1 skipped: type is "x", not "user"');
    expect(run.stderr).not.toMatch(/[\u007f-\u009f]/);
  });

  test("needs -o stream-json, and takes no prompt arguments", async () => {
    using box = new Sandbox();
    const text = await box.run(["run", ...MODEL, "--input-format", "stream-json"], { env, stdin: user("x") });
    expect(text.code).toBe(64);
    expect(text.stderr).toContain("--input-format stream-json needs -o stream-json");
    const args = await box.run(
      ["run", ...MODEL, "--input-format", "stream-json", "-o", "stream-json", "hi"],
      {
        env,
        stdin: user("x"),
      },
    );
    expect(args.code).toBe(64);
    // No prompt was read (the messages were to come from stdin): nothing saved, no session named.
    expect(AnyResultSchema.parse(jsonLines(args.stdout).at(-1))).toMatchObject({
      subtype: "error_during_execution",
      session_id: null,
    });
  });
});

describe("usage errors with -o json / stream-json", () => {
  for (const argv of [
    ["run", "-o", "json", "--no-such-flag", "x"],
    ["run", "--output-format=stream-json", "--max-turns"],
    ["run", "-ojson", "--output-format", "json", "--thinking", "loud", "x"],
  ]) {
    test(`${argv.join(" ")}: one result object, then exit 64`, async () => {
      using box = new Sandbox();
      writeFileSync(join(box.configDir, "config.json"), JSON.stringify({ model: "openai/gpt-4o-mini" }));
      const run = await box.run(argv, { env });
      expect(run.code).toBe(64);
      const lines = jsonLines(run.stdout);
      expect(lines).toHaveLength(1);
      const result = AnyResultSchema.parse(lines[0]);
      expect(result).toMatchObject({
        subtype: "error_during_execution",
        is_error: true,
        error_kind: "usage",
      });
      expect(result.errors[0]).toBeString();
      expect(run.stderr).toStartWith("ion: ");
    });
  }
});

describe("odd command lines", () => {
  test('-m "", -m openai/, -m /x and an unknown provider are usage errors; --cwd "" too', async () => {
    using box = new Sandbox();
    for (const model of ["", "openai/", "/x", "nope/model"]) {
      const run = await box.run(["run", "-m", model, "hi"], { env });
      expect(run.code).toBe(64);
      expect(run.stderr.split("\n")[0]).toStartWith("ion: ");
    }
    const cwd = await box.run(["run", ...MODEL, "--cwd", "", "hi"], { env });
    expect(cwd.code).toBe(64);
    expect(cwd.stderr).toContain("--cwd needs a directory");
  });

  test("stdin that is a directory is one clear line", async () => {
    using box = new Sandbox();
    const shell = Bun.spawnSync(
      [
        "bash",
        "-c",
        `exec "$@" < /`,
        "bash",
        ...(await import("../support/cli.ts")).ionCommand(),
        "run",
        ...MODEL,
      ],
      {
        env: box.env(env),
        cwd: box.workspace,
      },
    );
    expect(shell.exitCode).toBe(1);
    expect(shell.stderr.toString()).toBe("ion: cannot read stdin: it is a directory\n");
  });
});
