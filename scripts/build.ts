/**
 * Builds the single executable: `bun run build` → dist/ion for this machine;
 * `bun run build --target bun-linux-arm64` (or any Bun target) → dist/ion-<target>.
 *
 * The flags are chosen for start-up time (SPEC §12: `ion --version` ≤ 1.1× a compiled hello-world
 * built the same way, `--help` ≤ 1.3×; `ion run "hi"` ≤ 2× a one-shot fetch client). Medians of 60
 * interleaved runs on the 2-core reference machine when each flag was chosen (bench/all.ts
 * re-measures; bench/README.md has the latest figures):
 *
 *                                               --version  --help  run --help  run "hi"
 *   hello-world floor                              6.3 ms
 *   before: --minify --bytecode (cjs, one file)   18.2 ms  20.5 ms   20.9 ms   66.4 ms
 *   + main.ts/cli.ts off process.stdout (*)       11.9 ms  15.5 ms   16.2 ms   66.2 ms
 *   + --format=esm --splitting                     7.1 ms  10.3 ms   11.0 ms      —
 *   + --no-compile-autoload-dotenv/-bunfig         6.7 ms  10.0 ms   10.9 ms   58.5 ms
 *   + --compile-jit-policy=4 (these flags)         6.8 ms   9.8 ms   10.4 ms   50.3 ms
 *
 * (*) not a flag: the first touch of process.stdout/stderr costs ~15–20 ms when node:fs isn't loaded
 *     yet, so the fast paths write with console.* (see main.ts).
 * - `--format=esm --splitting`: as one cjs file the whole bundle (1.3 MB, 3.8 MB of bytecode, every
 *   SDK) is loaded before main runs, ~5 ms. Split, `--version` loads a 0.6 kB chunk and `--help`
 *   ~10 kB; each SDK is a chunk of its own that only the `import()` needing it loads. (esm without
 *   splitting is the worst: ~25 ms.) With the row below it also takes ~8 ms off `run`.
 * - `--bytecode`: without it every variant parses its chunks at start-up (esm + splitting: ~30 ms).
 *   Default depth (all functions): `--bytecode-depth=1` / `0` cost +1.5 / +2.5 ms on `--help`.
 * - `--minify`: smaller chunks and binary; no start-up difference over the noise
 *   (`--minify-whitespace --minify-syntax`, `--keep-names`, no minify: all within ±0.5 ms).
 * - `--no-compile-autoload-dotenv`: by default a compiled binary loads `.env` from the working
 *   directory (after listing every directory from / down to it) — ion must never load a user's
 *   .env into its environment silently, and the look-ups cost ~0.4 ms per start.
 * - `--no-compile-autoload-bunfig`: likewise a `bunfig.toml` in the working directory is not ion's.
 * - `--no-compile-autoload-tsconfig`, `--no-compile-autoload-package-json`: Bun's defaults today;
 *   stated so a change of default can't make ion read a project's files at start-up.
 * - `--compile-jit-policy=4`: JavaScriptCore tiers code up 4× later, so run-once start-up code (zod
 *   schemas, SDK set-up) stays in the interpreter instead of costing JIT time: `run "hi"` −8 ms CPU
 *   (4, 10 and 100 all give about the same). Long-lived interactive code should call
 *   `Bun.unsafe.setJITPolicy(1)` once it is up (the interactive console, when it lands).
 * - `--sourcemap=none`: nothing to load or embed.
 * Tried without gain: `--min-chunk-size`; `--bytecode-order` (a profile recorded with
 * BUN_BYTECODE_ORDER_OUT): first from `--version`, `--help`, `run --help` and `run`, same times and
 * −2.5 MB RSS on `run`; re-measured once `run` had lost zod and the node streams, from `run "hi"`
 * alone, −0.8 ms on `run` (paired, 2 × 40 rounds) and the same RSS — not adopted, since the profile
 * (~300 kB of function hashes) would have to be recorded against a server and kept with the source.
 * The version comes from package.json; the commit is injected with `--define ION_COMMIT=…` (see
 * src/version.ts), a constant folded into the bundle, so `--version` stays at the floor.
 *
 * The build runs through `Bun.build` (the same options as the CLI flags named above) for one plugin
 * the CLI cannot take: citty's module imports node:util at its top for the one `parseArgs` it calls
 * when parsing a command line, and loading node:util costs ~1 ms of every start that loads citty —
 * `--help` 1.38× → 1.20× the floor, measured paired over 60 rounds. The plugin turns that import
 * into a `require` on first use (it fails the build, rather than silently doing nothing, should
 * citty stop importing it that way). Bun's builtin modules never reach a plugin's onResolve, so the
 * change is made where citty's file is loaded. A second plugin keeps citty's case splitting of flag
 * names out of the optimizing JIT tier (see cittySplitOnce). Macros (`with { type: "macro" }`: the tools' JSON
 * Schemas, the built-in skills, the system prompt template) run during this build.
 */

import { parseArgs } from "node:util";
import type { BunPlugin } from "bun";

