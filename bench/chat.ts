/**
 * Chat benchmark (SPEC §12), with `ion chat` on a pseudo-terminal (util-linux `script`, its output read
 * by this process and every chunk timestamped as it arrives):
 *
 *   a. start-up: from spawning `ion chat` to its prompt `> ` on the terminal, against the hello-world
 *      floor (bench/floor/hello.ts, built with ion's own flags in this run) spawned the same way and
 *      timed to its `hello`; interleaved rounds, target ≤ 3×.
 *   b. Enter → the first character of the answer on the terminal, minus the fake server's own time
 *      (from a request's arrival to its reply being handed to the socket); median, target ≤ 10 ms.
 *   c. memory: ion's RSS (/proc/<pid>/status) after 1 turn and after 200 turns of one chat; target ≤ 1.5×.
 *
 * Reports only: the exit status is 0 whatever the figures.
 *
 *   bun bench/chat.ts [--bin dist/ion] [--rounds 20] [--warmup 3] [--rebuild]
 *
 * Without --bin it uses dist/ion, building it first when missing (or with --rebuild).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLLM } from "../test/support/fake-llm.ts";
import { streamReply } from "../test/support/wire-scripts.ts";
import { benchOptions, interleaved, median, p90, prepare, sandboxEnv, verdict } from "./lib.ts";

const options = benchOptions({ rounds: 20, warmup: 3 });
const { rounds, warmup } = options;
const STARTUP_TARGET = 3;
const FIRST_CHAR_TARGET_MS = 10;
const RSS_TARGET = 1.5;
const TURNS = 200;
/** Turns whose Enter → first character is counted (after the first few, which warm up). */
const LATENCY_FROM = 5;
const MODEL = "openai/gpt-4o-mini";
const PROSE =
  "Here is what I found. The function reads the file once, keeps the parsed entries in a map keyed " +
  "by id, and writes the result back atomically. Two things could be better: the error for a missing " +
  "file does not name the path, and the map is rebuilt on every call even when nothing changed. " +
  "A small cache keyed by the file's mtime would avoid that; I can add it with a test if you like.";

const sh = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/** A program on a pseudo-terminal of `script`: what it writes, each chunk stamped on arrival. */
class Pty {
  readonly started = performance.now();
  private readonly child: ReturnType<typeof Bun.spawn>;
  /** The output so far, escape sequences removed chunk by chunk. */
  private text = "";
  /** When the last chunk arrived. */
  private lastChunkAt = 0;
  private waiters: (() => void)[] = [];
  private readonly done: Promise<void>;

  constructor(argv: string[], env: Record<string, string>, cwd: string) {
    // `stty` gives the terminal a size (a pipe has none to pass on); `exec` makes the program the
    // pty's process itself, so its pid is the shell's.
    const command = `stty cols 100 rows 40 2>/dev/null; exec ${argv.map(sh).join(" ")}`;
    this.child = Bun.spawn(["script", "-q", "-e", "-c", command, "/dev/null"], {
      cwd,
      env: { ...env, SHELL: "/bin/sh" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    this.done = this.read();
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    const stdout = this.child.stdout as ReadableStream<Uint8Array>;
    for await (const chunk of stdout) {
      this.lastChunkAt = performance.now();
      this.text += Bun.stripANSI(decoder.decode(chunk, { stream: true }));
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    }
    for (const wake of this.waiters) wake();
  }

  /** Everything written so far, escape sequences removed. */
  get screen(): string {
    return this.text;
  }

  /**
   * Resolves with the arrival time (performance.now) of the chunk after which `test` holds, or the
   * time of the call when it already held.
   */
  async waitFor(test: (screen: string) => boolean, timeoutMs = 10_000): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    if (test(this.text)) return performance.now();
    for (;;) {
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), Bun.sleep(200)]);
      if (test(this.text)) return this.lastChunkAt;
      if (performance.now() > deadline)
        throw new Error(`pty: timed out; output: ${JSON.stringify(this.text.slice(-300))}`);
    }
  }

  write(text: string): void {
    const stdin = this.child.stdin as import("bun").FileSink;
    stdin.write(text);
    stdin.flush();
  }

  /** The program's pid: `script`'s child, which exec'd it. */
  pid(): number {
    const pid = this.child.pid;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    return Number(children.split(" ")[0]);
  }

  async close(): Promise<void> {
    try {
      (this.child.stdin as import("bun").FileSink).end();
    } catch {
      // already closed
    }
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await this.child.exited;
    await this.done;
    clearTimeout(timer);
  }
}

