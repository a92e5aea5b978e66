/**
 * `ion models` benchmark (SPEC §12: from a warm cache ≤ 3× the start-up floor). Builds the floor — a
 * compiled Bun hello-world (bench/floor/hello.ts) with ion's own flags — in this run, warms ion's model
 * cache once with `ion models --refresh` against the fake server (test/support/fake-llm.ts) serving
 * the fixture model lists and models.dev snapshot, stops the server (so a timed run that touched the
 * network would fail), then times the floor, `ion models` and `ion models claude --json` interleaved
 * round by round. Prints medians, p90 and the ratio to the floor. Reports only: exit status 0.
 *
 *   bun bench/models.ts [--bin dist/ion] [--rounds 40] [--warmup 4] [--rebuild]
 *
 * Without --bin it uses dist/ion, building it first when missing (or with --rebuild).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";
import { type FakeLLM, FIXTURES, startFakeLLM } from "../test/support/fake-llm.ts";

const ROOT = resolve(import.meta.dir, "..");
const OUT = join(ROOT, "bench/.out");
const TARGET = 3;
const FAKE_KEY = "sk-test-bench-models";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    bin: { type: "string" },
    rounds: { type: "string", default: "40" },
    warmup: { type: "string", default: "4" },
    rebuild: { type: "boolean", default: false },
  },
  strict: true,
});
const rounds = Math.max(1, Number(values.rounds) || 40);
const warmup = Math.max(0, Number(values.warmup) || 0);

interface Case {
  name: string;
  argv: string[];
  target?: number;
  expect: (stdout: string) => boolean;
  times: number[];
}

async function prepare(): Promise<{ floor: string; ion: string } | string> {
  mkdirSync(OUT, { recursive: true });
  const floor = join(OUT, "hello");
  if ((await compile(join(ROOT, "bench/floor/hello.ts"), floor, { quiet: true })) !== 0)
    return "could not compile bench/floor/hello.ts";
  const ion = values.bin ? resolve(values.bin) : join(ROOT, "dist/ion");
  if (!values.bin && (values.rebuild || !existsSync(ion))) {
    process.stdout.write("building dist/ion …\n");
    if ((await compile(join(ROOT, "src/main.ts"), ion, { quiet: true })) !== 0)
      return "could not build dist/ion";
  }
  if (!existsSync(ion)) return `no binary at ${ion}`;
  return { floor, ion };
}

/** Serves the provider list fixtures and the models.dev snapshot, as often as they are asked for. */
function serveCatalog(server: FakeLLM): void {
  const routes: [string, string][] = [
    ["/models-dev/api.json", "models-dev-snapshot.json"],
    ["/openai/v1/models", "models/openai-v1-models.json"],
    ["/anthropic/v1/models", "models/anthropic-v1-models.json"],
    ["/api/tags", "models/ollama-api-tags.json"],
  ];
  for (const [suffix, file] of routes) {
    const body = readFileSync(join(FIXTURES, file), "utf8");
    for (let i = 0; i < 8; i++)
      server.enqueue({ pathSuffix: suffix, headers: { "content-type": "application/json" }, body });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function p90(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.9 * sorted.length))] ?? Number.NaN;
}

async function main(floor: string, ion: string): Promise<void> {
  const sandbox = mkdtempSync(join(tmpdir(), "ion-bench-models-"));
  const server = await startFakeLLM();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: sandbox,
    ION_CONFIG_DIR: join(sandbox, "config"),
    ION_DATA_DIR: join(sandbox, "data"),
    XDG_CACHE_HOME: join(sandbox, "cache"),
    NO_COLOR: "1",
    ION_MODELS_URL: `${server.url}/models-dev/api.json`,
    OPENAI_API_KEY: FAKE_KEY,
    OPENAI_BASE_URL: `${server.url}/openai/v1`,
    ANTHROPIC_API_KEY: FAKE_KEY,
    ANTHROPIC_BASE_URL: `${server.url}/anthropic`,
    OLLAMA_HOST: `127.0.0.1:${server.port}`,
  };
  const cases: Case[] = [
    { name: "floor (hello-world)", argv: [floor], expect: (s) => s === "hello\n", times: [] },
    {
      name: "ion models",
      argv: [ion, "models"],
      target: TARGET,
      expect: (s) => s.startsWith("Model") && s.includes("anthropic/"),
      times: [],
    },
    {
      name: "ion models claude --json",
      argv: [ion, "models", "claude", "--json"],
      target: TARGET,
      expect: (s) => s.startsWith("[") && s.includes('"anthropic/'),
      times: [],
    },
  ];
  const failures = new Map<string, string>();
  let warmed = "";
  try {
    serveCatalog(server);
    const warm = Bun.spawn([ion, "models", "--refresh"], {
      cwd: sandbox,
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(warm.stdout).text(),
      new Response(warm.stderr).text(),
      warm.exited,
    ]);
    warmed = `${out.trimEnd().split("\n").length - 1} models listed, ${server.requests.length} requests`;
    if (code !== 0)
      failures.set("warm-up (ion models --refresh)", `exit ${code}; stderr ${JSON.stringify(err)}`);
    await server.stop(); // from here on, any network use would fail the run

    for (let round = 0; round < warmup + rounds; round++) {
      for (let i = 0; i < cases.length; i++) {
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
        const stderr = run.stderr.toString();
        if (run.exitCode !== 0 || !c.expect(stdout) || stderr.includes("warning")) {
          if (!failures.has(c.name))
            failures.set(
              c.name,
              `exit ${run.exitCode}; stdout ${JSON.stringify(stdout.slice(0, 120))}; stderr ${JSON.stringify(stderr.slice(0, 300))}`,
            );
          continue;
        }
        if (round >= warmup) c.times.push(elapsed);
      }
    }
  } finally {
    await server.stop();
    rmSync(sandbox, { recursive: true, force: true });
  }

  const floorMedian = median(cases[0]!.times);
  const rows = [["case", "median", "p90", "× floor", "target", ""]];
  for (const c of cases) {
    if (c.times.length === 0) {
      rows.push([c.name, "failed", "", "", c.target ? `≤ ${c.target}×` : "", c.target ? "MISS" : ""]);
      continue;
    }
    const med = median(c.times);
    const ratio = med / floorMedian;
    rows.push([
      c.name,
      `${med.toFixed(1)} ms`,
      `${p90(c.times).toFixed(1)} ms`,
      c.target ? `${ratio.toFixed(2)}×` : "1.00×",
      c.target ? `≤ ${c.target}×` : "",
      c.target ? (ratio <= c.target ? "PASS" : "MISS") : "",
    ]);
  }
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  process.stdout.write(`ion models, warm cache: ${rounds} interleaved rounds (+${warmup} warm-up), ${ion}\n`);
  process.stdout.write(
    `cache warmed by \`ion models --refresh\`: ${warmed}; server stopped before timing\n\n`,
  );
  for (const row of rows) {
    const line = row.map((cell, col) =>
      col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!),
    );
    process.stdout.write(`${line.join("  ").trimEnd()}\n`);
  }
  for (const [name, why] of failures) process.stdout.write(`\nFAILED ${name}: ${why}\n`);
}

const prepared = await prepare();
if (typeof prepared === "string") process.stdout.write(`models bench: ${prepared}\n`);
else await main(prepared.floor, prepared.ion);