/** What the executables are built with: dist/ion, the release builds and the benchmark floors (bench/). */
const BUILD_OPTIONS = {
  minify: true,
  bytecode: true,
  format: "esm",
  splitting: true,
  sourcemap: "none",
  target: "bun",
} as const;

const COMPILE_OPTIONS = {
  autoloadDotenv: false,
  autoloadBunfig: false,
  autoloadTsconfig: false,
  autoloadPackageJson: false,
  jitPolicy: 4,
} as const;

/** citty's `import { parseArgs } from "node:util"`, made a `require` on first call (see above). */
export const lazyCittyUtil: BunPlugin = {
  name: "citty: node:util on first parse",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]citty[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
      const source = await Bun.file(args.path).text();
      const eager = 'import { parseArgs as parseArgs$1 } from "node:util";';
      if (!source.includes(eager))
        throw new Error(`${args.path} no longer imports node:util as scripts/build.ts expects`);
      const lazy = 'const parseArgs$1 = (config) => require("node:util").parseArgs(config);';
      return { contents: source.replace(eager, lazy), loader: "js" };
    });
  },
};

/**
 * citty splits each flag's name by case twice per parse (its camelCase and kebab-case spellings),
 * calling scule's `isUppercase` once per character: ~480 calls for `ion run`'s flags, enough that
 * JavaScriptCore sometimes optimizes it with the DFG tier, whose compiler pages in ~1.5 MB more of
 * the binary (peak RSS of `run "hi"`). Splitting each name once halves the calls; the result is the same.
 */
export const cittySplitOnce: BunPlugin = {
  name: "citty: each flag name split by case once",
  setup(build) {
    build.onLoad(
      { filter: /[\\/]node_modules[\\/]citty[\\/]dist[\\/]_chunks[\\/]libs[\\/]scule\.mjs$/ },
      async (args) => {
        const source = await Bun.file(args.path).text();
        const split = "function splitByCase(str, separators) {";
        if (!source.includes(split))
          throw new Error(`${args.path} no longer defines splitByCase as scripts/build.ts expects`);
        const once = `const splitByCaseSeen = new Map();
function splitByCase(str, separators) {
\tif (separators !== void 0 || typeof str !== "string") return splitByCaseEach(str, separators);
\tlet parts = splitByCaseSeen.get(str);
\tif (parts === void 0) splitByCaseSeen.set(str, (parts = splitByCaseEach(str)));
\treturn [...parts];
}
function splitByCaseEach(str, separators) {`;
        return { contents: source.replace(split, once), loader: "js" };
      },
    );
  },
};

export interface CompileOptions {
  /** Any Bun target, e.g. `bun-linux-arm64`; default: this machine. */
  target?: string;
  /** Print nothing unless the build fails (for the benchmarks). */
  quiet?: boolean;
  /** The short git commit `ion --version` names (see src/version.ts); omitted: none. */
  commit?: string;
}

/** The checkout's short commit, or undefined when this is not a git checkout (or git is missing). */
export function gitCommit(): string | undefined {
  const git = Bun.which("git");
  if (!git) return undefined;
  const head = Bun.spawnSync([git, "rev-parse", "--short=7", "HEAD"], { stdout: "pipe", stderr: "pipe" });
  const commit = head.stdout.toString().trim();
  return head.exitCode === 0 && /^[0-9a-f]{7,40}$/.test(commit) ? commit : undefined;
}

/** Compiles `entry` to `outfile` with the options above; resolves to 0, or 1 when the build failed. */
export async function compile(entry: string, outfile: string, options: CompileOptions = {}): Promise<number> {
  try {
    const result = await Bun.build({
      ...BUILD_OPTIONS,
      entrypoints: [entry],
      compile: {
        ...COMPILE_OPTIONS,
        outfile,
        ...(options.target ? { target: options.target as Bun.Build.CompileTarget } : {}),
      },
      plugins: [lazyCittyUtil, cittySplitOnce],
      ...(options.commit ? { define: { ION_COMMIT: JSON.stringify(options.commit) } } : {}),
    });
    for (const log of result.logs)
      if (!options.quiet || !result.success) process.stderr.write(`${Bun.inspect(log)}\n`);
    return result.success ? 0 : 1;
  } catch (err) {
    // Bun.build throws an AggregateError of the build's messages when the build fails.
    const messages = err instanceof AggregateError ? err.errors : [err];
    for (const message of messages) process.stderr.write(`${Bun.inspect(message)}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: { target: { type: "string" }, outfile: { type: "string" } },
    strict: true,
  });
  const outfile =
    values.outfile ?? (values.target ? `dist/ion-${values.target.replace(/^bun-/, "")}` : "dist/ion");

  const started = performance.now();
  const code = await compile("src/main.ts", outfile, { target: values.target, commit: gitCommit() });
  if (code !== 0) {
    process.stderr.write(`build failed (exit ${code})\n`);
    process.exit(code || 1);
  }
  const size = Bun.file(outfile).size;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`built ${outfile} (${(size / 1e6).toFixed(1)} MB) in ${seconds}s\n`);
}
