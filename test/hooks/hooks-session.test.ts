/**
 * Claude Code–compatible hooks through the agent session: real shell scripts (bash + jq, as Claude
 * Code's examples use) in temp dirs, configured in a real user config file, against the fake server.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, type SessionOptions } from "../../src/agent/session.ts";
import { notifyingApprover, sessionHooks } from "../../src/config/hook-sources.ts";
import { projectRunnables } from "../../src/config/trust-project.ts";
import { SessionStore } from "../../src/history/store.ts";
import { sessionOptions, userBlocks, useSessionSandbox } from "../support/session-harness.ts";
import { collectEvents, useFakeLLM } from "../support/stream-helpers.ts";

const server = useFakeLLM({ resetRequestsEachTest: true });
const newSandbox = useSessionSandbox(server, "hooks");

/** The hooks' scripts need PATH (bash, jq); the project directory is `work`. */
function sandbox(hooks: Record<string, unknown>) {
  const { root, env } = newSandbox({ hooks });
  const cwd = join(root, "work");
  mkdirSync(cwd, { recursive: true });
  return { root, cwd, env: { ...env, PATH: process.env.PATH }, notices: [] as string[] };
}
type Box = ReturnType<typeof sandbox>;

/** An executable bash script in the sandbox; returns its path. */
function script(box: Box, name: string, body: string): string {
  const path = join(box.root, name);
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const hook = (command: string, extra: Record<string, unknown> = {}) => ({
  hooks: [{ type: "command", command, ...extra }],
});

async function open(box: Box, extra: Partial<SessionOptions> = {}): Promise<AgentSession> {
  const notice = (line: string) => box.notices.push(line);
  const extensions = await sessionHooks({
    cwd: box.cwd,
    env: box.env,
    projectTrust: undefined,
    mode: extra.yes ? "auto" : "ask",
    notice,
  });
  expect(extensions).toHaveLength(1);
  return AgentSession.open(sessionOptions(box, { cwd: box.cwd, notice, extensions, ...extra }));
}

/** The process has ended (gone, or a zombie waiting for its new parent to reap it), within 2 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    const stat = await Bun.file(`/proc/${pid}/stat`)
      .text()
      .catch((err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return "";
        throw err;
      });
    if (stat === "" || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
    await Bun.sleep(50);
  }
  return false;
}

const signal = () => new AbortController().signal;
type Body = { messages: { role: string; content: unknown }[] };
const bodyOf = (i: number) => server.requests[i]?.body as Body;

describe("PreToolUse", () => {
  test("a Claude Code script with a Bash matcher exits 2: the call does not run, the model gets its stderr", async () => {
    const box = sandbox({});
    const guard = script(
      box,
      "guard.sh",
      `cmd=$(jq -r '.tool_input.command')
if [[ "$cmd" == *touch* ]]; then echo "Blocked: no touching ($cmd)" >&2; exit 2; fi; exit 0`,
    );
    writeFileSync(
      join(box.root, "config", "config.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", ...hook(guard) }] } }),
    );
    const session = await open(box, { yes: true });
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "bash", input: { command: "touch marker" } }],
    });
    server.enqueueReply("openai", { text: "ok" });
    const events = await collectEvents(session.turn(userBlocks("make a marker"), signal()));
    await session.close();
    expect(existsSync(join(box.cwd, "marker"))).toBe(false);
    const tool = bodyOf(1).messages.find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("Blocked: no touching (touch marker)");
    // Front ends tell a hook's block from a permission denial ("blocked by hook", not "denied").
    const ended = events.find((event) => event.type === "tool_end");
    expect(ended?.type === "tool_end" && ended.metadata).toEqual({ denied: true, deniedBy: "hooks" });
  });

  test("permissionDecision allow skips the question; updatedInput (file_path) is what runs; systemMessage is shown", async () => {
    const box = sandbox({});
    const seen = join(box.root, "seen.json");
    const allow = script(
      box,
      "allow.sh",
      `tee ${seen} >/dev/null
jq -n '{systemMessage: "allowed by policy", hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: {file_path: "b.txt", content: "from hook"}}}'`,
    );
    writeFileSync(
      join(box.root, "config", "config.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Write|Edit", ...hook(allow) }] } }),
    );
    const asked: string[] = [];
    const session = await open(box, {
      approve: async (call) => {
        asked.push(call.name);
        return "deny";
      },
    });
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_w", name: "write_file", input: { path: "a.txt", content: "from model" } }],
    });
    server.enqueueReply("openai", { text: "written" });
    await collectEvents(session.turn(userBlocks("write it"), signal()));
    await session.close();
    expect(asked).toEqual([]);
    expect(box.notices).toContain("PreToolUse hook: allowed by policy");
    expect(readFileSync(join(box.cwd, "b.txt"), "utf8")).toBe("from hook");
    expect(existsSync(join(box.cwd, "a.txt"))).toBe(false);
    const payload = JSON.parse(readFileSync(seen, "utf8"));
    expect(payload).toMatchObject({
      session_id: session.id,
      cwd: box.cwd,
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { path: "a.txt", file_path: "a.txt", content: "from model" },
      tool_use_id: "call_w",
      permission_mode: "default",
    });
  });

  test("a hook that times out is killed with its children; exit 1 warns; the call runs", async () => {
    const box = sandbox({});
    const pidFile = join(box.root, "child.pid");
    const slow = script(box, "slow.sh", `sleep 30 & echo $! > ${pidFile}; wait`);
    const failing = script(box, "fail.sh", `echo "something broke" >&2; exit 1`);
    writeFileSync(
      join(box.root, "config", "config.json"),
      JSON.stringify({ hooks: { PreToolUse: [hook(slow, { timeout: 1 }), hook(failing), hook(failing)] } }),
    );
    const session = await open(box, { yes: true });
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "bash", input: { command: "echo ran > out.txt" } }],
    });
    server.enqueueReply("openai", { text: "ok" });
    const started = Date.now();
    await collectEvents(session.turn(userBlocks("go"), signal()));
    await session.close();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(readFileSync(join(box.cwd, "out.txt"), "utf8")).toBe("ran\n");
    const child = Number(readFileSync(pidFile, "utf8"));
    expect(await gone(child)).toBe(true);
    expect(box.notices.filter((line) => line.includes("timed out and was killed"))).toHaveLength(1);
    // Identical commands run once: one warning.
    expect(
      box.notices.filter((line) => line.includes("exited with 1") && line.includes("something broke")),
    ).toHaveLength(1);
  });

  test("a hook script that is not executable warns once (exit 126) and the call runs; a broken JSON answer is ignored", async () => {
    const box = sandbox({});
    const locked = join(box.root, "locked.sh");
    writeFileSync(locked, "#!/usr/bin/env bash\nexit 2\n"); // never runs: no execute bit
    chmodSync(locked, 0o644);
    // Exit 0 with stdout that starts like JSON but is not: no decision, as for plain output.
    const garbled = script(box, "garbled.sh", `echo '{"decision": "block", '`);
    writeFileSync(
      join(box.root, "config", "config.json"),
      JSON.stringify({ hooks: { PreToolUse: [hook(locked), hook(garbled)] } }),
    );
    const session = await open(box, { yes: true });
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "bash", input: { command: "echo ran > out.txt" } }],
    });
    server.enqueueReply("openai", { text: "ok" });
    await collectEvents(session.turn(userBlocks("go"), signal()));
    await session.close();
    expect(readFileSync(join(box.cwd, "out.txt"), "utf8")).toBe("ran\n");
    const warnings = box.notices.filter((line) => line.startsWith("warning: PreToolUse hook"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`exited with 126: ${locked}`);
    expect(warnings[0]).toContain("Permission denied");
    const tool = bodyOf(1).messages.find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).not.toContain("block");
  });
});

describe("PostToolUse", () => {
  test("sees the tool's response; what it says with exit 2 reaches the model beside the result", async () => {
    const box = sandbox({});
    const seen = join(box.root, "post.json");
    const post = script(box, "post.sh", `tee ${seen} >/dev/null; echo "run the formatter next" >&2; exit 2`);
    writeFileSync(
      join(box.root, "config", "config.json"),
      JSON.stringify({
        hooks: { PostToolUse: [{ matcher: "Edit|Write", ...hook(post) }], PostToolUseFailure: [hook(post)] },
      }),
    );
    const session = await open(box, { yes: true });
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_w", name: "write_file", input: { path: "x.txt", content: "hi" } }],
    });
    server.enqueueReply("openai", { text: "done" });
    await collectEvents(session.turn(userBlocks("write x"), signal()));
    await session.close();
    expect(readFileSync(join(box.cwd, "x.txt"), "utf8")).toBe("hi");
    const payload = JSON.parse(readFileSync(seen, "utf8"));
    expect(payload).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "Write",
      tool_input: { file_path: "x.txt" },
    });
    expect(typeof payload.tool_response).toBe("string");
    const tool = bodyOf(1).messages.find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("run the formatter next");
  });
});

describe("Notification", () => {
  test("runs when an approval is asked, beside the question", async () => {
    const box = sandbox({});
    const seen = join(box.root, "notification.json");
    const notify = script(box, "notify.sh", `cat > ${seen}.tmp && mv ${seen}.tmp ${seen}`);
    writeFileSync(
      join(box.root, "config", "config.json"),
      JSON.stringify({ hooks: { Notification: [hook(notify)] } }),
    );
    const hooks = await sessionHooks({
      cwd: box.cwd,
      env: box.env,
      projectTrust: undefined,
      mode: "ask",
      notice: () => {},
    });
    const asked: string[] = [];
    const approve = notifyingApprover(
      async (call) => {
        asked.push(call.name);
        return "deny";
      },
      hooks,
      () => {},
    );
    const session = await open(box, { approve });
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_1", name: "bash", input: { command: "make" } }],
    });
    server.enqueueReply("openai", { text: "not allowed" });
    await collectEvents(session.turn(userBlocks("build"), signal()));
    await session.close();
    expect(asked).toEqual(["bash"]);
    for (let i = 0; i < 40 && !existsSync(seen); i++) await Bun.sleep(50);
    expect(JSON.parse(readFileSync(seen, "utf8"))).toMatchObject({
      hook_event_name: "Notification",
      message: "ion needs your permission to use Bash",
      notification_type: "permission_prompt",
    });
  });
});

describe("prompt, start, stop and end", () => {
  test("UserPromptSubmit and SessionStart context is saved as a context message; exit 2 refuses a prompt", async () => {
    const box = sandbox({});
    const log = join(box.root, "events.log");
    const start = script(
      box,
      "start.sh",
      `jq -r '.hook_event_name + " " + .source' >> ${log}; echo "branch main is protected"`,
    );
    const submit = script(
      box,
      "submit.sh",
      `p=$(jq -r .prompt); if [[ "$p" == *secret* ]]; then echo "no secrets please" >&2; exit 2; fi
jq -n '{hookSpecificOutput: {hookEventName: "UserPromptSubmit", additionalContext: "today is a holiday"}}'`,
    );
    const end = script(
      box,
      "end.sh",
      `jq -r '.hook_event_name + " " + .reason' >> ${log}; [ "$CLAUDE_PROJECT_DIR" = "$ION_PROJECT_DIR" ] && echo "dir $CLAUDE_PROJECT_DIR" >> ${log}`,
    );
    writeFileSync(
      join(box.root, "config", "config.json"),
      JSON.stringify({
        hooks: { SessionStart: [hook(start)], UserPromptSubmit: [hook(submit)], SessionEnd: [hook(end)] },
      }),
    );
    const session = await open(box);
    server.enqueueReply("openai", { text: "noted" });
    await collectEvents(session.turn(userBlocks("what day is it"), signal()));
    await expect(collectEvents(session.turn(userBlocks("my secret is 42"), signal()))).rejects.toThrow(
      "no secrets please",
    );
    await session.close();
    expect(server.requests).toHaveLength(1);
    const sent = JSON.stringify(bodyOf(0).messages);
    expect(sent).toContain("today is a holiday");
    expect(sent).toContain("branch main is protected");
    expect(sent).not.toContain("secret is 42");
    const entries = (await SessionStore.forDataDir(box.env.ION_DATA_DIR).load(session.id)).entries;
    expect(JSON.stringify(entries)).toContain('"source":"hooks"');
    expect(readFileSync(log, "utf8")).toBe(`SessionStart startup\nSessionEnd done\ndir ${box.cwd}\n`);
  });

  test("Stop exit 2 sends the model on with stderr, once; stop_hook_active says so the second time", async () => {
    const box = sandbox({});
    const log = join(box.root, "stop.log");
    const stop = script(
      box,
      "stop.sh",
      `active=$(jq -r .stop_hook_active); echo "$active" >> ${log}
if [ "$active" = "false" ]; then echo "run the tests first" >&2; exit 2; fi`,
    );
    writeFileSync(join(box.root, "config", "config.json"), JSON.stringify({ hooks: { Stop: [hook(stop)] } }));
    const session = await open(box);
    server.enqueueReply("openai", { text: "done" });
    server.enqueueReply("openai", { text: "tests pass, done" });
    const events = await collectEvents(session.turn(userBlocks("fix it"), signal()));
    await session.close();
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(bodyOf(1).messages.at(-1))).toContain("run the tests first");
    expect(events.find((e) => e.type === "result")).toMatchObject({ result: { result: "tests pass, done" } });
    expect(readFileSync(log, "utf8")).toBe("false\ntrue\n");
  });
});

describe("project hooks and trust", () => {
  test(".claude/settings.json hooks are hashed and listed, and load only when the project is trusted", async () => {
    const box = sandbox({});
    writeFileSync(join(box.root, "config", "config.json"), "{}");
    mkdirSync(join(box.cwd, ".claude"), { recursive: true });
    const settings = { hooks: { PreToolUse: [{ matcher: "Bash", ...hook("echo project hook") }] } };
    writeFileSync(join(box.cwd, ".claude", "settings.json"), JSON.stringify(settings));
    const project = projectRunnables(box.cwd, box.env, box.cwd);
    expect(project.items.map((item) => `${item.label}: ${item.what}`)).toEqual([
      "hook PreToolUse (Bash): echo project hook",
    ]);
    expect(project.hooks).toEqual([settings.hooks]);
    const base = { cwd: box.cwd, env: box.env, mode: "ask" as const, notice: () => {} };
    expect(await sessionHooks({ ...base, projectTrust: { trusted: false, project } })).toEqual([]);
    expect(await sessionHooks({ ...base, projectTrust: undefined })).toEqual([]);
    expect(await sessionHooks({ ...base, projectTrust: { trusted: true, project } })).toHaveLength(1);
  });
});
