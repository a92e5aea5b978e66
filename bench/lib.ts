/**
 * What the benchmarks share: their options (`--bin`, `--rounds`, `--warmup`, `--rebuild`), building
 * the floor and finding (or building) dist/ion, the sandbox environment, interleaved timing rounds,
 * medians and percentiles, peak RSS under GNU time, and the table with PASS/MISS against the targets.
 */
import { appendFileSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";

export const ROOT = resolve(import.meta.dir, "..");
export const OUT = join(ROOT, "bench/.out");

/**
 * The shared test fixtures (model lists, the models.dev snapshot, recorded streams): `$ION_FIXTURES`
 * when set, else the first `shared/fixtures` directory found looking upward from the checkout (it
 * usually sits beside it). Undefined when there is none.
 */
export function fixturesDir(): string | undefined {
  const given = process.env.ION_FIXTURES;
  if (given) return isDir(given) ? resolve(given) : undefined;
  for (let dir = ROOT; ; dir = dirname(dir)) {
    const candidate = join(dir, "shared", "fixtures");
    if (isDir(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // missing or unreadable: not the fixtures
  }
}

/** One line of the summary `bench/all.ts` prints: a figure, its floor, and its target. */
export interface SummaryRow {
  bench: string;
  name: string;
  /** The figure as printed, e.g. "18.2 ms" or "41.0 MB". */
  value: string;
  /** The floor's figure as printed, or "" when the target is absolute. */
  floor: string;
  /** value / floor, when there is a floor. */
  ratio?: number;
  /** e.g. "≤ 2×" or "< 25 ms". */
  target: string;
  pass: boolean | undefined;
}

/**
 * Adds rows to the summary file named by `$ION_BENCH_SUMMARY` (JSON Lines), which `bench/all.ts`
 * sets for each script it runs; a script run on its own records nothing.
 */
export function recordSummary(rows: SummaryRow[]): void {
  const file = process.env.ION_BENCH_SUMMARY;
  if (!file) return;
  appendFileSync(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(""));
}

export const ms = (value: number): string => `${value.toFixed(1)} ms`;

export interface BenchOptions {
  /** The binary to measure; undefined means dist/ion. */
  bin: string | undefined;
  rebuild: boolean;
  rounds: number;
  warmup: number;
}

/** Parses `[--bin PATH] [--rounds N] [--warmup N] [--rebuild]`, with this script's default rounds. */
export function benchOptions(defaults: { rounds: number; warmup: number }): BenchOptions {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      bin: { type: "string" },
      rounds: { type: "string", default: String(defaults.rounds) },
      warmup: { type: "string", default: String(defaults.warmup) },
      rebuild: { type: "boolean", default: false },
    },
    strict: true,
  });
  return {
    bin: values.bin,
    rebuild: values.rebuild,
    rounds: Math.max(1, Number(values.rounds) || defaults.rounds),
    warmup: Math.max(0, Number(values.warmup) || 0),
  };
}

/**
 * Compiles the floor bench/floor/<floor>.ts into bench/.out/ with ion's own flags, and finds the binary
 * to measure: --bin, else dist/ion, built first when missing (or with --rebuild). Returns the two
 * paths, or why it could not.
 */
export async function prepare(
  floor: "hello" | "oneshot",
  options: BenchOptions,
): Promise<{ floor: string; ion: string } | string> {
  mkdirSync(OUT, { recursive: true });
  const floorBin = join(OUT, floor);
  if ((await compile(join(ROOT, `bench/floor/${floor}.ts`), floorBin, { quiet: true })) !== 0)
    return `could not compile bench/floor/${floor}.ts`;
  const ion = options.bin ? resolve(options.bin) : join(ROOT, "dist/ion");
  if (!options.bin && (options.rebuild || !existsSync(ion))) {
    process.stdout.write("building dist/ion …\n");
    if ((await compile(join(ROOT, "src/main.ts"), ion, { quiet: true })) !== 0)
      return "could not build dist/ion";
  }
  if (!existsSync(ion)) return `no binary at ${ion}`;
  return { floor: floorBin, ion };
}

