/**
 * install.sh against a release served on 127.0.0.1: a good install, a tampered asset, a missing asset,
 * curl or wget, and the PATH hint. The release is a tiny shell-script "binary" with a correct
 * SHA256SUMS (building five real targets would take minutes); one test builds this machine's real
 * binary with `scripts/release.ts --host` and installs that.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checksums, hostPlatform } from "../../scripts/release.ts";
import { VERSION } from "../../src/version.ts";
import { collect } from "../support/cli.ts";

const ROOT = resolve(import.meta.dir, "../..");
const INSTALL_SH = join(ROOT, "install.sh");
const EXT = process.platform === "win32" ? ".exe" : "";
const ASSET = `ion-${hostPlatform()}${EXT}`;
const FAKE_ION = '#!/bin/sh\necho "ion 9.9.9 (fake)"\n';

/** Serves the files of whichever release dir `current.dir` names; 404 for anything else. */
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
      if (name.includes("/") || !(await file.exists())) return new Response("not found", { status: 404 });
      return new Response(file);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

class Workspace {
  readonly root = mkdtempSync(join(tmpdir(), "ion-install-"));
  readonly release = join(this.root, "release");
  readonly bin = join(this.root, "bin");
  readonly home = join(this.root, "home");

  constructor() {
    mkdirSync(this.release);
    mkdirSync(this.home);
    current.dir = this.release;
  }

  /** A release dir holding `files`, with SHA256SUMS over them (or `sums` instead). */
  async publish(files: Record<string, string>, sums?: string): Promise<void> {
    for (const [name, text] of Object.entries(files)) {
      await Bun.write(join(this.release, name), text);
      chmodSync(join(this.release, name), 0o755);
    }
    const paths = Object.keys(files).map((name) => join(this.release, name));
    await Bun.write(join(this.release, "SHA256SUMS"), sums ?? (await checksums(paths)));
  }

