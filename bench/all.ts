/**
 * Every benchmark, one after the other, then one summary table: each figure with its floor, the
 * ratio, the target and PASS/MISS. Each script prints its own report as it goes (see bench/README.md).
 *
 *   bun bench/all.ts [--bin dist/ion] [--rebuild] [--rounds N]
 *
 * `--rounds` is passed to the start-up, one-shot and `ion models` scripts (their own defaults
 * otherwise); the history bench keeps its own. Reports only: exit status 0 whatever the figures.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, type SummaryRow, verdict } from "./lib.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    bin: { type: "string" },
    rebuild: { type: "boolean", default: false },
    rounds: { type: "string" },
  },
  strict: true,
});

const scratch = mkdtempSync(join(tmpdir(), "ion-bench-all-"));
const summaryFile = join(scratch, "summary.jsonl");

function runScript(script: string, args: string[]): void {
  process.stdout.write(`\n━━ bun bench/${script} ${args.join(" ")}\n`);
  const child = Bun.spawnSync([process.execPath, join(ROOT, "bench", script), ...args], {
    env: { ...process.env, ION_BENCH_SUMMARY: summaryFile },
    stdout: "inherit",
    stderr: "inherit",
  });
  if (child.exitCode !== 0) process.stdout.write(`bench/${script} exited with ${child.exitCode}\n`);
}

try {
  const shared: string[] = [];
  if (values.bin) shared.push("--bin", values.bin);
  if (values.rounds) shared.push("--rounds", values.rounds);
  // Only the first script rebuilds dist/ion; the others measure that build.
  runScript("startup.ts", [...shared, ...(values.rebuild && !values.bin ? ["--rebuild"] : [])]);
  runScript("run-overhead.ts", shared);
  runScript("models.ts", shared);
  runScript("history.ts", []);

  let rows: SummaryRow[] = [];
  try {
    rows = readFileSync(summaryFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as SummaryRow);
  } catch {
    rows = []; // no script recorded anything
  }
  printSummary(rows);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function printSummary(rows: SummaryRow[]): void {
  const table = [["bench", "case", "ion", "floor", "× floor", "target", ""]];
  for (const row of rows) {
    const result = row.pass === undefined ? "" : verdict(row.pass);
    const ratio = row.ratio === undefined ? "" : `${row.ratio.toFixed(2)}×`;
    table.push([row.bench, row.name, row.value, row.floor, ratio, row.target, result]);
  }
  const widths = table[0]!.map((_, col) => Math.max(...table.map((r) => r[col]!.length)));
  process.stdout.write("\n━━ summary\n");
  for (const row of table) {
    const line = row.map((cell, col) => (col < 2 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!)));
    process.stdout.write(`${line.join("  ").trimEnd()}\n`);
  }
  const misses = rows.filter((row) => row.pass === false).length;
  process.stdout.write(`\n${rows.length - misses} of ${rows.length} targets met\n`);
}