/**
 * A neutral environment for ion in a temporary dir: that dir as HOME, empty config and data dirs in it,
 * no colour, so nothing the user has can change the figures.
 */
export function sandboxEnv(sandbox: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: sandbox,
    ION_CONFIG_DIR: join(sandbox, "config"),
    ION_DATA_DIR: join(sandbox, "data"),
    NO_COLOR: "1",
  };
}

/** One command timed against the floor. */
export interface Case {
  name: string;
  argv: string[];
  /** Target ratio to the floor (SPEC §12); undefined for the floor itself. */
  target?: number;
  expect: (stdout: string) => boolean;
  /** Wall times of the counted runs, in ms. */
  times: number[];
  /** Peak RSS of separate runs, in bytes, where measured. */
  rss?: number[];
}

/** The element at quantile q of an ascending array, or NaN when it is empty. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const ascending = (values: number[]): number[] => [...values].sort((a, b) => a - b);

export const median = (values: number[]): number => quantile(ascending(values), 0.5);
export const p90 = (values: number[]): number => quantile(ascending(values), 0.9);

export const verdict = (pass: boolean): "PASS" | "MISS" => (pass ? "PASS" : "MISS");

/**
 * Every case once a round, the warm-up rounds first (`counted` false), rotating the order each round
 * so no case always runs right after another and machine noise hits every case alike.
 */
export function* interleaved<T>(
  cases: readonly T[],
  rounds: number,
  warmup: number,
): Generator<{ item: T; counted: boolean }> {
  for (let round = 0; round < warmup + rounds; round++) {
    for (let i = 0; i < cases.length; i++) {
      yield { item: cases[(i + round) % cases.length]!, counted: round >= warmup };
    }
  }
}

export interface TimingOptions {
  cwd: string;
  env: Record<string, string>;
  rounds: number;
  warmup: number;
  /** How much of a failed run's stderr the report quotes. */
  stderrChars: number;
  /** A run whose stderr contains this fails. */
  stderrForbids?: string;
}

/**
 * Times the cases' runs, interleaved, into their `times`. A run fails when it exits non-zero or its
 * stdout isn't what the case expects; the first failure of each case is added to `failures`, and is
 * not timed.
 */