  async install(env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    const child = Bun.spawn(["sh", INSTALL_SH], {
      cwd: this.root,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: this.home,
        ION_INSTALL_BASE: base,
        ION_INSTALL_DIR: this.bin,
        ...env,
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    return collect(child);
  }

  /** What the install dir holds (empty when it was never created). */
  installed(): string[] {
    return existsSync(this.bin) ? readdirSync(this.bin) : [];
  }

  [Symbol.dispose](): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * A PATH of symlinks to the tools install.sh uses, minus `without`, so a test can take curl (or
 * wget) away without touching the machine.
 */
function pathWithout(root: string, without: string[]): string {
  const dir = join(root, "tools");
  mkdirSync(dir, { recursive: true });
  const tools = ["sh", "uname", "mktemp", "rm", "awk", "cut", "sha256sum", "shasum", "openssl", "mkdir"];
  for (const tool of [...tools, "cp", "chmod", "mv", "cat", "curl", "wget"]) {
    const found = Bun.which(tool);
    if (found && !without.includes(tool)) symlinkSync(found, join(dir, tool));
  }
  return dir;
}

describe.if(process.platform !== "win32")("install.sh", () => {
  test("installs the binary for this machine, which runs, and says how to get it on PATH", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: FAKE_ION, "ion-other-os": "#!/bin/sh\necho other\n" });
    const run = await ws.install();
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(ws.installed()).toEqual([`ion${EXT}`]);
    const ion = Bun.spawnSync([join(ws.bin, `ion${EXT}`), "--version"]);
    expect(ion.stdout.toString()).toBe("ion 9.9.9 (fake)\n");
    expect(run.stdout).toContain(`installed ion 9.9.9 (fake) to ${join(ws.bin, "ion")}`);
    expect(run.stdout).toContain(`${ws.bin} is not on your PATH`);
    expect(run.stdout).toContain(`export PATH="${ws.bin}:$PATH"`);
  });

  test("no PATH hint when the directory is on PATH; a second install replaces the first", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: FAKE_ION });
    const env = { PATH: `${ws.bin}:${process.env.PATH ?? "/usr/bin:/bin"}` };
    expect((await ws.install(env)).code).toBe(0);
    await ws.publish({ [ASSET]: FAKE_ION.replace("9.9.9", "9.9.10") });
    const again = await ws.install(env);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("not on your PATH");
    expect(again.stdout).toContain("installed ion 9.9.10 (fake)");
    expect(ws.installed()).toEqual([`ion${EXT}`]);
  });

  test("without ION_INSTALL_DIR it installs to ~/.local/bin", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: FAKE_ION });
    const run = await ws.install({ ION_INSTALL_DIR: "" });
    expect(run.code).toBe(0);
    expect(existsSync(join(ws.home, ".local", "bin", `ion${EXT}`))).toBe(true);
  });

  test("a tampered asset is refused, and nothing is installed", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: FAKE_ION });
    await Bun.write(join(ws.release, ASSET), '#!/bin/sh\necho "something else"\n');
    const run = await ws.install();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^ion install: checksum mismatch for ion-\S+ \(expected [0-9a-f]{64}, got [0-9a-f]{64}\)/,
    );
    expect(run.stderr).toContain("nothing was installed");
    expect(ws.installed()).toEqual([]);
  });

  test("an asset SHA256SUMS does not list is refused", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: FAKE_ION }, `${"0".repeat(64)}  ion-some-other-os\n`);
    const run = await ws.install();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`ion install: SHA256SUMS lists no ${ASSET}; nothing was installed\n`);
    expect(ws.installed()).toEqual([]);
  });

  test("a release without this machine's asset: a clear message, nothing installed", async () => {
    using ws = new Workspace();
    await ws.publish({ "ion-other-os": "#!/bin/sh\n" });
    const run = await ws.install();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`ion install: cannot download ${base}/${ASSET}`);
    expect(ws.installed()).toEqual([]);
  });

  test("works with wget when curl is missing, and says so when both are", async () => {
    using ws = new Workspace();
    await ws.publish({ [ASSET]: FAKE_ION });
    if (Bun.which("wget")) {
      const run = await ws.install({ PATH: pathWithout(ws.root, ["curl"]) });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(ws.installed()).toEqual([`ion${EXT}`]);
    }
    const neither = await ws.install({ PATH: pathWithout(join(ws.root, "bare"), ["curl", "wget"]) });
    expect(neither.code).toBe(1);
    expect(neither.stderr).toBe(
      "ion install: neither curl nor wget is installed; install one of them and run this again\n",
    );
  });

  test.if(Bun.which("shellcheck") !== null)("is clean under shellcheck", () => {
    const check = Bun.spawnSync(["shellcheck", "--shell=sh", INSTALL_SH]);
    expect(check.stdout.toString() + check.stderr.toString()).toBe("");
    expect(check.exitCode).toBe(0);
  });
});

describe.if(process.platform !== "win32")("scripts/release.ts --host", () => {
  test("builds this machine's binary and a SHA256SUMS that install.sh and sha256sum -c accept", async () => {
    using ws = new Workspace();
    rmSync(ws.release, { recursive: true });
    const build = Bun.spawnSync([process.execPath, "scripts/release.ts", "--host", "--out", ws.release], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(build.stderr.toString()).toBe("");
    expect(build.exitCode).toBe(0);
    expect(readdirSync(ws.release).sort()).toEqual(["SHA256SUMS", ASSET, "VERSION", "install.sh"].sort());
    expect(await Bun.file(join(ws.release, "VERSION")).text()).toBe(`${VERSION}\n`);
    if (Bun.which("sha256sum")) {
      const verify = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: ws.release });
      expect(verify.stdout.toString()).toContain(`${ASSET}: OK`);
      expect(verify.exitCode).toBe(0);
    }
    const run = await ws.install();
    expect(run.code).toBe(0);
    const version = Bun.spawnSync([join(ws.bin, `ion${EXT}`), "--version"]).stdout.toString();
    expect(version).toMatch(/^ion \d+\.\d+\.\d+( \([0-9a-f]{7,}\))?\n$/);
  }, 120_000);
});
