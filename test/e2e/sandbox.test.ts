/**
 * End to end: `bash` inside bubblewrap — writes only inside the workspace, no network unless allowed,
 * a tree killed whole on cancel, escalation only with approval, and an honest fallback (one warning,
 * `init`/`result` saying none) where there is no bwrap.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { jsonLines, Sandbox } from "../support/cli.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm.ts";
import { parseStreamJson, ResultSchema } from "../support/output-schemas.ts";

const HAS_BWRAP = Bun.which("bwrap") !== null;
const MODEL = ["-m", "openai/gpt-4o-mini"];
let server: FakeLLM;
let target: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  server = await startFakeLLM();
  // A server on the host's loopback: outside the sandbox's own network namespace.
  target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("reached-the-host") });
});
afterAll(async () => {
  await server.stop();
  target.stop(true);
});

const env = () => ({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "test-key-sandbox-1" });

interface BashResult {
  stdout: string;
  stderr: string;
  exit_code: number | null;
  note?: string;
}

/** Runs one turn in which the model calls bash with each command in turn, and returns what each call got. */
async function runCommands(
  box: Sandbox,
  commands: { command: string; sandbox?: boolean }[],
  flags: string[] = ["-y"],
) {
  server.enqueueReply("openai", {
    toolCalls: commands.map((input, i) => ({ id: `call_${i}`, name: "bash", input })),
  });
  server.enqueueReply("openai", { text: "done" });
  const run = await box.run(["run", ...MODEL, ...flags, "-o", "stream-json", "go"], { env: env() });
  const lines = jsonLines(run.stdout);
  const { init, result } = parseStreamJson(lines);
  const results = new Map<string, { content: string; is_error: boolean }>();
  for (const line of lines) {
    const message = line.message as { content?: unknown } | undefined;
    if (line.type !== "user" || !Array.isArray(message?.content)) continue;
    for (const block of message.content as { tool_use_id: string; content: unknown; is_error: boolean }[])
      results.set(block.tool_use_id, {
        content: typeof block.content === "string" ? block.content : JSON.stringify(block.content),
        is_error: block.is_error,
      });
  }
  const outcomes = commands.map((_, i) => {
    const got = results.get(`call_${i}`);
    if (!got) throw new Error(`no result for call_${i}: ${run.stdout}\n${run.stderr}`);
    return got;
  });
  return { run, init, result, outcomes };
}

function parsed(outcome: { content: string }): BashResult {
  return JSON.parse(outcome.content) as BashResult;
}

