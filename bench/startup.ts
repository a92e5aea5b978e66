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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  benchOptions,
  type Case,
  peakRSS,
  prepare,
  printFailures,
  printRatioTable,
  sandboxEnv,
  timeCases,
} from "./lib.ts";

const options = benchOptions({ rounds: 50, warmup: 5 });
const { rounds, warmup } = options;

function main(floor: string, ion: string): void {
  const cases: Case[] = [
    { name: "floor (hello-world)", argv: [floor], expect: (s) => s === "hello\n", times: [], rss: [] },
    {
      name: "ion --version",
      argv: [ion, "--version"],
      target: 1.5,
      expect: (s) => /^ion \d+\.\d+\.\d+\S*( \([0-9a-f]{7,}\))?\n$/.test(s),
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
  const env = sandboxEnv(sandbox);
  const failures = new Map<string, string>();

  try {
    timeCases(cases, { cwd: sandbox, env, rounds, warmup, stderrChars: 200 }, failures);
    for (const c of cases) c.rss = peakRSS(c.argv, { cwd: sandbox, env });
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }

  process.stdout.write(`start-up: ${rounds} interleaved rounds (+${warmup} warm-up), ${ion}\n\n`);
  printRatioTable(cases, { rss: true });
  printFailures(failures);
}

const prepared = await prepare("hello", options);
if (typeof prepared === "string") process.stdout.write(`startup bench: ${prepared}\n`);
else main(prepared.floor, prepared.ion);
