/**
 * Builds the single executable: `bun run build` → dist/ion for this machine;
 * `bun run build --target bun-linux-arm64` (or any Bun target) → dist/ion-<target>.
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { target: { type: "string" }, outfile: { type: "string" } },
  strict: true,
});

const outfile =
  values.outfile ?? (values.target ? `dist/ion-${values.target.replace(/^bun-/, "")}` : "dist/ion");
const command = [
  "bun",
  "build",
  "--compile",
  "--minify",
  "--bytecode",
  "--sourcemap=none",
  "src/main.ts",
  "--outfile",
  outfile,
];
if (values.target) command.push("--target", values.target);

const started = performance.now();
const build = Bun.spawnSync(command, { stdout: "inherit", stderr: "inherit" });
if (build.exitCode !== 0) {
  process.stderr.write(`build failed (exit ${build.exitCode})\n`);
  process.exit(build.exitCode ?? 1);
}
const size = Bun.file(outfile).size;
process.stdout.write(
  `built ${outfile} (${(size / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)}s\n`,
);