describe.skipIf(!HAS_BWRAP)("bash in the sandbox (bwrap)", () => {
  test("inside the workspace a write succeeds; ~, /etc and a symlink out of the workspace are denied, and the result says so", async () => {
    // Not under /tmp: the sandbox's /tmp is its own, so a home under the host's /tmp would not even be seen.
    using box = new Sandbox("/var/tmp");
    const outside = join(box.root, "outside");
    mkdirSync(outside);
    symlinkSync(outside, join(box.workspace, "out-link"));
    const { init, result, outcomes } = await runCommands(box, [
      { command: "echo kept > inside.txt && cat inside.txt" },
      { command: "touch ~/outside-home" },
      { command: "echo x > /etc/ion-sandbox-test" },
      { command: "echo x > out-link/through-link" },
    ]);
    expect(init.sandbox).toEqual({ type: "bwrap", mode: "workspace-write", network: false });
    expect(result.sandbox).toEqual({ type: "bwrap", mode: "workspace-write", network: false });
    expect(parsed(outcomes[0]!)).toMatchObject({ stdout: "kept\n", exit_code: 0 });
    expect(readFileSync(join(box.workspace, "inside.txt"), "utf8")).toBe("kept\n");
    for (const denied of outcomes.slice(1)) {
      expect(denied.is_error).toBe(true);
      const bash = parsed(denied);
      expect(bash.stderr).toContain("Read-only file system");
      expect(bash.note).toContain("a write was denied by the sandbox");
      expect(bash.note).toContain("sandbox: false");
    }
    expect(existsSync(join(box.home, "outside-home"))).toBe(false);
    expect(existsSync("/etc/ion-sandbox-test")).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
  });

  test("the network is off by default; sandbox.network: true reaches a host server", async () => {
    const fetchHost = `curl -sS --max-time 5 http://127.0.0.1:${target.port}/`;
    {
      using box = new Sandbox();
      const { outcomes } = await runCommands(box, [
        { command: fetchHost },
        { command: `bun -e 'await fetch("http://127.0.0.1:${target.port}/")'` },
      ]);
      for (const outcome of outcomes) {
        expect(outcome.is_error).toBe(true);
        expect(outcome.content).not.toContain("reached-the-host");
        expect(parsed(outcome).note).toContain("the network is limited by the sandbox (network off");
      }
    }
    {
      using box = new Sandbox();
      await box.writeConfig({ sandbox: { network: true } });
      const { init, outcomes } = await runCommands(box, [{ command: fetchHost }]);
      expect(init.sandbox).toEqual({ type: "bwrap", mode: "workspace-write", network: true });
      expect(parsed(outcomes[0]!)).toMatchObject({ stdout: "reached-the-host", exit_code: 0 });
    }
  });

  test("sandbox.network as a host list: a listed host is reached through ion's proxy, another is refused by name", async () => {
    using box = new Sandbox();
    await box.writeConfig({ sandbox: { network: ["127.0.0.1"] } });
    const { init, outcomes } = await runCommands(box, [
      { command: `curl -sS --max-time 5 http://127.0.0.1:${target.port}/` },
      { command: `curl -sS --fail-with-body --max-time 5 http://localhost:${target.port}/` },
      { command: `bun -e 'console.log(await (await fetch("http://127.0.0.1:${target.port}/")).text())'` },
    ]);
    expect(init.sandbox).toEqual({ type: "bwrap", mode: "workspace-write", network: ["127.0.0.1"] });
    expect(parsed(outcomes[0]!)).toMatchObject({ stdout: "reached-the-host", exit_code: 0 });
    const refused = parsed(outcomes[1]!);
    expect(`${refused.stdout}${refused.stderr}`).toContain(
      "ion sandbox: localhost is not in sandbox.network",
    );
    expect(refused.note).toContain("network: 127.0.0.1");
    expect(parsed(outcomes[2]!)).toMatchObject({ stdout: "reached-the-host\n", exit_code: 0 });
  });

  test("mode read-only denies a write inside the workspace; --sandbox off writes outside it", async () => {
    {
      using box = new Sandbox();
      const { init, outcomes } = await runCommands(
        box,
        [{ command: "touch made-here" }],
        ["-y", "--sandbox", "read-only"],
      );
      expect(init.sandbox).toEqual({ type: "bwrap", mode: "read-only", network: false });
      expect(parsed(outcomes[0]!).note).toContain("the sandbox is read-only");
      expect(existsSync(join(box.workspace, "made-here"))).toBe(false);
    }
    {
      using box = new Sandbox();
      const { init, outcomes } = await runCommands(
        box,
        [{ command: "touch ~/made-outside" }],
        ["-y", "--sandbox", "off"],
      );
      expect(init.sandbox).toEqual({ type: "none", mode: "off", network: true });
      expect(parsed(outcomes[0]!).exit_code).toBe(0);
      expect(existsSync(join(box.home, "made-outside"))).toBe(true);
    }
  });

  test("a /tmp of its own: the host's /tmp is untouched, and workspace.allow directories are writable", async () => {
    using box = new Sandbox();
    const allowed = join(box.root, "allowed");
    mkdirSync(allowed);
    await box.writeConfig({ workspace: { allow: [allowed] } });
    const marker = `ion-sandbox-tmp-${process.pid}-${Date.now()}`;
    const { outcomes } = await runCommands(box, [
      { command: `touch /tmp/${marker} && ls /tmp` },
      { command: `touch ${allowed}/ok` },
    ]);
    expect(parsed(outcomes[0]!)).toMatchObject({ exit_code: 0 });
    expect(existsSync(join("/tmp", marker))).toBe(false);
    expect(parsed(outcomes[1]!).exit_code).toBe(0);
    expect(existsSync(join(allowed, "ok"))).toBe(true);
  });

  test("escalation: sandbox: false is denied in a run -y, runs outside with sandbox.allow_escalation, and is denied headless in mode ask", async () => {
    {
      using box = new Sandbox();
      const { outcomes, result } = await runCommands(box, [{ command: "touch ~/escalated", sandbox: false }]);
      expect(outcomes[0]!.is_error).toBe(true);
      expect(outcomes[0]!.content).toContain("sandbox.allow_escalation");
      expect(result.permission_denials.map((d) => d.tool_name)).toEqual(["bash"]);
      expect(existsSync(join(box.home, "escalated"))).toBe(false);
    }
    {
      using box = new Sandbox();
      await box.writeConfig({ sandbox: { allow_escalation: true } });
      const { outcomes } = await runCommands(box, [{ command: "touch ~/escalated", sandbox: false }]);
      expect(parsed(outcomes[0]!).exit_code).toBe(0);
      expect(existsSync(join(box.home, "escalated"))).toBe(true);
    }
    {
      using box = new Sandbox();
      const { outcomes } = await runCommands(
        box,
        [{ command: "touch ~/escalated", sandbox: false }],
        ["--allowedTools", "Bash"],
      );
      expect(outcomes[0]!.content).toContain("needs the user's approval");
      expect(existsSync(join(box.home, "escalated"))).toBe(false);
    }
  });

  test("SIGINT during a sandboxed command: exit 2 and no process of its tree is left", async () => {
    using box = new Sandbox();
    // A marker no other process has: the sleep's pid inside the sandbox is not the host's.
    const marker = `${30 + (process.pid % 1000) / 1000}`;
    server.enqueueReply("openai", {
      toolCalls: [{ name: "bash", input: { command: `sleep ${marker} & sleep ${marker}; wait` } }],
    });
    const child = box.spawn(["run", ...MODEL, "-y", "-o", "json", "sleep"], { env: env() });
    // bwrap, its init, bash and the two sleeps all carry the marker; the sleeps are those that start with it.
    const sleeping = () => processesWith(`sleep ${marker}`);
    const sleeps = () => processesWith(`sleep ${marker}`, true);
    for (let i = 0; i < 200 && sleeps().length < 2; i++) await Bun.sleep(25);
    expect(sleeps().length).toBe(2);
    child.kill("SIGINT");
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(code).toBe(2);
    expect(ResultSchema.parse(JSON.parse(stdout)).subtype).toBe("error_interrupted");
    for (let i = 0; i < 40 && sleeping().length > 0; i++) await Bun.sleep(25);
    expect(sleeping()).toEqual([]);
  });
});

