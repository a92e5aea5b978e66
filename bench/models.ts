/**
 * `ion models` benchmark (SPEC §12: from a warm cache ≤ 2× the start-up floor). Builds the floor — a
 * compiled Bun hello-world (bench/floor/hello.ts) with ion's own flags — in this run, warms ion's model
 * cache once with `ion models --refresh` against the fake server (test/support/fake-llm.ts) serving
 * the fixture model lists and models.dev snapshot, stops the server (so a timed run that touched the
 * network would fail), then times the floor, `ion models` and `ion models claude --json` interleaved
 * round by round. Prints medians, p90 and the ratio to the floor. Reports only: exit status 0.
 *
 *   bun bench/models.ts [--bin dist/ion] [--rounds 40] [--warmup 4] [--rebuild]
 *
 * Without --bin it uses dist/ion, building it first when missing (or with --rebuild). The fixtures
 * come from `$ION_FIXTURES`, else the first `shared/fixtures` above the checkout.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeLLM, startFakeLLM } from "../test/support/fake-llm.ts";
import {
  benchOptions,
  type Case,
  fixturesDir,
  prepare,
  printFailures,
  printRatioTable,
  ratioRows,
  recordSummary,
  runOnce,
  sandboxEnv,
  timeCases,
} from "./lib.ts";

const TARGET = 2;
const FAKE_KEY = "sk-test-bench-models";

const options = benchOptions({ rounds: 40, warmup: 4 });
const { rounds, warmup } = options;

/** Serves the provider list fixtures and the models.dev snapshot, as often as they are asked for. */
function serveCatalog(server: FakeLLM, fixtures: string): void {
  const routes: [string, string][] = [
    ["/models-dev/api.json", "models-dev-snapshot.json"],
    ["/openai/v1/models", "models/openai-v1-models.json"],
    ["/anthropic/v1/models", "models/anthropic-v1-models.json"],
    ["/api/tags", "models/ollama-api-tags.json"],
  ];
  for (const [suffix, file] of routes) {
    const body = readFileSync(join(fixtures, file), "utf8");
    for (let i = 0; i < 8; i++)
      server.enqueue({ pathSuffix: suffix, headers: { "content-type": "application/json" }, body });
  }
}

async function main(floor: string, ion: string, fixtures: string): Promise<void> {
  const sandbox = mkdtempSync(join(tmpdir(), "ion-bench-models-"));
  const server = await startFakeLLM();
  const env: Record<string, string> = {
    ...sandboxEnv(sandbox),
    XDG_CACHE_HOME: join(sandbox, "cache"),
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
    serveCatalog(server, fixtures);
    const warm = await runOnce([ion, "models", "--refresh"], env, sandbox);
    warmed = `${warm.stdout.trimEnd().split("\n").length - 1} models listed, ${server.requests.length} requests`;
    if (warm.code !== 0)
      failures.set(
        "warm-up (ion models --refresh)",
        `exit ${warm.code}; stderr ${JSON.stringify(warm.stderr)}`,
      );
    await server.stop(); // from here on, any network use would fail the run

    const timing = { cwd: sandbox, env, rounds, warmup, stderrChars: 300, stderrForbids: "warning" };
    timeCases(cases, timing, failures);
  } finally {
    await server.stop();
    rmSync(sandbox, { recursive: true, force: true });
  }

  process.stdout.write(`ion models, warm cache: ${rounds} interleaved rounds (+${warmup} warm-up), ${ion}\n`);
  process.stdout.write(
    `cache warmed by \`ion models --refresh\`: ${warmed}; server stopped before timing\n\n`,
  );
  printRatioTable(cases, { rss: false });
  printFailures(failures);
  recordSummary(ratioRows("models", cases));
}

const fixtures = fixturesDir();
const prepared = await prepare("hello", options);
if (fixtures === undefined)
  process.stdout.write("models bench: no shared/fixtures found above the checkout; set ION_FIXTURES\n");
else if (typeof prepared === "string") process.stdout.write(`models bench: ${prepared}\n`);
else await main(prepared.floor, prepared.ion, fixtures);