export function timeCases(cases: Case[], options: TimingOptions, failures: Map<string, string>): void {
  for (const { item: c, counted } of interleaved(cases, options.rounds, options.warmup)) {
    const started = performance.now();
    const run = Bun.spawnSync(c.argv, {
      cwd: options.cwd,
      env: options.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const elapsed = performance.now() - started;
    const stdout = run.stdout.toString();
    const stderr = run.stderr.toString();
    const forbidden = options.stderrForbids !== undefined && stderr.includes(options.stderrForbids);
    if (run.exitCode !== 0 || !c.expect(stdout) || forbidden) {
      if (!failures.has(c.name)) {
        const why = `exit ${run.exitCode}; stdout ${JSON.stringify(stdout.slice(0, 120))}; stderr ${JSON.stringify(stderr.slice(0, options.stderrChars))}`;
        failures.set(c.name, why);
      }
      continue;
    }
    if (counted) c.times.push(elapsed);
  }
}

export interface Sample {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs one process to the end. Async, not spawnSync: the bench's own event loop must keep serving a
 * fake LLM meanwhile.
 */
export async function runOnce(argv: string[], env: Record<string, string>, cwd: string): Promise<Sample> {
  const started = performance.now();
  const child = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { ms: performance.now() - started, code, stdout, stderr };
}

const GNU_TIME = "/usr/bin/time";

/** Whether GNU time is installed, for {@link underGnuTime}. */
export const hasGnuTime = (): boolean => existsSync(GNU_TIME);

/**
 * argv run under GNU time, which then prints the peak RSS in kB (`%M`) as the last line of stderr.
 * Peak RSS is measured so, not from the spawn's own rusage: Linux starts a child's maxrss at the
 * spawning process's RSS (the bench's own, ~33 MB), so that reads high for small programs.
 */
export const underGnuTime = (argv: string[]): string[] => [GNU_TIME, "-f", "%M", ...argv];

/** The peak RSS in bytes that GNU time reported on a run's stderr, or 0 when the run failed. */
export function gnuTimePeak(exitCode: number | null, stderr: string): number {
  const kb = Number(stderr.trim().split("\n").at(-1));
  return exitCode === 0 && Number.isFinite(kb) && kb > 0 ? kb * 1024 : 0;
}

/** Peak RSS in bytes over a few runs under GNU time, or [] when it is not installed. */
export function peakRSS(
  argv: string[],
  options: { cwd: string; env: Record<string, string> },
  runs = 5,
): number[] {
  if (!hasGnuTime()) return [];
  const peaks: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = Bun.spawnSync(underGnuTime(argv), {
      ...options,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const bytes = gnuTimePeak(run.exitCode, run.stderr.toString());
    if (bytes > 0) peaks.push(bytes);
  }
  return peaks;
}

/**
 * Prints the cases as a table — median, p90, the ratio to the floor (the first case), the target and
 * PASS/MISS, and with `rss` the peak RSS — columns aligned, the first to the left and the rest to the
 * right. A case with no successful run shows `failed`, a MISS when it has a target.
 */
export function printRatioTable(cases: Case[], options: { rss: boolean }): void {
  const floorMedian = median(cases[0]!.times);
  const header = ["case", "median", "p90", "× floor", "target", ""];
  const rows = [options.rss ? [...header, "peak RSS"] : header];
  for (const c of cases) {
    const target = c.target ? `≤ ${c.target}×` : "";
    if (c.times.length === 0) {
      const row = [c.name, "failed", "", "", target, c.target ? "MISS" : ""];
      if (options.rss) row.push("");
      rows.push(row);
      continue;
    }
    const med = median(c.times);
    const ratio = med / floorMedian;
    const row = [
      c.name,
      `${med.toFixed(1)} ms`,
      `${p90(c.times).toFixed(1)} ms`,
      c.target ? `${ratio.toFixed(2)}×` : "1.00×",
      target,
      c.target ? verdict(ratio <= c.target) : "",
    ];
    if (options.rss) {
      const rss = c.rss ?? [];
      row.push(rss.length ? `${(Math.max(...rss) / 2 ** 20).toFixed(1)} MB` : "n/a");
    }
    rows.push(row);
  }
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  for (const row of rows) {
    const line = row.map((cell, col) =>
      col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!),
    );
    process.stdout.write(`${line.join("  ").trimEnd()}\n`);
  }
}

/** The summary rows of a ratio table: every case with a target, against the first case (the floor). */
export function ratioRows(bench: string, cases: Case[]): SummaryRow[] {
  const floor = median(cases[0]!.times);
  return cases
    .filter((c) => c.target !== undefined)
    .map((c) => {
      if (c.times.length === 0)
        return {
          bench,
          name: c.name,
          value: "failed",
          floor: ms(floor),
          target: `≤ ${c.target}×`,
          pass: false,
        };
      const ratio = median(c.times) / floor;
      return {
        bench,
        name: c.name,
        value: ms(median(c.times)),
        floor: ms(floor),
        ratio,
        target: `≤ ${c.target}×`,
        pass: ratio <= c.target!,
      };
    });
}

/** Prints each failure, name and why, after the figures. */
export function printFailures(failures: Iterable<[string, string]>): void {
  for (const [name, why] of failures) process.stdout.write(`\nFAILED ${name}: ${why}\n`);
}