describe("no sandbox on this machine", () => {
  test("no bwrap on PATH: one warning, commands run as before, init and result say none", async () => {
    using box = new Sandbox();
    // A PATH with a shell and coreutils but no bwrap.
    const bin = join(box.root, "bin");
    mkdirSync(bin);
    for (const tool of ["bash", "sh", "touch", "cat", "echo"]) {
      const found = Bun.which(tool);
      if (found) symlinkSync(found, join(bin, tool));
    }
    server.enqueueReply("openai", {
      toolCalls: [{ id: "call_0", name: "bash", input: { command: "touch ~/no-sandbox-here" } }],
    });
    server.enqueueReply("openai", { text: "done" });
    const run = await box.run(["run", ...MODEL, "-y", "-o", "stream-json", "go"], {
      env: { ...env(), PATH: bin },
    });
    const { init, result } = parseStreamJson(jsonLines(run.stdout));
    expect(init.sandbox).toEqual({ type: "none", mode: "off", network: true });
    expect(result.sandbox).toEqual({ type: "none", mode: "off", network: true });
    const warnings = run.stderr.split("\n").filter((line) => line.includes("no sandbox"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("bwrap is not installed");
    expect(existsSync(join(box.home, "no-sandbox-here"))).toBe(true);
  });
});

/** Live processes whose command line contains `marker` (Linux /proc). */
function processesWith(marker: string, atStart = false): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const state = readFileSync(`/proc/${entry}/status`, "utf8");
      const matches = atStart ? cmdline.startsWith(marker) : cmdline.includes(marker);
      if (matches && !/^State:\s+Z/m.test(state)) found.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}
