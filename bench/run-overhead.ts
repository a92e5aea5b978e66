/**
 * One-shot benchmark (SPEC §12): `ion run "hi"` end to end against a local fake OpenAI-wire server,
 * against the floor — a dependency-free compiled client doing one streaming `fetch` and SSE read
 * (bench/floor/oneshot.ts, built with ion's own flags in this run). Runs alternate; prints medians,
 * p90, the ratio (target ≤ 1.5×) and ion's peak RSS (target ≤ 80 MB). Reports only: exit status 0.
 *
 *   bun bench/run-overhead.ts [--bin dist/ion] [--rounds 30] [--warmup 3] [--rebuild]
 *
 * Without --bin it uses dist/ion, building it first when missing (or with --rebuild).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLLM } from "../test/support/fake-llm.ts";
import {
  benchOptions,
  gnuTimePeak,
  hasGnuTime,
  interleaved,
  median,
  p90,
  prepare,
  printFailures,
  runOnce,
  type Sample,
  underGnuTime,
  verdict,
} from "./lib.ts";

const REPLY = "Hello!";
const MODEL = "openai/gpt-4o-mini";
const RATIO_TARGET = 1.5;
const RSS_TARGET_MB = 80;

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
  const ionEnv = {
    ...base,
    OPENAI_BASE_URL: `${server.url}/v1`,
    OPENAI_API_KEY: "sk-test-fake",
    ION_CONFIG_DIR: join(sandbox, "config"), // empty: only built-in defaults
    ION_DATA_DIR: join(sandbox, "data"),
    XDG_CACHE_HOME: join(sandbox, "cache"),
  };
  for (const dir of ["home", "config", "data", "work"]) mkdirSync(join(sandbox, dir), { recursive: true });
  const cwd = join(sandbox, "work");

  const cases = [
    { name: "floor (fetch + SSE)", argv: [floor, "hi"], env: floorEnv, samples: [] as Sample[], failed: "" },
    {
      name: `ion run "hi"`,
      argv: [ion, "run", "-m", MODEL, "hi"],
      env: ionEnv,
      samples: [] as Sample[],
      failed: "",
    },
  ];

  const rss: number[] = [];
  let rssHow = "";
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
    if (!cases[1]!.failed) {
      for (let i = 0; i < 5; i++) {
        server.enqueueReply("openai", { text: REPLY });
        const { bytes, how } = await peakRSS(cases[1]!.argv, ionEnv, cwd);
        rss.push(bytes);
        rssHow = how;
      }
    }
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }

  const [floorCase, ionCase] = cases as [(typeof cases)[0], (typeof cases)[0]];
  const med = (c: typeof floorCase) => median(c.samples.map((s) => s.ms));
  const p90Of = (c: typeof floorCase) => p90(c.samples.map((s) => s.ms));
  process.stdout.write(`one-shot: ${rounds} alternating rounds (+${warmup} warm-up), ${ion}\n\n`);
  for (const c of cases) {
    if (c.samples.length === 0) process.stdout.write(`${c.name.padEnd(20)}  no successful runs\n`);
    else
      process.stdout.write(
        `${c.name.padEnd(20)}  median ${med(c).toFixed(1)} ms  p90 ${p90Of(c).toFixed(1)} ms\n`,
      );
  }
  if (floorCase.samples.length && ionCase.samples.length) {
    const ratio = med(ionCase) / med(floorCase);
    process.stdout.write(
      `\nion / floor          ${ratio.toFixed(2)}×  (target ≤ ${RATIO_TARGET}×)  ${verdict(ratio <= RATIO_TARGET)}\n`,
    );
    const peak = Math.max(0, ...rss);
    if (peak > 0) {
      const mb = peak / 2 ** 20;
      const line = `${mb.toFixed(1)} MB  (target ≤ ${RSS_TARGET_MB} MB)  ${verdict(mb <= RSS_TARGET_MB)}  max of ${rss.length} runs, ${rssHow}`;
      process.stdout.write(`ion peak RSS         ${line}\n`);
    } else {
      process.stdout.write("ion peak RSS         n/a (neither GNU time nor /proc here)\n");
    }
  }
  printFailures(cases.filter((c) => c.failed).map((c): [string, string] => [c.name, c.failed]));
}

await main();
