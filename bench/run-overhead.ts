/**
 * One-shot benchmark (SPEC §12): `ion run "hi"` end to end against a local fake OpenAI-wire server,
 * against the floor — a dependency-free compiled client doing one streaming `fetch` and SSE read
 * (bench/floor/oneshot.ts, built with ion's own flags in this run). Cases, interleaved round by round:
 *
 *   - `ion run "hi"` with its session saved (target ≤ 2×, peak RSS ≤ 50 MB)
 *   - `ion run --no-session "hi"` (target ≤ 1.8×)
 *   - `ion run "hi"` with 1 000 and with 10 000 sessions already saved in its data dir (no growth:
 *     within 10 % of the empty data dir's median, and ≤ 2×)
 *   - a question (not small talk, so memory recalls) with 10 000 memories in memory.db, memory on
 *     against memory off (`memory.enabled: false`): on ≤ 1.15× off, recall and learning included
 *
 * Prints medians, p90 and the ratios. Reports only: exit status 0.
 *
 *   bun bench/run-overhead.ts [--bin dist/ion] [--rounds 30] [--warmup 3] [--rebuild]
 *
 * Without --bin it uses dist/ion, building it first when missing (or with --rebuild).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nativeCodec } from "../src/history/codec.ts";
import { linesRecord } from "../src/history/writer.ts";
import { MemoryStore } from "../src/memory/store.ts";
import { startFakeLLM } from "../test/support/fake-llm.ts";
import {
  benchOptions,
  gnuTimePeak,
  hasGnuTime,
  interleaved,
  median,
  ms,
  p90,
  prepare,
  printFailures,
  recordSummary,
  runOnce,
  type Sample,
  type SummaryRow,
  underGnuTime,
  verdict,
} from "./lib.ts";

const REPLY = "Hello!";
const MODEL = "openai/gpt-4o-mini";
const RSS_TARGET_MB = 50;
/** A data dir with this many more sessions may be at most this much slower (median against median). */
const GROWTH_TARGET = 0.1;
/** A question of the recall dataset (small talk like "hi" skips recall), and how many memories to seed. */
const QUESTION = "what port is the harbor staging postgres on?";
const MEMORIES = 10_000;
/** A run with memory on (recall and learning) may take at most this much longer than with it off. */
const MEMORY_TARGET = 1.15;

const options = benchOptions({ rounds: 30, warmup: 3 });
const { rounds, warmup } = options;

/** VmHWM of a live process in bytes, or 0. */
function vmHWM(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0; // gone already, or no /proc here
  }
}

/**
 * Peak RSS in bytes of one run, in separate runs after the timed ones so that measuring doesn't
 * disturb the timings: GNU time's `%M` when installed, else /proc/<pid>/status VmHWM polled every
 * 2 ms (may miss the last moments). Not the spawn's own rusage: Linux starts a child's maxrss at
 * the spawning process's RSS (this bench's, with the fake server: ~40 MB).
 */
async function peakRSS(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ bytes: number; how: string }> {
  if (hasGnuTime()) {
    const sample = await runOnce(underGnuTime(argv), env, cwd);
    return { bytes: gnuTimePeak(sample.code, sample.stderr), how: "GNU time %M" };
  }
  const child = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  let hwm = 0;
  const timer = setInterval(() => {
    hwm = Math.max(hwm, vmHWM(child.pid));
  }, 2);
  await child.exited;
  clearInterval(timer);
  return { bytes: hwm, how: "VmHWM polled" };
}

function describe(sample: Sample): string {
  const clip = (s: string) => JSON.stringify(s.length > 400 ? `${s.slice(0, 400)}…` : s);
  return `exit ${sample.code}; stdout ${clip(sample.stdout)}; stderr ${clip(sample.stderr)}`;
}

/**
 * `count` saved sessions in `<dataDir>/sessions`, as ion writes them (header, a prompt, an answer, a
 * run end; one record each), all recent so that retention keeps them, in another project's directory.
 */
