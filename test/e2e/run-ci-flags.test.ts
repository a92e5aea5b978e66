/**
 * End to end: the CI flags that shape one run without touching config — `--output-last-message` (Codex),
 * `--allowedTools` / `--disallowedTools` and `--add-dir` (Claude Code).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { transcript, useOpenAIServer } from "../support/e2e.ts";
import { parseStreamJson } from "../support/output-schemas.ts";

const { server, env } = useOpenAIServer("test-key-ci-flags");
const MODEL = ["-m", "openai/gpt-4o-mini"];
type Body = { tools?: { function: { name: string } }[] };
const toolsSent = (from: number) =>
  server.requests.slice(from).map((r) => ((r.body as Body).tools ?? []).map((t) => t.function.name));

describe("--output-last-message", () => {
  test("with -o stream-json the file holds exactly the final answer, stdout the full stream", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ id: "r1", name: "list_files", input: { path: "." } }],
    });
    server.enqueueReply("openai", { text: "The final answer.\nSecond line." });
    const run = await box.run(
      ["run", ...MODEL, "-o", "stream-json", "--output-last-message", "out.txt", "answer it"],
      { env },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const { result } = parseStreamJson(jsonLines(run.stdout));
    expect(result.result).toBe("The final answer.\nSecond line.");
    expect(readFileSync(join(box.workspace, "out.txt"), "utf8")).toBe("The final answer.\nSecond line.");
    expect(readdirSync(box.workspace).filter((name) => name.includes(".tmp"))).toEqual([]);
  });

  test("a file that could never be written is refused before anything is sent: one line, exit 64", async () => {
    using box = new Sandbox();
    const before = server.requests.length;
    for (const [file, why] of [
      ["no/such/dir/out.txt", "no such directory"],
      [".", "it is a directory"],
      ["", "needs a file name"],
    ]) {
      const run = await box.run(["run", ...MODEL, "-o", "json", "--output-last-message", file!, "hi"], {
        env,
      });
      expect(run.code).toBe(64);
      expect(run.stderr).toStartWith("ion: --output-last-message");
      expect(run.stderr).toContain(why!);
      expect(run.stderr.trimEnd().split("\n").length).toBeLessThanOrEqual(2);
    }
    expect(server.requests.length).toBe(before);
  });

  test("replaces a previous run's file, even when the answer is empty", async () => {
    using box = new Sandbox();
    writeFileSync(join(box.workspace, "out.txt"), "an old answer");
    server.enqueueReply("openai", { text: "" });
    const run = await box.run(["run", ...MODEL, "--output-last-message", "out.txt", "hi"], { env });
    expect(run.code).toBe(0);
    expect(readFileSync(join(box.workspace, "out.txt"), "utf8")).toBe("");
  });
});

describe("--disallowedTools / --allowedTools", () => {
  test("--disallowedTools Bash: the request offers no bash; Claude names and commas work", async () => {
    using box = new Sandbox();
    const from = server.requests.length;
    server.enqueueReply("openai", { text: "ok" });
    server.enqueueReply("openai", { text: "ok" });
    const one = await box.run(["run", ...MODEL, "--disallowedTools", "Bash", "hi"], { env });
    expect(one.code).toBe(0);
    const two = await box.run(["run", ...MODEL, "--disallowed-tools", "Write,edit_file", "-y", "hi"], {
      env,
    });
    expect(two.code).toBe(0);
    const [first, second] = toolsSent(from);
    expect(first).toContain("read_file");
    expect(first).not.toContain("bash");
    expect(second).toContain("bash");
    expect(second).not.toContain("write_file");
    expect(second).not.toContain("edit_file");

    server.enqueueReply("openai", { text: "ok" });
    const three = await box.run(["run", ...MODEL, "--disallowedTools", "WebFetch task plan", "hi"], { env });
    expect(three.code).toBe(0);
    expect(three.stderr).toBe("");
    const [, , third] = toolsSent(from);
    expect(third).toContain("read_file");
    for (const name of ["web_fetch", "task", "plan"]) expect(third).not.toContain(name);
  });

  test('--allowedTools "Bash Edit" without a terminal: bash runs without a denial', async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [{ id: "b1", name: "bash", input: { command: "touch ran.txt" } }],
    });
    server.enqueueReply("openai", { text: "ran" });
    const run = await box.run(["run", ...MODEL, "-o", "stream-json", "--allowedTools", "Bash Edit", "go"], {
      env,
    });
    expect(run.code).toBe(0);
    const { init, result } = parseStreamJson(jsonLines(run.stdout));
    expect(init).toMatchObject({ permission_mode: "ask" });
    expect(existsSync(join(box.workspace, "ran.txt"))).toBe(true);
    expect(result.permission_denials).toEqual([]);
  });

  test("Bash(prefix:*) allows simple commands with that prefix; others still need approval", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", {
      toolCalls: [
        { id: "b1", name: "bash", input: { command: "touch yes.txt" } },
        { id: "b2", name: "bash", input: { command: "touch no1.txt; touch no2.txt" } },
        { id: "b3", name: "bash", input: { command: "mkdir no3" } },
      ],
    });
    server.enqueueReply("openai", { text: "done" });
    const run = await box.run(["run", ...MODEL, "-o", "json", "--allowedTools", "Bash(touch:*)", "go"], {
      env,
    });
    expect(run.code).toBe(0);
    expect(existsSync(join(box.workspace, "yes.txt"))).toBe(true);
    expect(existsSync(join(box.workspace, "no1.txt"))).toBe(false);
    expect(existsSync(join(box.workspace, "no3"))).toBe(false);
    const denied = JSON.parse(run.stdout).permission_denials.map(
      (d: { tool_use_id: string }) => d.tool_use_id,
    );
    expect(denied).toEqual(["b2", "b3"]);
  });

  test("patterns ion cannot honour are refused; unknown tool names are ignored with a notice", async () => {
    using box = new Sandbox();
    const read = await box.run(["run", ...MODEL, "--allowedTools", "Read(src/**)", "x"], { env });
    expect(read.code).toBe(64);
    expect(read.stderr).toStartWith('ion: --allowedTools: "Read(src/**)": only Bash takes a pattern');
    const deny = await box.run(["run", ...MODEL, "--disallowedTools", "Bash(rm:*)", "x"], { env });
    expect(deny.code).toBe(64);
    expect(deny.stderr).toContain("a pattern cannot be disallowed");
    server.enqueueReply("openai", { text: "ok" });
    // NotebookEdit is a Claude Code tool ion does not have (WebFetch is web_fetch).
    const unknown = await box.run(["run", ...MODEL, "--allowedTools", "NotebookEdit,WebFetch,Read", "x"], {
      env,
    });
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toBe("ion: warning: ignoring tool NotebookEdit: ion has no tool by that name\n");
  });
});

describe("--add-dir", () => {
  test("read_file reaches the added directory; without the flag it is refused", async () => {
    using box = new Sandbox();
    const other = join(box.root, "other");
    mkdirSync(other);
    writeFileSync(join(other, "note.txt"), "NOTE-FROM-OTHER\n");
    const call = { toolCalls: [{ id: "r1", name: "read_file", input: { path: "../other/note.txt" } }] };
    const outcomes: string[] = [];
    for (const extra of [["--add-dir", "../other"], []]) {
      const from = server.requests.length;
      server.enqueueReply("openai", call);
      server.enqueueReply("openai", { text: "read" });
      const run = await box.run(["run", ...MODEL, ...extra, "read it"], { env });
      expect(run.code).toBe(0);
      outcomes.push(transcript(server.requests[from + 1]!).at(-1)!);
    }
    expect(outcomes[0]).toContain("NOTE-FROM-OTHER");
    expect(outcomes[1]).not.toContain("NOTE-FROM-OTHER");
    expect(outcomes[1]).toContain("outside the workspace");
    const missing = await box.run(["run", ...MODEL, "--add-dir", "nope", "x"], { env });
    expect(missing.code).toBe(64);
    expect(missing.stderr).toStartWith("ion: --add-dir nope: no such directory");
    writeFileSync(join(box.workspace, "a-file"), "x");
    const file = await box.run(["run", ...MODEL, "--add-dir", "a-file", "x"], { env });
    expect(file.code).toBe(64);
    expect(file.stderr).toStartWith("ion: --add-dir a-file: not a directory");
  });
});
