/**
 * End to end: an answer that cannot be written is never a silent success. `ion run x > /dev/full` says
 * why in one line and exits 1, keeping the session; a stdout the caller closed (`>&-`) is refused before
 * anything is sent, for `ion run` and piped chat alike. (A reader leaving early, `| head`, stays a quiet
 * 141: failures-pipe.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import { closeSync, existsSync, openSync } from "node:fs";
import { collect, ionCommand, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const KEY = "sk-test-stdout-failures-0000000000000042";
const MODEL = "openai/gpt-4o-mini";
const { server, env } = useOpenAIServer(KEY);
const FULL = "ion: cannot write to stdout: no space left on device (ENOSPC)\n";

async function configured(): Promise<Sandbox> {
  const box = new Sandbox();
  await box.writeConfig({ model: MODEL });
  return box;
}

/** Runs ion with its stdout on /dev/full (every write fails with ENOSPC). */
async function toFullDisk(box: Sandbox, args: string[]) {
  const full = openSync("/dev/full", "w");
  try {
    const child = Bun.spawn([...ionCommand(), ...args], {
      cwd: box.workspace,
      env: box.env(env),
      stdin: "ignore",
      stdout: full,
      stderr: "pipe",
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    clearTimeout(timer);
    return { code, stderr };
  } finally {
    closeSync(full);
  }
}

/** Runs ion under sh with stdout closed (`>&-`), `stdin` piped in when given. */
async function withStdoutClosed(box: Sandbox, args: string[], stdin?: string) {
  const before = server.requests.length;
  const child = Bun.spawn(["sh", "-c", '"$@" >&-', "sh", ...ionCommand(), ...args], {
    cwd: box.workspace,
    env: box.env(env),
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const run = await collect(child);
  clearTimeout(timer);
  return { ...run, requests: server.requests.slice(before) };
}

async function sessionIds(box: Sandbox): Promise<string[]> {
  const list = await box.run(["sessions", "list", "--json"], { env });
  return (JSON.parse(list.stdout) as { id: string }[]).map((s) => s.id);
}

describe.if(existsSync("/dev/full"))("stdout on a full disk", () => {
  test("ion run: one line, exit 1, and the session keeps the prompt", async () => {
    using box = await configured();
    server.enqueueReply("openai", { text: "An answer nobody will read." });
    const run = await toFullDisk(box, ["run", "the prompt to keep"]);
    expect(run).toEqual({ code: 1, stderr: FULL });
    const [id, ...others] = await sessionIds(box);
    expect(others).toHaveLength(0);
    const show = await box.run(["sessions", "show", "--json", id!], { env });
    expect(show.stdout).toContain("the prompt to keep");
  });

  test("ion run -o json: the same line and status", async () => {
    using box = await configured();
    server.enqueueReply("openai", { text: "A JSON answer nobody will read." });
    const run = await toFullDisk(box, ["run", "-o", "json", "json prompt"]);
    expect(run).toEqual({ code: 1, stderr: FULL });
    expect(await sessionIds(box)).toHaveLength(1);
  });
});

describe("stdout closed by the caller (>&-)", () => {
  test("ion run: refused before anything is sent, exit 1", async () => {
    using box = await configured();
    const run = await withStdoutClosed(box, ["run", "hello"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "ion: cannot write to stdout: it is closed (EBADF), so the answer would be lost\n" +
        "  hint: nothing was sent; redirect it instead (`> answer.txt`, or `> /dev/null` to discard it)\n",
    );
    expect(run.requests).toHaveLength(0);
  });

  test("ion run -o stream-json: the same, and no result is lost into the void", async () => {
    using box = await configured();
    const run = await withStdoutClosed(box, ["run", "-o", "stream-json", "hello"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toStartWith("ion: cannot write to stdout: it is closed (EBADF)");
    expect(run.requests).toHaveLength(0);
  });

  test("piped chat: refused before any line is read, exit 1", async () => {
    using box = await configured();
    const run = await withStdoutClosed(box, ["chat"], "hello\n");
    expect(run.code).toBe(1);
    expect(run.stderr).toStartWith(
      "ion: cannot write to stdout: it is closed (EBADF), so the answers would be lost\n",
    );
    expect(run.requests).toHaveLength(0);
  });

  test("ion skills (any command printing through fd 1): the first write fails as on a closed fd", async () => {
    using box = await configured();
    const run = await withStdoutClosed(box, ["skills"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toEndWith("ion: cannot write to stdout: it is closed (EBADF)\n");
  });

  test("> /dev/null is not a closed stdout: the answer is discarded as asked, exit 0", async () => {
    using box = await configured();
    server.enqueueReply("openai", { text: "Discarded." });
    const child = Bun.spawn(["sh", "-c", '"$@" > /dev/null', "sh", ...ionCommand(), "run", "hello"], {
      cwd: box.workspace,
      env: box.env(env),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const run = await collect(child);
    expect(run).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});
