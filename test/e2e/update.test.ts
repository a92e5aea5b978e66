/**
 * `ion update` against a release served on 127.0.0.1 (ION_INSTALL_BASE, as install.sh is tested): each
 * test copies the built binary (ION_BIN) to a temp dir and updates that copy. The "new release" is a
 * small shell script that answers `--version` as ion 9.9.9 would, with a correct SHA256SUMS and VERSION
 * beside it: a second real build would cost a minute and prove no more about the replacement.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checksums } from "../../scripts/release.ts";
import { assetName } from "../../src/update/release.ts";
import { VERSION } from "../../src/version.ts";
import { collect, type IonRun } from "../support/cli.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BIN = process.env.ION_BIN ? resolve(ROOT, process.env.ION_BIN) : undefined;
const ASSET = assetName();
const NEXT = "9.9.9";
const fakeIon = (version: string) => `#!/bin/sh\necho "ion ${version} (fake)"\n`;

/** Serves the files under `current.dir` (the latest release at /, a version's at /v<version>/); 404 otherwise. */
const current = { dir: "" };
let server: ReturnType<typeof Bun.serve>;
let base = "";

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const name = new URL(request.url).pathname.slice(1);
      const file = Bun.file(join(current.dir, name));
      if (name.split("/").includes("..") || !(await file.exists()))
        return new Response("not found", { status: 404 });
      return new Response(file);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

function sha256(path: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}

class Workspace {
  readonly root = mkdtempSync(join(tmpdir(), "ion-update-"));
  readonly release = join(this.root, "release");
  readonly bin = join(this.root, "bin");
  readonly ion = join(this.bin, "ion");

  constructor() {
    mkdirSync(this.release);
    mkdirSync(this.bin);
    if (BIN) copyFileSync(BIN, this.ion);
    current.dir = this.release;
  }

  /** A release (under `dir` of the release root) holding `files` and SHA256SUMS over them. */
  async publish(files: Record<string, string>, dir = ""): Promise<void> {
    const at = join(this.release, dir);
    mkdirSync(at, { recursive: true });
    for (const [name, text] of Object.entries(files)) await Bun.write(join(at, name), text);
    await Bun.write(
      join(at, "SHA256SUMS"),
      await checksums(Object.keys(files).map((name) => join(at, name))),
    );
  }

