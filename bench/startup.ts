/**
 * Start-up benchmark (SPEC §12): times a compiled Bun hello-world (the floor, bench/floor/hello.ts,
 * built with ion's own flags in this run) against `ion --version`, `ion --help` and `ion run --help`,
 * interleaved round by round so machine noise hits every case alike, and prints medians, p90,
 * the ratio to the floor and the targets. Reports only: the exit status is 0 whatever the figures.
 *
 *   bun bench/startup.ts [--bin dist/ion] [--rounds 50] [--warmup 5] [--rebuild]
 *
 * Without --bin it uses dist/ion, building it first when missing (or with --rebuild).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";

const ROOT = resolve(import.meta.dir, "..");
const OUT = join(ROOT, "bench/.out");

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    bin: { type: "string" },
    rounds: { type: "string", default: "50" },
    warmup: { type: "string", default: "5" },
    rebuild: { type: "boolean", default: false },
  },
  strict: true,
});
const rounds = Math.max(1, Number(values.rounds) || 50);
const warmup = Math.max(0, Number(values.warmup) || 0);

interface Case {
  name: string;
  argv: string[];
  /** Target ratio to the floor (SPEC §12); undefined for the floor itself. */
  target?: number;
  expect: (stdout: string) => boolean;
  times: number[];
  rss: number[];
}

async function prepare(): Promise<{ floor: string; ion: string } | string> {
  mkdirSync(OUT, { recursive: true });
  const floor = join(OUT, "hello");
  if ((await compile(join(ROOT, "bench/floor/hello.ts"), floor, { quiet: true })) !== 0) {
    return "could not compile bench/floor/hello.ts";
  }
  let ion = values.bin ? resolve(values.bin) : join(ROOT, "dist/ion");
  if (!values.bin && (values.rebuild || !existsSync(ion))) {
    process.stdout.write("building dist/ion …\n");
    if ((await compile(join(ROOT, "src/main.ts"), ion, { quiet: true })) !== 0)
      return "could not build dist/ion";
  }
  if (!existsSync(ion)) return `no binary at ${ion}`;
  ion = resolve(ion);
  return { floor, ion };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function median(values: number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

const TIME = "/usr/bin/time";

/**
 * Peak RSS in bytes over a few runs under GNU time (`%M`), or [] when it is not installed. Not from
 * the spawn's own rusage: Linux starts a child's maxrss at the spawning process's RSS (this bench's
 * ~33 MB), so that reads high for small programs.
 */
function peakRSS(argv: string[], options: { cwd: string; env: Record<string, string> }, runs = 5): number[] {
  if (!existsSync(TIME)) return [];
  const peaks: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = Bun.spawnSync([TIME, "-f", "%M", ...argv], {
      ...options,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const kb = Number(run.stderr.toString().trim().split("\n").at(-1));
    if (run.exitCode === 0 && Number.isFinite(kb) && kb > 0) peaks.push(kb * 1024);
  }
  return peaks;
}

function main(floor: string, ion: string): void {
  const cases: Case[] = [
    { name: "floor (hello-world)", argv: [floor], expect: (s) => s === "hello\n", times: [], rss: [] },
    {
      name: "ion --version",
      argv: [ion, "--version"],
      target: 1.5,
      expect: (s) => /^ion \d+\.\d+\.\d+\S*\n$/.test(s),
      times: [],
      rss: [],
    },
    {
      name: "ion --help",
      argv: [ion, "--help"],
      target: 4,
      expect: (s) => s.includes("USAGE"),
      times: [],
      rss: [],
    },
    {
      name: "ion run --help",
      argv: [ion, "run", "--help"],
      target: 4,
      expect: (s) => s.includes("USAGE"),
      times: [],
      rss: [],
    },
  ];

  // A neutral working directory and an empty config dir: nothing the user has can change the figures.
  const sandbox = mkdtempSync(join(tmpdir(), "ion-bench-"));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: sandbox,
    ION_CONFIG_DIR: join(sandbox, "config"),
    ION_DATA_DIR: join(sandbox, "data"),
    NO_COLOR: "1",
  };
  const failures = new Map<string, string>();

  try {
    for (let round = 0; round < warmup + rounds; round++) {
      for (let i = 0; i < cases.length; i++) {
        // Rotate the order each round so no case always runs right after another.
        const c = cases[(i + round) % cases.length]!;
        const started = performance.now();
        const run = Bun.spawnSync(c.argv, {
          cwd: sandbox,
          env,
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        });
        const elapsed = performance.now() - started;
        const stdout = run.stdout.toString();
        if (run.exitCode !== 0 || !c.expect(stdout)) {
          if (!failures.has(c.name)) {
            const why = `exit ${run.exitCode}; stdout ${JSON.stringify(stdout.slice(0, 120))}; stderr ${JSON.stringify(run.stderr.toString().slice(0, 200))}`;
            failures.set(c.name, why);
          }
          continue;
        }
        if (round >= warmup) c.times.push(elapsed);
      }
    }
    for (const c of cases) c.rss = peakRSS(c.argv, { cwd: sandbox, env });
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }

  const floorMedian = median(cases[0]!.times);
  const rows = [["case", "median", "p90", "× floor", "target", "", "peak RSS"]];
  for (const c of cases) {
    if (c.times.length === 0) {
      rows.push([c.name, "failed", "", "", c.target ? `≤ ${c.target}×` : "", c.target ? "MISS" : "", ""]);
      continue;
    }
    const sorted = [...c.times].sort((a, b) => a - b);
    const med = quantile(sorted, 0.5);
    const ratio = med / floorMedian;
    rows.push([
      c.name,
      `${med.toFixed(1)} ms`,
      `${quantile(sorted, 0.9).toFixed(1)} ms`,
      c.target ? `${ratio.toFixed(2)}×` : "1.00×",
      c.target ? `≤ ${c.target}×` : "",
      c.target ? (ratio <= c.target ? "PASS" : "MISS") : "",
      c.rss.length ? `${(Math.max(...c.rss) / 2 ** 20).toFixed(1)} MB` : "n/a",
    ]);
  }
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  process.stdout.write(`start-up: ${rounds} interleaved rounds (+${warmup} warm-up), ${ion}\n\n`);
  for (const row of rows) {
    const line = row.map((cell, col) =>
      col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!),
    );
    process.stdout.write(`${line.join("  ").trimEnd()}\n`);
  }
  for (const [name, why] of failures) process.stdout.write(`\nFAILED ${name}: ${why}\n`);
}

const prepared = await prepare();
if (typeof prepared === "string") process.stdout.write(`startup bench: ${prepared}\n`);
else main(prepared.floor, prepared.ion);
