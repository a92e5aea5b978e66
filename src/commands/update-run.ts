/**
 * `ion update [--check] [--version V]` (see update.ts). Every refusal — running from source, a
 * missing asset, a checksum mismatch, a directory ion cannot write, a download that does not run —
 * comes before the binary is touched, and says that nothing changed.
 */
import { rm } from "node:fs/promises";
import { IonError } from "../errors.ts";
import {
  assetName,
  DownloadError,
  download,
  expectedSum,
  isNewer,
  normalizeVersion,
  releaseBase,
  releaseVersion,
} from "../update/release.ts";
import { checkWritable, isStandaloneBinary, swapIn, writeBeside } from "../update/replace.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { VERSION } from "../version.ts";
import { parseStrict } from "./_shared.ts";
import { updateArgs } from "./update.ts";

/** For VERSION and SHA256SUMS, a few bytes each. */
const SMALL_TIMEOUT_MS = 15_000;
/** For the binary (~60 MB): a slow line gets its time, a dead one does not hold ion forever. */
const ASSET_TIMEOUT_MS = 600_000;
/** The new binary must answer `--version` within this before it replaces the old one. */
const RUN_CHECK_TIMEOUT_MS = 20_000;

function say(line: string): void {
  process.stdout.write(`${safeForTerminal(line)}\n`);
}

export async function update(rawArgs: string[]): Promise<void> {
  const args = parseStrict("update", rawArgs, updateArgs, 0);
  const env = process.env;
  let wanted: string | undefined;
  if (typeof args.version === "string") {
    wanted = normalizeVersion(args.version);
    if (wanted === undefined)
      throw new IonError("usage", `--version takes a release's version like 0.3.1, got "${args.version}"`);
    if (args.check === true)
      throw new IonError("usage", "--check looks at the latest release; it does not take --version");
  }
  if (args.check === true) return check(releaseBase(env));
  if (!isStandaloneBinary())
    throw new IonError(
      "io",
      "this ion runs from source (bun src/main.ts), not as an installed binary; nothing changed",
      {
        hint: "update a checkout with git pull; install the binary with install.sh (see the README)",
      },
    );

  const base = releaseBase(env, wanted);
  const version = await versionAt(base);
  if (wanted !== undefined && version !== wanted)
    throw new IonError("io", `the release at ${base} says it is ${version}, not ${wanted}; nothing changed`);
  const target = process.execPath;
  if (version === VERSION) return say(`ion ${VERSION} is up to date (${target})`);
  if (wanted === undefined && !isNewer(version, VERSION))
    return say(`this ion (${VERSION}) is newer than the latest release (${version}); nothing changed`);
  await checkWritable(target);

  const asset = assetName();
  const bytes = await fetchAsset(base, asset, version);
  await verify(base, asset, bytes);
  const fresh = await writeBeside(target, bytes);
  await checkRuns(fresh, version);
  const old = await swapIn(target, fresh);
  say(`updated ${target}: ion ${VERSION} → ${version}; the previous binary is kept as ${old}`);
}

/** `--check`: this version and the latest release's; exit 0 whichever is newer. */
async function check(base: string): Promise<void> {
  const latest = await versionAt(base);
  if (isNewer(latest, VERSION))
    say(`ion ${latest} is available (this is ${VERSION}): ion update installs it`);
  else if (latest === VERSION) say(`ion ${VERSION} is up to date (the latest release is ${latest})`);
  else say(`this ion (${VERSION}) is newer than the latest release (${latest})`);
}

async function versionAt(base: string): Promise<string> {
  try {
    return await releaseVersion(base, SMALL_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof DownloadError && err.missing)
      throw new IonError("io", `no release at ${base} (its VERSION file is missing); nothing changed`, {
        hint: "check the version, or ION_INSTALL_BASE if you set it",
      });
    throw err;
  }
}

async function fetchAsset(base: string, asset: string, version: string): Promise<Uint8Array> {
  try {
    const response = await download(`${base}/${asset}`, ASSET_TIMEOUT_MS);
    return new Uint8Array(await response.arrayBuffer());
  } catch (err) {
    if (err instanceof DownloadError && err.missing)
      throw new IonError(
        "io",
        `release ${version} has no ${asset} (no build for this system there); nothing changed`,
      );
    throw err;
  }
}

/** The asset's SHA-256 must be the one the release's SHA256SUMS gives it. */
async function verify(base: string, asset: string, bytes: Uint8Array): Promise<void> {
  const sums = await (await download(`${base}/SHA256SUMS`, SMALL_TIMEOUT_MS)).text();
  const expected = expectedSum(sums, asset);
  if (expected === undefined)
    throw new IonError(
      "io",
      `the release's SHA256SUMS lists no ${asset}, so it cannot be checked; nothing changed`,
    );
  const actual = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  if (actual !== expected)
    throw new IonError(
      "io",
      `checksum mismatch for ${asset} (expected ${expected}, got ${actual}): the download is damaged or not the published file; nothing changed`,
    );
}

/** The new binary must run here and say it is `version`; otherwise it is removed and the old one stays. */
async function checkRuns(fresh: string, version: string): Promise<void> {
  let answer: string;
  try {
    const child = Bun.spawnSync([fresh, "--version"], {
      stdin: "ignore",
      stderr: "pipe",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: RUN_CHECK_TIMEOUT_MS,
    });
    answer = `${child.stdout.toString()}${child.stderr.toString()}`.trim();
    if (child.exitCode === 0 && answer.startsWith(`ion ${version}`)) return;
    answer = answer === "" ? `exit ${child.exitCode ?? child.signalCode}` : answer.split("\n")[0]!;
  } catch (err) {
    answer = err instanceof Error ? err.message : String(err);
  }
  await rm(fresh, { force: true });
  throw new IonError("io", `the downloaded ion does not run here as ${version} (${answer}); nothing changed`);
}