  async run(args: string[], command = [this.ion]): Promise<IonRun> {
    const child = Bun.spawn([...command, ...args], {
      cwd: this.root,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: join(this.root, "home"),
        ION_INSTALL_BASE: base,
        NO_COLOR: "1",
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    return collect(child);
  }

  [Symbol.dispose](): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

describe.if(BIN !== undefined && process.platform !== "win32")("ion update (built binary)", () => {
  test("replaces the binary with the release's, which runs; the old one is kept as ion.old", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: fakeIon(NEXT), "ion-other-os": fakeIon("0.0.0"), VERSION: `${NEXT}\n` });
    const before = sha256(ws.ion);
    await Bun.write(`${ws.ion}.old`, "an ion.old from an earlier update");
    const run = await ws.run(["update"]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      `updated ${ws.ion}: ion ${VERSION} → ${NEXT}; the previous binary is kept as ${ws.ion}.old\n`,
    );
    expect(run.code).toBe(0);
    expect(Bun.spawnSync([ws.ion, "--version"]).stdout.toString()).toBe(`ion ${NEXT} (fake)\n`);
    expect(sha256(`${ws.ion}.old`)).toBe(before);
    expect(Bun.spawnSync([`${ws.ion}.old`, "--version"]).stdout.toString()).toStartWith(`ion ${VERSION}`);
    expect(readdirSync(ws.bin).sort()).toEqual(["ion", "ion.old"]);
  }, 30_000);

  test("--version V takes that release's directory", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: fakeIon(NEXT), VERSION: `${NEXT}\n` });
    await ws.publish({ [ASSET]: fakeIon("9.9.8"), VERSION: "9.9.8\n" }, "v9.9.8");
    const run = await ws.run(["update", "--version", "v9.9.8"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`ion ${VERSION} → 9.9.8`);
    expect(Bun.spawnSync([ws.ion, "--version"]).stdout.toString()).toBe("ion 9.9.8 (fake)\n");
  }, 30_000);

  test("a tampered asset is refused and the binary stays byte for byte", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: fakeIon(NEXT), VERSION: `${NEXT}\n` });
    await Bun.write(join(ws.release, ASSET), '#!/bin/sh\necho "something else"\n');
    const before = sha256(ws.ion);
    const run = await ws.run(["update"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      new RegExp(
        `^ion: checksum mismatch for ${ASSET} \\(expected [0-9a-f]{64}, got [0-9a-f]{64}\\): the download is damaged or not the published file; nothing changed\\n$`,
      ),
    );
    expect(sha256(ws.ion)).toBe(before);
    expect(readdirSync(ws.bin)).toEqual(["ion"]);
  }, 30_000);

  // Root may write anywhere: the refusal is seen by running ion as an unprivileged user (setpriv).
  const SETPRIV = Bun.which("setpriv");
  test.if(process.getuid?.() === 0 && SETPRIV !== null)(
    "a directory the user cannot write (ion installed by root, run by another user): one line, nothing changed",
    async () => {
      using ws = new Workspace();
      await ws.publish({ [ASSET]: fakeIon(NEXT), VERSION: `${NEXT}\n` });
      chmodSync(ws.root, 0o755);
      const before = sha256(ws.ion);
      const nobody = [SETPRIV ?? "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ws.ion];
      const run = await ws.run(["update"], nobody);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `ion: cannot write to ${ws.bin} (permission denied, EACCES), where ion is installed; nothing changed\n` +
          "  hint: run ion update as the user who owns that directory, or reinstall with install.sh to a directory of yours\n",
      );
      expect(sha256(ws.ion)).toBe(before);
      expect(readdirSync(ws.bin)).toEqual(["ion"]);
    },
    30_000,
  );

  test("a release without this machine's asset: one line, nothing changed", async () => {
    using ws = new Workspace();
    await ws.publish({ "ion-other-os": fakeIon(NEXT), VERSION: `${NEXT}\n` });
    const before = sha256(ws.ion);
    const run = await ws.run(["update"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `ion: release ${NEXT} has no ${ASSET} (no build for this system there); nothing changed\n`,
    );
    expect(sha256(ws.ion)).toBe(before);
    expect(readdirSync(ws.bin)).toEqual(["ion"]);
  }, 30_000);

  test("--check says both versions and exits 0; an update when up to date says so and changes nothing", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: fakeIon(VERSION), VERSION: `${VERSION}\n` });
    const before = sha256(ws.ion);
    const upToDate = await ws.run(["update", "--check"]);
    expect(upToDate).toEqual({
      code: 0,
      stdout: `ion ${VERSION} is up to date (the latest release is ${VERSION})\n`,
      stderr: "",
    });
    const update = await ws.run(["update"]);
    expect(update).toEqual({ code: 0, stdout: `ion ${VERSION} is up to date (${ws.ion})\n`, stderr: "" });
    expect(sha256(ws.ion)).toBe(before);

    await ws.publish({ [ASSET]: fakeIon(NEXT), VERSION: `${NEXT}\n` });
    const newer = await ws.run(["update", "--check"]);
    expect(newer).toEqual({
      code: 0,
      stdout: `ion ${NEXT} is available (this is ${VERSION}): ion update installs it\n`,
      stderr: "",
    });
    expect(sha256(ws.ion)).toBe(before);
    expect(existsSync(`${ws.ion}.old`)).toBe(false);
  }, 30_000);
});

describe.if(process.platform !== "win32")("ion update (from source)", () => {
  test("refuses: ion is not an installed single file", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: fakeIon(NEXT), VERSION: `${NEXT}\n` });
    const run = await ws.run(["update"], [process.execPath, join(ROOT, "src/main.ts")]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toStartWith(
      "ion: this ion runs from source (bun src/main.ts), not as an installed binary; nothing changed\n",
    );
  });
});
