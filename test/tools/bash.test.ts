import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bashTool, TailBuffer } from "../../src/tools/bash.ts";
import type { ToolContext, ToolOutcome } from "../../src/tools/types.ts";

interface BashResult {
  stdout: string;
  stderr: string;
  exit_code: number | null;
  signal?: string;
  note?: string;
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ion-bash-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function ctx(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { cwd: dir, allow: [], signal, callId: "call-1", sessionId: "s" };
}

async function run(input: Record<string, unknown>, context: ToolContext = ctx()) {
  const outcome: ToolOutcome = await bashTool.execute(input, context);
  return { outcome, result: JSON.parse(outcome.content) as BashResult };
}

/** Alive means it exists and is not a zombie (an orphan's zombie may never be reaped in a container). */
async function alive(pid: number): Promise<boolean> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    if (process.platform === "linux") return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false; // ESRCH: no such process
    }
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

/** Death after SIGTERM is asynchronous: give the processes a moment. */
async function gone(pids: number[]): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    const states = await Promise.all(pids.map(alive));
    if (!states.includes(true)) return true;
    await Bun.sleep(25);
  }
  return false;
}

function pids(stdout: string): number[] {
  return stdout
    .split("\n")
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

describe("bash", () => {
  test("spec: not read-only, named bash, schema has command and timeout_ms", () => {
    expect(bashTool.readOnly).toBe(false);
    expect(bashTool.spec.name).toBe("bash");
    expect(JSON.stringify(bashTool.spec.input_schema)).toContain("timeout_ms");
  });

  test("returns stdout, stderr and exit code", async () => {
    const { outcome, result } = await run({ command: "echo out; echo err >&2" });
    expect(outcome.is_error).toBe(false);
    expect(result).toEqual({ stdout: "out\n", stderr: "err\n", exit_code: 0 });
  });

  test("a non-zero exit is an error that keeps the output", async () => {
    const { outcome, result } = await run({ command: "echo partial; echo oops >&2; exit 3" });
    expect(outcome.is_error).toBe(true);
    expect(result).toEqual({ stdout: "partial\n", stderr: "oops\n", exit_code: 3 });
  });

  test("runs in ctx.cwd", async () => {
    const { result } = await run({ command: "pwd -P" });
    expect(result.stdout.trim()).toBe(await realpath(dir));
  });

  test("discourages pagers and prompts", async () => {
    const { result } = await run({ command: 'echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"' });
    expect(result.stdout).toBe("cat cat 0\n");
  });

  test.each([
    [{}, "command"],
    [{ command: 42 }, "command"],
    [{ command: "" }, "command"],
    [{ command: "true", timeout_ms: 0 }, "timeout_ms"],
    [{ command: "true", timeout_ms: 600_001 }, "timeout_ms"],
    [{ command: "true", timeout_ms: "100" }, "timeout_ms"],
  ])("invalid arguments %j name the field", async (input, field) => {
    const outcome = await bashTool.execute(input, ctx());
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain(field);
  });

  test("stdin is not inherited: cat and read see end-of-file at once", async () => {
    const started = performance.now();
    const { outcome, result } = await run({ command: 'cat; read -r line; echo "got:$line"' });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(outcome.is_error).toBe(false);
    expect(result).toEqual({ stdout: "got:\n", stderr: "", exit_code: 0 });
  });

  test("a timeout kills the whole group, background children included", async () => {
    const started = performance.now();
    const { outcome, result } = await run({ command: "echo $$; sleep 30 & echo $!; wait", timeout_ms: 300 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(outcome.is_error).toBe(true);
    expect(result.exit_code).toBeNull();
    expect(result.signal).toBe("SIGTERM");
    expect(result.note).toContain("timed out after 300 ms");
    const group = pids(result.stdout);
    expect(group).toHaveLength(2);
    expect(await gone(group)).toBe(true);
  });

  test("aborting the signal kills the group and returns promptly", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const { outcome, result } = await run(
      { command: "echo $$; sleep 30 & echo $!; wait" },
      ctx(controller.signal),
    );
    expect(performance.now() - started).toBeLessThan(1_200);
    expect(outcome.is_error).toBe(true);
    expect(result.exit_code).toBeNull();
    expect(result.note).toContain("cancelled");
    const group = pids(result.stdout);
    expect(group).toHaveLength(2);
    expect(await gone(group)).toBe(true);
  });

  test("a group that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const started = performance.now();
    const { outcome, result } = await run({
      command: "trap '' TERM; sleep 30 & echo $!; wait",
      timeout_ms: 200,
    });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThan(2_000);
    expect(elapsed).toBeLessThan(3_500);
    expect(outcome.is_error).toBe(true);
    expect(result.signal).toBe("SIGKILL");
    expect(await gone(pids(result.stdout))).toBe(true);
  });

  test("an already aborted signal runs nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const { outcome, result } = await run({ command: "touch ran" }, ctx(controller.signal));
    expect(outcome.is_error).toBe(true);
    expect(result.note).toContain("cancelled");
    expect(await Bun.file(join(dir, "ran")).exists()).toBe(false);
  });

  test("a background process holding stdout does not block; it is killed when the shell exits", async () => {
    const started = performance.now();
    const { outcome, result } = await run({ command: "sleep 30 & echo $!; echo done" });
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(outcome.is_error).toBe(false);
    expect(result.exit_code).toBe(0);
    expect(result.stdout).toEndWith("done\n");
    expect(result.note).toContain("background");
    expect(await gone(pids(result.stdout))).toBe(true);
  });

  test("a background process with redirected output is killed too", async () => {
    const { outcome, result } = await run({ command: "sleep 30 >/dev/null 2>&1 & echo $!" });
    expect(outcome.is_error).toBe(false);
    expect(await gone(pids(result.stdout))).toBe(true);
  });

  test("huge stdout is tail-truncated with a marker giving the full size", async () => {
    const { result } = await run({ command: "head -c 5000000 /dev/zero | tr '\\0' a" });
    const [marker, shown] = result.stdout.split("\n");
    expect(marker).toContain("truncated");
    expect(marker).toContain("5000000 bytes");
    expect(shown).toBe("a".repeat(30_000));
  });

  test("huge line-oriented output keeps the last lines, on stderr too", async () => {
    const { result } = await run({ command: "yes | head -n 2000000; yes e | head -n 100000 >&2" });
    expect(result.stdout).toStartWith("[… truncated: 4000000 bytes");
    expect(result.stdout).toEndWith("y\ny\n");
    expect(result.stdout.length).toBeLessThan(30_200);
    expect(result.stderr).toStartWith("[… truncated: 200000 bytes");
    expect(result.stderr.length).toBeLessThan(30_200);
  });

  test("streaming output is held in a bounded tail, not buffered whole", async () => {
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    const { result } = await run({
      command: "yes 0123456789012345678901234567890123456789",
      timeout_ms: 1_000,
    });
    const total = Number(/truncated: (\d+) bytes/.exec(result.stdout)?.[1]);
    expect(total).toBeGreaterThan(50_000_000); // far more than was kept
    expect(result.stdout.length).toBeLessThan(30_200);
    Bun.gc(true);
    expect(process.memoryUsage().rss - before).toBeLessThan(total / 2);
  });

  test("TailBuffer keeps only its capacity and counts every byte", () => {
    const tail = new TailBuffer(10);
    const bytes = new TextEncoder().encode("0123456789abcdefghij");
    tail.push(bytes.subarray(0, 7));
    tail.push(bytes.subarray(7, 13));
    expect(new TextDecoder().decode(tail.bytes())).toBe("3456789abc");
    tail.push(bytes.subarray(13));
    expect(tail.totalBytes).toBe(20);
    expect(new TextDecoder().decode(tail.bytes())).toBe("abcdefghij");
    tail.push(bytes);
    expect(new TextDecoder().decode(tail.bytes())).toBe("abcdefghij");
    expect(tail.text(4)).toBe(
      "[… truncated: 40 bytes of output, only the last 4 characters are shown]\nghij",
    );
  });

  test("multi-byte UTF-8 stays intact across the byte ring and the character cut", async () => {
    // 4-byte emoji (surrogate pairs) with a trailing "x": the 30 000-character cut falls inside a pair.
    const emoji = await run({ command: "yes '😀' | head -n 40000 | tr -d '\\n'; printf x" });
    const [, shownEmoji] = emoji.result.stdout.split("\n");
    expect(shownEmoji).toMatch(/^(?:😀)+x$/u);
    expect(shownEmoji?.length).toBe(29_999);
    // 3-byte characters: the kept bytes start inside a character.
    const euro = await run({ command: "yes '€' | head -n 50000 | tr -d '\\n'" });
    const [marker, shownEuro] = euro.result.stdout.split("\n");
    expect(marker).toContain("150000 bytes");
    expect(shownEuro).toBe("€".repeat(30_000));
  });
});
