/**
 * Builds the single executable: `bun run build` → dist/ion for this machine;
 * `bun run build --target bun-linux-arm64` (or any Bun target) → dist/ion-<target>.
 *
 * The flags are chosen for start-up time (SPEC §12: `ion --version` ≤ 1.5× a compiled hello-world built
 * the same way, `--help` ≤ 4×; `ion run "hi"` ≤ 1.5× a one-shot fetch client). Medians of 60
 * interleaved runs on the 2-core reference machine (bench/startup.ts and bench/run-overhead.ts
 * re-measure; bench/README.md has the latest figures):
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
 * Tried without gain: `--bytecode-order` (a profile recorded with BUN_BYTECODE_ORDER_OUT from
 * `--version`, `--help`, `run --help` and `run`: same times, −2.5 MB RSS on `run`), `--min-chunk-size`.
 * The version comes from package.json; the commit is injected with `--define ION_COMMIT=…` (see
 * src/version.ts), a constant folded into the bundle, so `--version` stays at the floor.
 */
import { parseArgs } from "node:util";

/** `bun build` flags shared by dist/ion and the benchmark floors (bench/), so they are comparable. */
export const COMPILE_FLAGS: readonly string[] = [
  "--compile",
  "--minify",
  "--bytecode",
  "--format=esm",
  "--splitting",
  "--sourcemap=none",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-tsconfig",
  "--no-compile-autoload-package-json",
  "--compile-jit-policy=4",
];

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

/** Compiles `entry` to `outfile` with COMPILE_FLAGS; resolves to the exit status of `bun build`. */
export async function compile(entry: string, outfile: string, options: CompileOptions = {}): Promise<number> {
  const command = [process.execPath, "build", ...COMPILE_FLAGS, entry, "--outfile", outfile];
  if (options.target) command.push("--target", options.target);
  if (options.commit) command.push("--define", `ION_COMMIT=${JSON.stringify(options.commit)}`);
  const build = Bun.spawn(command, {
    stdout: options.quiet ? "pipe" : "inherit",
    stderr: options.quiet ? "pipe" : "inherit",
  });
  const code = await build.exited;
  if (code !== 0 && options.quiet) {
    process.stderr.write(await new Response(build.stdout).text());
    process.stderr.write(await new Response(build.stderr).text());
  }
  return code;
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
