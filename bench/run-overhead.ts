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
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";
import { startFakeLLM } from "../test/support/fake-llm.ts";

const ROOT = resolve(import.meta.dir, "..");
const OUT = join(ROOT, "bench/.out");
const REPLY = "Hello!";
const MODEL = "openai/gpt-4o-mini";
const RATIO_TARGET = 1.5;
const RSS_TARGET_MB = 80;

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    bin: { type: "string" },
    rounds: { type: "string", default: "30" },
    warmup: { type: "string", default: "3" },
    rebuild: { type: "boolean", default: false },
  },
  strict: true,
});
const rounds = Math.max(1, Number(values.rounds) || 30);
const warmup = Math.max(0, Number(values.warmup) || 0);

interface Sample {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs one process to the end. Async, not spawnSync: the bench's own event loop must keep serving the
 * fake LLM meanwhile.
 */
async function runOnce(argv: string[], env: Record<string, string>, cwd: string): Promise<Sample> {
  const started = performance.now();
  const child = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { ms: performance.now() - started, code, stdout, stderr };
}

const TIME = "/usr/bin/time";

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
  if (existsSync(TIME)) {
    const sample = await runOnce([TIME, "-f", "%M", ...argv], env, cwd);
    const kb = Number(sample.stderr.trim().split("\n").at(-1));
    return { bytes: sample.code === 0 && kb > 0 ? kb * 1024 : 0, how: "GNU time %M" };
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

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function describe(sample: Sample): string {
  const clip = (s: string) => JSON.stringify(s.length > 400 ? `${s.slice(0, 400)}…` : s);
  return `exit ${sample.code}; stdout ${clip(sample.stdout)}; stderr ${clip(sample.stderr)}`;
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const floor = join(OUT, "oneshot");
  if ((await compile(join(ROOT, "bench/floor/oneshot.ts"), floor, { quiet: true })) !== 0) {
    process.stdout.write("run-overhead bench: could not compile bench/floor/oneshot.ts\n");
    return;
  }
  const ion = values.bin ? resolve(values.bin) : join(ROOT, "dist/ion");
  if (!values.bin && (values.rebuild || !existsSync(ion))) {
    process.stdout.write("building dist/ion …\n");
    if ((await compile(join(ROOT, "src/main.ts"), ion, { quiet: true })) !== 0) {
      process.stdout.write("run-overhead bench: could not build dist/ion\n");
      return;
    }
  }
  if (!existsSync(ion)) {
    process.stdout.write(`run-overhead bench: no binary at ${ion}\n`);
    return;
  }

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
    for (let round = 0; round < warmup + rounds; round++) {
      for (let i = 0; i < cases.length; i++) {
        const c = cases[(i + round) % cases.length]!;
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
        if (round >= warmup) c.samples.push(sample);
      }
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
  const med = (c: typeof floorCase) =>
    quantile(
      c.samples.map((s) => s.ms).sort((a, b) => a - b),
      0.5,
    );
  const p90 = (c: typeof floorCase) =>
    quantile(
      c.samples.map((s) => s.ms).sort((a, b) => a - b),
      0.9,
    );
  process.stdout.write(`one-shot: ${rounds} alternating rounds (+${warmup} warm-up), ${ion}\n\n`);
  for (const c of cases) {
    if (c.samples.length === 0) process.stdout.write(`${c.name.padEnd(20)}  no successful runs\n`);
    else
      process.stdout.write(
        `${c.name.padEnd(20)}  median ${med(c).toFixed(1)} ms  p90 ${p90(c).toFixed(1)} ms\n`,
      );
  }
  if (floorCase.samples.length && ionCase.samples.length) {
    const ratio = med(ionCase) / med(floorCase);
    const verdict = ratio <= RATIO_TARGET ? "PASS" : "MISS";
    process.stdout.write(
      `\nion / floor          ${ratio.toFixed(2)}×  (target ≤ ${RATIO_TARGET}×)  ${verdict}\n`,
    );
    const peak = Math.max(0, ...rss);
    if (peak > 0) {
      const mb = peak / 2 ** 20;
      const rssVerdict = mb <= RSS_TARGET_MB ? "PASS" : "MISS";
      const line = `${mb.toFixed(1)} MB  (target ≤ ${RSS_TARGET_MB} MB)  ${rssVerdict}  max of ${rss.length} runs, ${rssHow}`;
      process.stdout.write(`ion peak RSS         ${line}\n`);
    } else {
      process.stdout.write("ion peak RSS         n/a (neither GNU time nor /proc here)\n");
    }
  }
  for (const c of cases) {
    if (c.failed) process.stdout.write(`\nFAILED ${c.name}: ${c.failed}\n`);
  }
}

await main();
