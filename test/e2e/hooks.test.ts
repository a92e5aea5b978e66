/**
 * End to end: Claude Code hooks through `ion run`. A user-config PreToolUse hook (a bash + jq script
 * as Claude Code's examples write them) blocks a command with exit 2 and the model gets its stderr;
 * a project's `.claude/settings.json` hook runs only once the project is trusted.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const { server, env } = useOpenAIServer("test-key-hooks-e2e");
const MODEL = ["-m", "openai/gpt-4o-mini"];

function script(box: Sandbox, name: string, body: string): string {
  const path = join(box.root, name);
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("hooks", () => {
  test("a PreToolUse hook exiting 2 stops the bash call; its stderr is the model's tool result", async () => {
    using box = new Sandbox();
    const guard = script(
      box,
      "guard.sh",
      `cmd=$(jq -r .tool_input.command); echo "no rm here: $cmd" >&2; exit 2`,
    );
    await box.writeConfig({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] },
    });
    writeFileSync(join(box.workspace, "keep.txt"), "keep");
    const before = server.requests.length;
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_rm", name: "bash", input: { command: "rm keep.txt" } }],
    });
    server.enqueueReply("openai", { text: "could not remove it" });
    const result = await box.run(["run", ...MODEL, "-y", "remove keep.txt"], { env: box.env(env) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("could not remove it\n");
    expect(existsSync(join(box.workspace, "keep.txt"))).toBe(true);
    const second = JSON.stringify(server.requests[before + 1]?.body);
    expect(second).toContain("no rm here: rm keep.txt");
  });

  test("stream-json reports a hook that blocked as a hook_response system line", async () => {
    using box = new Sandbox();
    const guard = script(box, "guard.sh", `echo "not today" >&2; exit 2`);
    await box.writeConfig({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] },
    });
    server.enqueueReply("openai", { toolCalls: [{ id: "call_ls", name: "bash", input: { command: "ls" } }] });
    server.enqueueReply("openai", { text: "ok" });
    const result = await box.run(["run", ...MODEL, "-y", "-o", "stream-json", "list"], { env: box.env(env) });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const responses = lines.filter((line) => line.subtype === "hook_response");
    expect(responses).toEqual([
      expect.objectContaining({
        type: "system",
        hook_name: "PreToolUse:Bash",
        hook_event: "PreToolUse",
        outcome: "blocked",
        exit_code: 2,
        stderr: "not today\n",
      }),
    ]);
    expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success" });
  });

  test("a project's .claude/settings.json hook runs only when the project is trusted", async () => {
    using box = new Sandbox();
    const log = join(box.root, "prompts.log");
    const hook = script(box, "log.sh", `jq -r .prompt >> ${log}`);
    mkdirSync(join(box.workspace, ".claude"), { recursive: true });
    writeFileSync(
      join(box.workspace, ".claude", "settings.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: hook }] }] } }),
    );
    server.enqueueReply("openai", { text: "one" });
    const untrusted = await box.run(["run", ...MODEL, "first"], { env: box.env(env) });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toMatch(/untrusted project .*: ignored "hooks" in .*\.claude\/settings\.json/);
    expect(existsSync(log)).toBe(false);
    server.enqueueReply("openai", { text: "two" });
    const trusted = await box.run(["run", ...MODEL, "--trust-project", "second"], { env: box.env(env) });
    expect(trusted.code).toBe(0);
    expect(readFileSync(log, "utf8")).toBe("second\n");
  });

  test("run from a subdirectory, the repository root's .claude/settings.json is the project's: said untrusted, run trusted", async () => {
    using box = new Sandbox();
    const log = join(box.root, "prompts.log");
    const hook = script(box, "log.sh", `jq -r .prompt >> ${log}`);
    mkdirSync(join(box.workspace, ".git"));
    mkdirSync(join(box.workspace, ".claude"));
    mkdirSync(join(box.workspace, "src", "deep"), { recursive: true });
    writeFileSync(
      join(box.workspace, ".claude", "settings.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: hook }] }] } }),
    );
    const cwd = join(box.workspace, "src", "deep");
    server.enqueueReply("openai", { text: "one" });
    const untrusted = await box.run(["run", ...MODEL, "first"], { env: box.env(env), cwd });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toMatch(/untrusted project .*: ignored "hooks" in .*\.claude\/settings\.json/);
    expect(existsSync(log)).toBe(false);
    server.enqueueReply("openai", { text: "two" });
    const trusted = await box.run(["run", ...MODEL, "--trust-project", "second"], { env: box.env(env), cwd });
    expect(trusted.code).toBe(0);
    expect(readFileSync(log, "utf8")).toBe("second\n");
  });
});
