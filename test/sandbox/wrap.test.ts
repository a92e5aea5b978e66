/**
 * The sandbox's argv and profiles: bwrap's binds in the order that keeps a workspace under /tmp
 * visible, the macOS Seatbelt profile as reviewed (a snapshot), and the notes a denied command gets.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bindOrder, bwrapArgv } from "../../src/sandbox/bwrap.ts";
import { CommandSandbox, describeSandbox } from "../../src/sandbox/command-sandbox.ts";
import { sandboxDenialNote, sandboxStartFailure } from "../../src/sandbox/denial.ts";
import { seatbeltArgv, seatbeltProfile } from "../../src/sandbox/seatbelt.ts";
import { type SessionSandbox, sandboxReport } from "../../src/sandbox/types.ts";

const BWRAP: SessionSandbox = {
  kind: "bwrap",
  path: "/usr/bin/bwrap",
  mode: "workspace-write",
  network: false,
  writable: [],
  allowEscalation: false,
};

describe("bwrap", () => {
  test("root read-only, own /dev, /proc and /tmp, then the writable binds, namespaces, the command", () => {
    const argv = bwrapArgv("/usr/bin/bwrap", { writable: ["/w"], isolateNetwork: true, cwd: "/w/sub" }, [
      "bash",
      "-c",
      "make",
    ]);
    expect(argv).toEqual([
      "/usr/bin/bwrap",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "--bind",
      "/w",
      "/w",
      "--unshare-net",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--die-with-parent",
      "--new-session",
      "--chdir",
      "/w/sub",
      "--",
      "bash",
      "-c",
      "make",
    ]);
  });

  test("network allowed: the network namespace is shared; read-only dirs are bound read-only", () => {
    const argv = bwrapArgv(
      "bwrap",
      { writable: [], visible: ["/tmp/w"], isolateNetwork: false, cwd: "/tmp/w" },
      ["true"],
    );
    expect(argv).not.toContain("--unshare-net");
    expect(argv.join(" ")).toContain("--tmpfs /tmp --ro-bind /tmp/w /tmp/w");
  });

  test("parents are bound before the directories inside them, each once", () => {
    expect(bindOrder(["/a/b/c", "/a", "/x/y", "/a"])).toEqual(["/a", "/x/y", "/a/b/c"]);
  });

  test("wrap binds the real workspace and the existing writable dirs; a missing one is skipped", async () => {
    const root = mkdtempSync(join(tmpdir(), "ion-wrap-"));
    try {
      const allowed = join(root, "allowed");
      mkdirSync(allowed);
      const sandbox = new CommandSandbox({ ...BWRAP, writable: [allowed, join(root, "missing")] });
      const { argv } = await sandbox.wrap(["true"], root, root);
      const binds = argv.flatMap((arg, i) => (arg === "--bind" ? [argv[i + 1]] : []));
      expect(binds).toEqual([realpathSync(root), realpathSync(allowed)]);
      sandbox.setMode("read-only");
      const readOnly = (await sandbox.wrap(["true"], root, root)).argv;
      expect(readOnly).not.toContain("--bind");
      expect(readOnly).toContain("--ro-bind");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("mode off, or no mechanism: the command runs as it is", async () => {
    expect((await new CommandSandbox({ ...BWRAP, mode: "off" }).wrap(["true"], "/", "/")).argv).toEqual([
      "true",
    ]);
    const none = new CommandSandbox({ ...BWRAP, kind: "none", reason: "bwrap is not installed" });
    expect(none.enforced).toBe(false);
    expect((await none.wrap(["true"], "/", "/")).argv).toEqual(["true"]);
    expect(describeSandbox(none.current)).toBe("no sandbox (bwrap is not installed)");
    expect(sandboxReport(none.current)).toEqual({ type: "none", mode: "off", network: true });
  });
});

describe("Seatbelt (macOS)", () => {
  test("the profile for a workspace, network off, matches the reviewed snapshot", () => {
    expect(
      seatbeltProfile({
        writable: ["/Users/me/proj", "/Users/me/shared"],
        tmp: true,
        network: { kind: "none" },
      }),
    ).toMatchSnapshot();
  });

  test("network through the host proxy only; read-only has no temporary dirs", () => {
    const profile = seatbeltProfile({ writable: [], tmp: false, network: { kind: "proxy", port: 43123 } });
    expect(profile).toMatchSnapshot();
    expect(profile).not.toContain("/private/tmp");
    expect(seatbeltProfile({ writable: [], tmp: true, network: { kind: "all" } })).not.toContain("network");
  });

  test("paths are parameters, never spliced into the profile", () => {
    const tricky = '/Users/me/a") (allow file-write* (subpath "/';
    const argv = seatbeltArgv(
      "/usr/bin/sandbox-exec",
      { writable: [tricky], tmp: true, network: { kind: "none" } },
      ["bash", "-c", "true"],
    );
    expect(argv[2]).not.toContain("/Users/me");
    expect(argv).toContain(`-DWRITABLE_ROOT_0=${tricky}`);
    expect(argv.slice(-4)).toEqual(["--", "bash", "-c", "true"]);
  });
});

describe("what a denied command is told", () => {
  test("a write denied by bwrap (EROFS), by Seatbelt (EPERM), in read-only", () => {
    expect(sandboxDenialNote(BWRAP, "touch: cannot touch '/etc/x': Read-only file system")).toContain(
      "only the workspace, the workspace.allow directories and a private /tmp are writable",
    );
    expect(
      sandboxDenialNote({ ...BWRAP, kind: "sandbox-exec" }, "touch: /etc/x: Operation not permitted"),
    ).toContain("a write was denied by the sandbox");
    expect(sandboxDenialNote({ ...BWRAP, mode: "read-only" }, "Read-only file system")).toContain(
      "the sandbox is read-only",
    );
  });

  test("a network failure with the network off; nothing with it on; nothing for an ordinary failure", () => {
    const curl = "curl: (7) Failed to connect to 127.0.0.1 port 8080: Connection refused";
    expect(sandboxDenialNote(BWRAP, curl)).toContain("network off");
    expect(sandboxDenialNote({ ...BWRAP, network: ["api.github.com"] }, curl)).toContain(
      "network: api.github.com",
    );
    expect(sandboxDenialNote({ ...BWRAP, network: true }, curl)).toBeUndefined();
    expect(sandboxDenialNote(BWRAP, "make: *** [all] Error 2")).toBeUndefined();
  });

  test("a path under the host's /tmp, hidden by the sandbox's own /tmp", () => {
    expect(sandboxDenialNote(BWRAP, "cat: /tmp/build.log: No such file or directory")).toContain(
      "a /tmp of its own",
    );
  });
});

describe("a sandbox that cannot start", () => {
  test("bwrap's own failure: the command did not run, and the note says so", () => {
    expect(
      sandboxStartFailure(BWRAP, 1, "", "bwrap: Creating new namespace failed: Operation not permitted\n"),
    ).toContain("the sandbox could not start (bwrap: Creating new namespace failed");
    expect(sandboxStartFailure(BWRAP, 1, "", "make: *** Error 1\n")).toBeUndefined();
    expect(sandboxStartFailure(BWRAP, 0, "", "bwrap: x")).toBeUndefined();
  });
});