/** VmRSS of a live process in bytes, or 0. */
function rss(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface Row {
  measure: string;
  value: string;
  base: string;
  ratio: string;
  target: string;
  verdict: string;
}

function printTable(rows: Row[]): void {
  const header: Row = {
    measure: "measure",
    value: "value",
    base: "base",
    ratio: "ratio",
    target: "target",
    verdict: "",
  };
  const all = [header, ...rows].map((r) => [r.measure, r.value, r.base, r.ratio, r.target, r.verdict]);
  const widths = all[0]!.map((_, col) => Math.max(...all.map((r) => r[col]!.length)));
  for (const row of all) {
    const line = row.map((cell, col) =>
      col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!),
    );
    process.stdout.write(`${line.join("  ").trimEnd()}\n`);
  }
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** a. Spawn → prompt (ion) or → `hello` (the floor), interleaved. */
async function startup(floor: string, ion: string, env: Record<string, string>, cwd: string) {
  const cases = [
    {
      name: "floor",
      argv: [floor],
      ready: (s: string) => s.includes("hello"),
      quit: "",
      times: [] as number[],
    },
    {
      name: "ion chat",
      argv: [ion, "chat"],
      ready: (s: string) => s.includes("\n> "),
      quit: "\x04",
      times: [] as number[],
    },
  ];
  const failures: string[] = [];
  for (const { item, counted } of interleaved(cases, rounds, warmup)) {
    const pty = new Pty(item.argv, env, cwd);
    try {
      const ready = await pty.waitFor(item.ready);
      if (counted) item.times.push(ready - pty.started);
    } catch (err) {
      failures.push(`${item.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (item.quit) pty.write(item.quit);
    await pty.close();
  }
  return { floor: cases[0]!.times, ion: cases[1]!.times, failures };
}

/** b and c: one chat of TURNS turns against the fake server. */
async function turns(ion: string, env: Record<string, string>, cwd: string) {
  await using server = await startFakeLLM();
  const chatEnv = { ...env, OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test-fake" };
  const pty = new Pty([ion, "chat", "--new"], chatEnv, cwd);
  const latencies: { total: number; server: number }[] = [];
  let rssFirst = 0;
  const trend: number[] = [];
  let rssLast = 0;
  let pid = 0;
  try {
    await pty.waitFor((s) => s.includes("\n> "));
    pid = pty.pid();
    for (let turn = 1; turn <= TURNS; turn++) {
      const marker = `R${turn}x`;
      let arrived = 0;
      let served = 0;
      server.enqueue({
        pathSuffix: "/chat/completions",
        respond: () => {
          arrived = performance.now();
          const reply = streamReply("openai", { text: `${marker} ${PROSE}` });
          served = performance.now();
          return reply;
        },
      });
      const from = pty.screen.length;
      const message = `question ${turn}`;
      pty.write(message);
      await pty.waitFor((s) => s.slice(from).includes(message));
      const enter = performance.now();
      pty.write("\r");
      const first = await pty.waitFor((s) => s.slice(from).includes(marker));
      // The status line's end: "cost unknown" (older builds said "$ unknown"), the time, a fresh prompt.
      await pty.waitFor((s) => /(?:cost|\$) unknown · \d+\.\ds\r?\n(\r|\s)*> $/.test(s.slice(from)));
      if (turn > LATENCY_FROM) latencies.push({ total: first - enter, server: served - arrived });
      if (turn === 1) rssFirst = rss(pid);
      if (turn % 50 === 0) trend.push(rss(pid));
    }
    rssLast = rss(pid);
    pty.write("\x04");
  } finally {
    await pty.close();
  }
  return { latencies, rssFirst, rssLast, trend, requests: server.requests.length };
}

async function main(): Promise<void> {
  const prepared = await prepare("hello", options);
  if (typeof prepared === "string") {
    process.stdout.write(`chat bench: ${prepared}\n`);
    return;
  }
  const { floor, ion } = prepared;
  if (!Bun.which("script")) {
    process.stdout.write("chat bench: needs `script` (util-linux) for a pseudo-terminal\n");
    return;
  }
  const sandbox = mkdtempSync(join(tmpdir(), "ion-bench-"));
  const env: Record<string, string> = {
    ...sandboxEnv(sandbox),
    XDG_CACHE_HOME: join(sandbox, "cache"),
    TERM: "xterm-256color",
  };
  const cwd = join(sandbox, "work");
  for (const dir of ["work", "config", "data"]) mkdirSync(join(sandbox, dir), { recursive: true });
  writeFileSync(join(env.ION_CONFIG_DIR!, "config.json"), JSON.stringify({ model: MODEL }));

  let a: Awaited<ReturnType<typeof startup>>;
  let bc: Awaited<ReturnType<typeof turns>> | undefined;
  let failed = "";
  try {
    a = await startup(floor, ion, env, cwd);
    try {
      bc = await turns(ion, env, cwd);
    } catch (err) {
      failed = err instanceof Error ? err.message : String(err);
    }
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }

  process.stdout.write(
    `chat: start-up ${rounds} interleaved rounds (+${warmup} warm-up); ${TURNS} turns in one chat; ${ion}\n\n`,
  );
  const rows: Row[] = [];
  if (a.floor.length && a.ion.length) {
    const ratio = median(a.ion) / median(a.floor);
    rows.push({
      measure: "ion chat → prompt (floor: hello)",
      value: ms(median(a.ion)),
      base: ms(median(a.floor)),
      ratio: `${ratio.toFixed(2)}×`,
      target: `≤ ${STARTUP_TARGET}×`,
      verdict: verdict(ratio <= STARTUP_TARGET),
    });
  } else
    rows.push({
      measure: "ion chat → prompt",
      value: "failed",
      base: "",
      ratio: "",
      target: `≤ ${STARTUP_TARGET}×`,
      verdict: "MISS",
    });
  if (bc?.latencies.length) {
    const own = bc.latencies.map((l) => l.total - l.server);
    rows.push({
      measure: "Enter → first character, minus server",
      value: ms(median(own)),
      base: ms(median(bc.latencies.map((l) => l.server))),
      ratio: "",
      target: `≤ ${FIRST_CHAR_TARGET_MS} ms`,
      verdict: verdict(median(own) <= FIRST_CHAR_TARGET_MS),
    });
  }
  if (bc && bc.rssFirst > 0 && bc.rssLast > 0) {
    const ratio = bc.rssLast / bc.rssFirst;
    rows.push({
      measure: `RSS after ${TURNS} turns (base: after 1)`,
      value: mb(bc.rssLast),
      base: mb(bc.rssFirst),
      ratio: `${ratio.toFixed(2)}×`,
      target: `≤ ${RSS_TARGET}×`,
      verdict: verdict(ratio <= RSS_TARGET),
    });
  }
  printTable(rows);
  process.stdout.write("\n");
  if (a.floor.length && a.ion.length)
    process.stdout.write(
      `start-up p90: floor ${ms(p90(a.floor))}, ion chat ${ms(p90(a.ion))} (spawn through script + sh, alike for both)\n`,
    );
  if (bc?.latencies.length) {
    const own = bc.latencies.map((l) => l.total - l.server);
    process.stdout.write(
      `Enter → first character: turns ${LATENCY_FROM + 1}–${TURNS}, p90 ${ms(p90(own))}, max ${ms(Math.max(...own))}; ${bc.requests} requests\n`,
    );
  }
  if (bc?.trend.length)
    process.stdout.write(
      `RSS after 1, 50, 100, 150, 200 turns: ${[bc.rssFirst, ...bc.trend].map((b) => (b / 2 ** 20).toFixed(1)).join(", ")} MB\n`,
    );
  for (const failure of a.failures.slice(0, 3)) process.stdout.write(`\nFAILED start-up ${failure}\n`);
  if (failed) process.stdout.write(`\nFAILED turns: ${failed}\n`);
}

await main();
