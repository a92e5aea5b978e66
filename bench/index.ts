/**
 * Code index speed (issue 24's bars), over a corpus of at least 100 000 lines of TypeScript and
 * JavaScript copied from installed packages (the .ts sources of @anthropic-ai/sdk and zod, the .d.ts
 * files of @types/node and hono's built .js, a file of each in turn in path order until the line count
 * is reached; files over the index's 1 MiB cap are left out of both sides):
 *
 *   - parse-only floor: one fresh process reads and parses every file with the same grammars
 *     (parse.ts's parseOnly: no tags query, nothing stored)
 *   - cold index: one fresh process opens an empty index and runs a full update — walk, stat, read,
 *     hash, parse, tags query, store                                       bar ≤ 2× the floor
 *   - no-change update: a fresh process opens the index and updates it     bar < 300 ms
 *   - lookups in a warm process: a definition by exact name (bar p50 < 5 ms), by a fragment of a name
 *     (fuzzy), references to a name, a file's outline
 *   - the repo map at 1 000 tokens, warm: the file graph read from the database and ranked and cut by
 *     repo-map.ts                                                          bar < 100 ms
 *
 * Parsing with the tags query and nothing stored is timed the same way, to show where the rest goes.
 * Floor and cold index run interleaved, round by round, each timed inside its process from its first
 * grammar load to its end (process start-up is not counted on either side). Prints PASS/MISS and
 * exits 0 whatever the figures.
 *
 *   bun bench/index.ts [--lines N] [--rounds N (5)] [--lookups N (500)]
 */
import { Database } from "bun:sqlite";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { languageOf } from "../src/code-index/languages.ts";
import { fileGraph } from "../src/code-index/query.ts";
import { renderRepoMap } from "../src/code-index/repo-map.ts";
import { CodeIndex } from "../src/code-index/store.ts";
import { median, OUT, quantile, ROOT, recordSummary, type SummaryRow, verdict } from "./lib.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
};
const LINES = option("--lines", 100_000);
const ROUNDS = option("--rounds", 5);
const LOOKUPS = option("--lookups", 500);
/** TypeScript sources (the Anthropic SDK's and zod's src/), Node's declarations, hono's built JavaScript. */
const SOURCES = ["@anthropic-ai/sdk/src", "zod/src", "@types/node", "hono/dist"];
const MAX_BYTES = 1024 * 1024;
const BARS = { coldRatio: 2, noChange: 300, lookup: 5, map: 100 } as const;

interface ChildResult {
  ms: number;
  files?: number;
  symbols?: number;
  references?: number;
  parsed?: number;
}

// ── the child processes ─────────────────────────────────────────────────────────────────────────

/** Parse-only floor: read and parse every listed file, nothing else. */
async function floorChild(corpus: string, list: string): Promise<ChildResult> {
  const { parseOnly } = await import("../src/code-index/parse.ts");
  const files = readFileSync(list, "utf8").split("\n").filter(Boolean);
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const started = performance.now();
  for (const rel of files) await parseOnly(rel, utf8.decode(readFileSync(join(corpus, rel))));
  return { ms: performance.now() - started, files: files.length };
}

/** Parse and run the tags query on every listed file, nothing stored: what the index adds to the floor before storing. */
async function tagsChild(corpus: string, list: string): Promise<ChildResult> {
  const { tagsOf } = await import("../src/code-index/parse.ts");
  const files = readFileSync(list, "utf8").split("\n").filter(Boolean);
  const started = performance.now();
  for (const rel of files) await tagsOf(rel, readFileSync(join(corpus, rel)));
  return { ms: performance.now() - started, files: files.length };
}

/** A full update of the index at `db` (removed first for a cold one), timed from opening it. */
async function updateChild(corpus: string, db: string, cold: boolean): Promise<ChildResult> {
  if (cold) for (const file of [db, `${db}-wal`, `${db}-shm`]) rmSync(file, { force: true });
  const started = performance.now();
  const index = CodeIndex.open(db, corpus);
  const summary = await index.update();
  const ms = performance.now() - started;
  index.close();
  const { files, symbols, references, parsed } = summary;
  return { ms, files, symbols, references, parsed };
}

