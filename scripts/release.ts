/**
 * Release builds: `bun run release` → dist/release/ion-<os>-<arch>[.exe] for every platform below,
 * install.sh, VERSION (the version, one line, for `ion update`), and SHA256SUMS over all of them (the
 * format `sha256sum -c` reads).
 *
 *   bun scripts/release.ts [--target linux-arm64]… [--host] [--out DIR]
 *
 * `--target` (repeatable) builds only those platforms, `--host` only this machine's. Each binary is
 * built exactly as `bun run build` builds dist/ion (compile() from build.ts, the commit for
 * `--version`). Bun cross-compiles: the first build for another platform downloads that
 * platform's Bun runtime into Bun's install cache.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { VERSION } from "../src/version.ts";
import { compile, gitCommit } from "./build.ts";

export interface Platform {
  /** `linux-x64`: the asset's suffix and what install.sh derives from `uname`. */
  name: string;
  /** The `bun build --target`. */
  target: string;
  /** `.exe` on Windows. */
  extension: string;
}

export const PLATFORMS: readonly Platform[] = [
  { name: "linux-x64", target: "bun-linux-x64", extension: "" },
  { name: "linux-arm64", target: "bun-linux-arm64", extension: "" },
  { name: "darwin-x64", target: "bun-darwin-x64", extension: "" },
  { name: "darwin-arm64", target: "bun-darwin-arm64", extension: "" },
  { name: "windows-x64", target: "bun-windows-x64", extension: ".exe" },
];

/** This machine's platform name (`linux-x64`), as install.sh names it. */
export function hostPlatform(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return `${os}-${process.arch}`;
}

export function assetName(platform: Platform): string {
  return `ion-${platform.name}${platform.extension}`;
}

/** `<sha256>  <file>` lines, sorted by file name: what `sha256sum FILE…` prints. */
export async function checksums(files: string[]): Promise<string> {
  const lines: string[] = [];
  for (const file of [...files].sort((a, b) => basename(a).localeCompare(basename(b)))) {
    const hasher = new Bun.CryptoHasher("sha256");
    for await (const chunk of Bun.file(file).stream()) hasher.update(chunk);
    lines.push(`${hasher.digest("hex")}  ${basename(file)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The platforms to build, or the name that is not one. */
function choose(targets: string[] | undefined, host: boolean): Platform[] | string {
  const wanted = host ? [hostPlatform()] : (targets ?? PLATFORMS.map((p) => p.name));
  const chosen: Platform[] = [];
  for (const name of wanted) {
    const platform = PLATFORMS.find((p) => p.name === name);
    if (!platform) return name;
    chosen.push(platform);
  }
  return chosen;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      target: { type: "string", multiple: true },
      host: { type: "boolean" },
      out: { type: "string" },
    },
    strict: true,
  });
  const out = values.out ?? "dist/release";
  const platforms = choose(values.target, values.host === true);
  if (typeof platforms === "string") {
    const known = PLATFORMS.map((p) => p.name).join(", ");
    process.stderr.write(`release: no release platform "${platforms}" (known: ${known})\n`);
    return 64;
  }
  const commit = gitCommit();

  // Start clean: a stale asset from an earlier build must not be published or summed.
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const platform of platforms) {
    const outfile = join(out, assetName(platform));
    const started = performance.now();
    const code = await compile("src/main.ts", outfile, { target: platform.target, commit, quiet: true });
    if (code !== 0) {
      process.stderr.write(`release: building ${platform.name} failed (exit ${code})\n`);
      return code || 1;
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      `built ${outfile} (${(Bun.file(outfile).size / 1e6).toFixed(1)} MB) in ${seconds}s\n`,
    );
  }
  copyFileSync("install.sh", join(out, "install.sh"));
  // What `ion update` and `ion doctor` read to learn the release's version without downloading a binary.
  await Bun.write(join(out, "VERSION"), `${VERSION}\n`);
  const files = readdirSync(out).map((name) => join(out, name));
  await Bun.write(join(out, "SHA256SUMS"), await checksums(files));
  process.stdout.write(
    `wrote ${join(out, "SHA256SUMS")} (${files.length} files, commit ${commit ?? "unknown"})\n`,
  );
  return 0;
}

if (import.meta.main) process.exit(await main());
