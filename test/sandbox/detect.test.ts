/** Finding the sandbox: a bwrap that cannot create namespaces here is no sandbox, with its own words as the reason. */
import { afterEach, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectSandbox, resetSandboxDetection } from "../../src/sandbox/detect.ts";

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
  resetSandboxDetection();
});

test.skipIf(process.platform !== "linux")("no bwrap on PATH: none, and why", async () => {
  const empty = mkdtempSync(join(tmpdir(), "ion-detect-"));
  try {
    process.env.PATH = empty;
    resetSandboxDetection();
    expect(await detectSandbox()).toEqual({
      kind: "none",
      reason: "bwrap is not installed (the bubblewrap package)",
    });
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test.skipIf(process.platform !== "linux")(
  "a bwrap that fails (a container without user namespaces): none, with its message",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "ion-detect-"));
    try {
      const fake = join(dir, "bwrap");
      writeFileSync(fake, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
      chmodSync(fake, 0o755);
      process.env.PATH = `${dir}:${PATH}`;
      resetSandboxDetection();
      expect(await detectSandbox()).toEqual({
        kind: "none",
        path: fake,
        reason: "bwrap cannot create a sandbox here: bwrap: No permissions to create new namespace",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test.skipIf(process.platform !== "linux" || Bun.which("bwrap") === null)(
  "the real bwrap works here, found once per process",
  async () => {
    const first = detectSandbox();
    expect(detectSandbox()).toBe(first);
    expect((await first).kind).toBe("bwrap");
  },
);

test.skipIf(process.platform !== "linux")(
  "the probe's answer is kept under a key of the program: reused while it stands, probed again once it changed",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "ion-detect-"));
    try {
      const fake = join(dir, "bwrap");
      const cache = join(dir, "cache", "sandbox.json");
      writeFileSync(fake, '#!/bin/sh\necho probed >> "$0.log"\nexit 0\n');
      chmodSync(fake, 0o755);
      process.env.PATH = `${dir}:${PATH}`;
      resetSandboxDetection();
      expect(await detectSandbox(cache)).toEqual({ kind: "bwrap", path: fake });
      resetSandboxDetection();
      expect(await detectSandbox(cache)).toEqual({ kind: "bwrap", path: fake });
      expect(readFileSync(`${fake}.log`, "utf8")).toBe("probed\n");
      // A new bwrap (another size): its answer is not the old one's.
      writeFileSync(fake, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
      resetSandboxDetection();
      expect(await detectSandbox(cache)).toMatchObject({
        kind: "none",
        reason: expect.stringContaining("uid map"),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