// ── the corpus ──────────────────────────────────────────────────────────────────────────────────

function filesBelow(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules") out.push(...filesBelow(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/**
 * Copies package files into `corpus`, taking one file from each source in turn (so the corpus mixes
 * TypeScript sources, declarations and JavaScript), until LINES lines; returns their paths relative to
 * it and the line count.
 */
function buildCorpus(corpus: string): { files: string[]; lines: number } {
  const queues = SOURCES.map((source) => filesBelow(join(ROOT, "node_modules", source)));
  const files: string[] = [];
  let lines = 0;
  while (lines < LINES && queues.some((queue) => queue.length > 0)) {
    for (const queue of queues) {
      const path = queue.shift();
      if (path === undefined || lines >= LINES) continue;
      const language = languageOf(path);
      if (language !== "typescript" && language !== "javascript") continue;
      const bytes = readFileSync(path);
      if (bytes.length > MAX_BYTES) continue;
      const rel = relative(join(ROOT, "node_modules"), path);
      mkdirSync(dirname(join(corpus, rel)), { recursive: true });
      writeFileSync(join(corpus, rel), bytes);
      files.push(rel);
      lines += bytes.toString("utf8").split("\n").length;
    }
  }
  return { files, lines };
}

async function child(mode: string, ...rest: string[]): Promise<ChildResult> {
  const proc = Bun.spawn([process.execPath, import.meta.path, "--child", mode, ...rest], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${mode} child exited ${code}: ${err}`);
  return JSON.parse(out) as ChildResult;
}

// ── the figures ─────────────────────────────────────────────────────────────────────────────────

function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);
const summary: SummaryRow[] = [];

function row(name: string, value: number, bar: number, unit = "ms"): void {
  const pass = value < bar;
  process.stdout.write(
    `${name.padEnd(48)} ${fixed(value).padStart(9)} ${unit}   < ${bar} ${unit}  ${verdict(pass)}\n`,
  );
  summary.push({
    bench: "index",
    name,
    value: `${fixed(value)} ${unit}`,
    floor: "",
    target: `< ${bar} ${unit}`,
    pass,
  });
}

async function main(): Promise<void> {
  const work = join(OUT, `index-${process.pid}`);
  const corpus = join(work, "corpus");
  const db = join(work, "data", "index.db");
  mkdirSync(dirname(db), { recursive: true });
  try {
    const { files, lines } = buildCorpus(corpus);
    const list = join(work, "files.txt");
    writeFileSync(list, files.join("\n"));
    process.stdout.write(`corpus: ${files.length} files, ${lines} lines (from ${SOURCES.join(", ")})\n\n`);

    // Floor and cold index, interleaved.
    const floors: number[] = [];
    const tags: number[] = [];
    const colds: ChildResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      floors.push((await child("floor", corpus, list)).ms);
      tags.push((await child("tags", corpus, list)).ms);
      colds.push(await child("cold", corpus, db));
    }
    const floor = median(floors);
    const cold = median(colds.map((c) => c.ms));
    const built = colds[0]!;
    const ratio = cold / floor;
    process.stdout.write(
      `parse-only floor                                 ${fixed(floor, 0).padStart(9)} ms   (${fixed(lines / (floor / 1000), 0)} lines/s)\n` +
        `cold index                                       ${fixed(cold, 0).padStart(9)} ms   (${fixed(lines / (cold / 1000), 0)} lines/s) ` +
        `${fixed(ratio)}× floor, ≤ ${BARS.coldRatio}×  ${verdict(ratio <= BARS.coldRatio)}\n` +
        `  of which parsing with the tags query, nothing stored: ${fixed(median(tags), 0)} ms ` +
        `(${fixed(median(tags) / floor)}× floor); walking, hashing and storing: the rest\n` +
        `  rounds: floor ${floors.map((v) => fixed(v, 0)).join(", ")}; cold ${colds.map((c) => fixed(c.ms, 0)).join(", ")}\n` +
        `  stored: ${built.files} files, ${built.symbols} definitions, ${built.references} references; ` +
        `database ${fixed(statSync(db).size / 2 ** 20, 1)} MB\n`,
    );
    summary.push({
      bench: "index",
      name: "cold index",
      value: `${fixed(cold, 0)} ms`,
      floor: `${fixed(floor, 0)} ms`,
      ratio,
      target: `≤ ${BARS.coldRatio}×`,
      pass: ratio <= BARS.coldRatio,
    });

    const noChange: number[] = [];
    for (let round = 0; round < Math.max(5, ROUNDS); round++)
      noChange.push((await child("nochange", corpus, db)).ms);
    row("no-change update (fresh process, median)", median(noChange), BARS.noChange);

    lookups(db, corpus);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  recordSummary(summary);
}

/** Lookups and the map in this process, after one of each to warm it. */
function lookups(db: string, corpus: string): void {
  const index = CodeIndex.open(db, corpus);
  const raw = new Database(db, { readonly: true });
  const names = (
    raw.query("SELECT DISTINCT name FROM symbols ORDER BY name").all() as { name: string }[]
  ).map((r) => r.name);
  const paths = (
    raw.query("SELECT path FROM files WHERE skipped IS NULL ORDER BY path").all() as { path: string }[]
  ).map((r) => r.path);
  const sample = <T>(items: T[]): T[] =>
    Array.from({ length: LOOKUPS }, (_, i) => items[Math.floor((i * items.length) / LOOKUPS)]!);
  const picked = sample(names);
  const fragments = picked.map((name) =>
    name.slice(0, Math.max(3, Math.ceil(name.length / 2))).toLowerCase(),
  );
  const files = sample(paths);

  const firstLookup = timed(() => index.definitions(picked[0]!, { limit: 50 }));
  const times = (run: (i: number) => unknown) => {
    for (let i = 0; i < 20; i++) run(i);
    return Array.from({ length: LOOKUPS }, (_, i) => timed(() => run(i))).sort((a, b) => a - b);
  };
  const exact = times((i) => index.definitions(picked[i]!, { limit: 50 }));
  const fuzzy = times((i) => index.findDefinitions(fragments[i]!, { limit: 50 }));
  const refs = times((i) => index.findReferences(picked[i]!, { limit: 50 }));
  const outlines = times((i) => index.outline(files[i]!));
  process.stdout.write(
    `\nlookups (${LOOKUPS} each, warm; first definition lookup ${fixed(firstLookup)} ms):\n`,
  );
  for (const [name, sorted] of [
    ["definition by exact name", exact],
    ["definition by a fragment (exact › any case › fuzzy)", fuzzy],
    ["references, with the definition around each", refs],
    ["outline of a file", outlines],
  ] as const)
    process.stdout.write(
      `  ${name.padEnd(52)} p50 ${fixed(quantile(sorted, 0.5))} ms  p99 ${fixed(quantile(sorted, 0.99))} ms\n`,
    );
  row("lookup p50 (definition by exact name)", quantile(exact, 0.5), BARS.lookup);

  const map = () => renderRepoMap(fileGraph(raw), { tokens: 1000 });
  const firstMap = timed(map);
  const maps = Array.from({ length: 10 }, () => timed(map)).sort((a, b) => a - b);
  const graph = index.fileGraph();
  const cachedMaps = Array.from({ length: 10 }, () =>
    timed(() => renderRepoMap(index.fileGraph(), { tokens: 1000 })),
  );
  const shown = renderRepoMap(graph, { tokens: 1000 });
  process.stdout.write(
    `\nrepo map, 1 000 tokens (${graph.files.length} files, ${graph.edges.length} edges; shows ${shown.files} files, ` +
      `${shown.symbols} definitions, ${shown.text.length} chars): first ${fixed(firstMap)} ms, ` +
      `graph cached ${fixed(median(cachedMaps))} ms\n`,
  );
  row("1 000-token map, warm (graph read from the db)", median(maps), BARS.map);
  raw.close();
  index.close();
}

if (args[0] === "--child") {
  const [, mode, corpus, extra] = args;
  const result =
    mode === "floor"
      ? await floorChild(corpus!, extra!)
      : mode === "tags"
        ? await tagsChild(corpus!, extra!)
        : await updateChild(corpus!, extra!, mode === "cold");
  process.stdout.write(JSON.stringify(result));
} else {
  await main();
}