function seedSessions(dataDir: string, count: number): void {
  const dir = join(dataDir, "sessions");
  mkdirSync(dir, { recursive: true });
  const usage = {
    input_tokens: 12,
    output_tokens: 3,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  for (let i = 0; i < count; i++) {
    const id = Bun.randomUUIDv7();
    const at = new Date().toISOString();
    const header = {
      type: "session",
      version: 1,
      id,
      created_at: at,
      cwd: "/elsewhere/project",
      provider: "openai",
      model: "gpt-4o-mini",
      title: `earlier session ${i}`,
    };
    const user = { role: "user", content: [{ type: "text", text: `question ${i}` }] };
    const answer = { role: "assistant", content: [{ type: "text", text: `answer ${i}` }] };
    const entries = [
      { type: "message", n: 0, at, message: user },
      { type: "message", n: 1, at, message: answer, stop_reason: "end_turn", usage },
      {
        type: "run_end",
        n: 2,
        at,
        subtype: "success",
        num_turns: 1,
        usage,
        total_cost_usd: null,
        errors: [],
      },
    ];
    const records = [
      linesRecord(nativeCodec, [header]),
      ...entries.map((e) => linesRecord(nativeCodec, [e])),
    ];
    writeFileSync(join(dir, `${id}.jsonl.zst`), Buffer.concat(records));
  }
}

/**
 * `count` memories of earlier sessions in `<dataDir>/memory.db`: the recall dataset's realistic turns
 * (bench/data/memory-eval.json, one developer over 40 sessions), repeated as further sessions spread
 * over the past year until there are `count`.
 */
function seedMemories(dataDir: string, count: number): void {
  const dataset = JSON.parse(readFileSync(join(import.meta.dir, "data", "memory-eval.json"), "utf8")) as {
    memories: { session: string; content: string }[];
  };
  mkdirSync(dataDir, { recursive: true });
  const store = MemoryStore.open(join(dataDir, "memory.db"));
  const year = 365 * 86_400_000;
  const now = Date.now();
  const all = Array.from({ length: count }, (_, i) => {
    const { session, content } = dataset.memories[i % dataset.memories.length]!;
    const at = now - year + Math.floor((i / count) * year);
    const round = Math.floor(i / dataset.memories.length);
    return {
      content,
      source: `${session}-${round}`,
      type: "episodic" as const,
      createdAt: at,
      validFrom: at,
    };
  });
  for (let start = 0; start < count; start += 1_000) store.add(all.slice(start, start + 1_000));
  store.close();
}

interface RunCase {
  name: string;
  argv: string[];
  env: Record<string, string>;
  samples: Sample[];
  failed: string;
  /** Target ratio to the floor; undefined for the floor. */
  target?: number;
  /** Sessions seeded in its data dir. */
  seeded?: number;
}

/** Memory on against memory off, both with the same memories, compared with each other. */
interface MemoryPair {
  off: RunCase;
  on: RunCase;
}

async function main(): Promise<void> {
  const prepared = await prepare("oneshot", options);
  if (typeof prepared === "string") {
    process.stdout.write(`run-overhead bench: ${prepared}\n`);
    return;
  }
  const { floor, ion } = prepared;

  await using server = await startFakeLLM();
  const sandbox = mkdtempSync(join(tmpdir(), "ion-bench-"));
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(sandbox, "home"),
    NO_COLOR: "1",
  };
  const floorEnv = { ...base, URL: server.url, OPENAI_API_KEY: "sk-test-fake" };
  /** ion's environment with its own data dir (config dir empty: only built-in defaults). */
  const ionEnv = (data: string, config = "config") => ({
    ...base,
    OPENAI_BASE_URL: `${server.url}/v1`,
    OPENAI_API_KEY: "sk-test-fake",
    ION_CONFIG_DIR: join(sandbox, config),
    ION_DATA_DIR: join(sandbox, data),
    XDG_CACHE_HOME: join(sandbox, "cache"),
  });
  for (const dir of ["home", "config", "config-no-memory", "work"])
    mkdirSync(join(sandbox, dir), { recursive: true });
  writeFileSync(join(sandbox, "config-no-memory", "config.json"), '{"memory":{"enabled":false}}\n');
  const cwd = join(sandbox, "work");
  const run = (...flags: string[]) => [ion, "run", "-m", MODEL, ...flags, "hi"];

  const cases: RunCase[] = [
    { name: "floor (fetch + SSE)", argv: [floor, "hi"], env: floorEnv, samples: [], failed: "" },
    { name: `ion run "hi"`, argv: run(), env: ionEnv("data"), target: 2, samples: [], failed: "" },
    {
      name: `ion run --no-session "hi"`,
      argv: run("--no-session"),
      env: ionEnv("data-none"),
      target: 1.8,
      samples: [],
      failed: "",
    },
  ];
  for (const seeded of [1_000, 10_000]) {
    const data = `data-${seeded}`;
    seedSessions(join(sandbox, data), seeded);
    cases.push({
      name: `ion run "hi", ${seeded.toLocaleString("en")} saved`,
      argv: run(),
      env: ionEnv(data),
      target: 2,
      seeded,
      samples: [],
      failed: "",
    });
  }

  for (const data of ["data-memory-off", "data-memory-on"]) seedMemories(join(sandbox, data), MEMORIES);
  const ask = [ion, "run", "-m", MODEL, QUESTION];
  const memory: MemoryPair = {
    off: {
      name: "question, memory off",
      argv: ask,
      env: ionEnv("data-memory-off", "config-no-memory"),
      samples: [],
      failed: "",
    },
    on: {
      name: `question, memory on, ${MEMORIES.toLocaleString("en")} memories`,
      argv: ask,
      env: ionEnv("data-memory-on"),
      samples: [],
      failed: "",
    },
  };
  cases.push(memory.off, memory.on);

  const rss: number[] = [];
  let rssHow = "";
  const saved = cases[1]!;
  try {
    for (const { item: c, counted } of interleaved(cases, rounds, warmup)) {
      if (c.failed) continue;
      const before = server.requests.length;
      server.enqueueReply("openai", { text: REPLY });
      const sample = await runOnce(c.argv, c.env, cwd);
      const requests = server.requests.length - before;
      const ok = sample.code === 0 && sample.stdout.trim() === REPLY && requests === 1;
      if (!ok) {
        // Stop running this case (a reply it left queued is identical to the next, so harmless).
        c.failed = `${describe(sample)}; requests to the server: ${requests}`;
        continue;
      }
      if (counted) c.samples.push(sample);
    }
    if (!saved.failed) {
      for (let i = 0; i < 5; i++) {
        server.enqueueReply("openai", { text: REPLY });
        const { bytes, how } = await peakRSS(saved.argv, saved.env, cwd);
        rss.push(bytes);
        rssHow = how;
      }
    }
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }

  const med = (c: RunCase) => median(c.samples.map((s) => s.ms));
  const floorCase = cases[0]!;
  const floorMs = med(floorCase);
  const rows: SummaryRow[] = [];
  process.stdout.write(`one-shot: ${rounds} interleaved rounds (+${warmup} warm-up), ${ion}\n\n`);
  const width = Math.max(...cases.map((c) => c.name.length));
  for (const c of cases) {
    if (c.samples.length === 0) {
      process.stdout.write(`${c.name.padEnd(width)}  no successful runs\n`);
      if (c.target)
        rows.push({
          bench: "one-shot",
          name: c.name,
          value: "failed",
          floor: ms(floorMs),
          target: `≤ ${c.target}×`,
          pass: false,
        });
      continue;
    }
    const ratio = med(c) / floorMs;
    const figures = `median ${ms(med(c)).padStart(8)}  p90 ${ms(p90(c.samples.map((s) => s.ms))).padStart(8)}`;
    const verdictText = c.target
      ? `  ${ratio.toFixed(2)}×  (target ≤ ${c.target}×)  ${verdict(ratio <= c.target)}`
      : "";
    process.stdout.write(`${c.name.padEnd(width)}  ${figures}${verdictText}\n`);
    if (c.target === undefined) continue;
    rows.push({
      bench: "one-shot",
      name: c.name,
      value: ms(med(c)),
      floor: ms(floorMs),
      ratio,
      target: `≤ ${c.target}×`,
      pass: ratio <= c.target,
    });
    if (c.seeded !== undefined && saved.samples.length > 0) {
      const growth = med(c) / med(saved) - 1;
      const pass = growth <= GROWTH_TARGET;
      const line = `${(growth * 100).toFixed(1)}% vs no saved sessions (target ≤ ${GROWTH_TARGET * 100}%)  ${verdict(pass)}`;
      process.stdout.write(`${"".padEnd(width)}  growth ${line}\n`);
      rows.push({
        bench: "one-shot",
        name: `  growth, ${c.seeded.toLocaleString("en")} saved`,
        value: `${(growth * 100).toFixed(1)}%`,
        floor: "",
        target: `≤ ${GROWTH_TARGET * 100}%`,
        pass,
      });
    }
  }
  if (memory.off.samples.length > 0 && memory.on.samples.length > 0) {
    const ratio = med(memory.on) / med(memory.off);
    const pass = ratio <= MEMORY_TARGET;
    process.stdout.write(
      `${"".padEnd(width)}  memory on / off ${ratio.toFixed(2)}×  (target ≤ ${MEMORY_TARGET}×)  ${verdict(pass)}\n`,
    );
    rows.push({
      bench: "one-shot",
      name: `  memory on / off, ${MEMORIES.toLocaleString("en")} memories`,
      value: ms(med(memory.on)),
      floor: ms(med(memory.off)),
      ratio,
      target: `≤ ${MEMORY_TARGET}×`,
      pass,
    });
  }
  const peak = Math.max(0, ...rss);
  if (peak > 0) {
    const mb = peak / 2 ** 20;
    const pass = mb <= RSS_TARGET_MB;
    process.stdout.write(
      `\nion run peak RSS  ${mb.toFixed(1)} MB  (target ≤ ${RSS_TARGET_MB} MB)  ${verdict(pass)}  max of ${rss.length} runs, ${rssHow}\n`,
    );
    rows.push({
      bench: "one-shot",
      name: `ion run "hi" peak RSS`,
      value: `${mb.toFixed(1)} MB`,
      floor: "",
      target: `≤ ${RSS_TARGET_MB} MB`,
      pass,
    });
  } else if (!saved.failed) {
    process.stdout.write("\nion run peak RSS  n/a (neither GNU time nor /proc here)\n");
  }
  printFailures(cases.filter((c) => c.failed).map((c): [string, string] => [c.name, c.failed]));
  recordSummary(rows);
}

await main();
