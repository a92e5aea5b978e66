import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { locateRepository } from "../../src/util/git.ts";
import { isInside, NOT_UTF8, readProjectFile, readProjectText } from "../../src/util/project-file.ts";

let base: string;
let project: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "ion-project-file-"));
  project = join(base, "project");
  mkdirSync(project);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const text = (file: ReturnType<typeof readProjectFile>) =>
  file.kind === "bytes" ? new TextDecoder().decode(file.bytes) : file;

describe("readProjectFile", () => {
  test("a regular file inside the project, directly or through a link that stays inside", () => {
    writeFileSync(join(project, "AGENTS.md"), "rules");
    symlinkSync("AGENTS.md", join(project, "CLAUDE.md"));
    expect(text(readProjectFile(join(project, "AGENTS.md"), project))).toBe("rules");
    expect(text(readProjectFile(join(project, "CLAUDE.md"), project))).toBe("rules");
  });

  test("missing, and a dangling link, are missing", () => {
    expect(readProjectFile(join(project, "nope.md"), project)).toEqual({ kind: "missing" });
    symlinkSync(join(project, "gone"), join(project, "dangling.md"));
    expect(readProjectFile(join(project, "dangling.md"), project)).toEqual({ kind: "missing" });
  });

  test("a link out of the project is refused, naming where it leads", () => {
    writeFileSync(join(base, "secret"), "outside");
    symlinkSync(join(base, "secret"), join(project, "AGENTS.md"));
    symlinkSync("/proc/self/environ", join(project, "env.md"));
    expect(readProjectFile(join(project, "AGENTS.md"), project)).toEqual({
      kind: "refused",
      reason: `it resolves outside the project (to ${join(base, "secret")})`,
    });
    const env = readProjectFile(join(project, "env.md"), project);
    expect(env.kind === "refused" && env.reason).toMatch(/^it resolves outside the project \(to \/proc\//);
  });

  test("devices, FIFOs and directories are not regular files; a file over the cap is refused", () => {
    Bun.spawnSync(["mkfifo", join(project, "fifo.md")]);
    mkdirSync(join(project, "dir.md"));
    for (const name of ["fifo.md", "dir.md"])
      expect(readProjectFile(join(project, name), project)).toEqual({
        kind: "refused",
        reason: "it is not a regular file",
      });
    writeFileSync(join(project, "big.md"), "x".repeat(2048));
    expect(readProjectFile(join(project, "big.md"), project, 1024)).toEqual({
      kind: "refused",
      reason: "it is larger than 1 KiB",
    });
  });

  test.if(process.getuid?.() === 0)("another account's file is refused; root's is not", () => {
    writeFileSync(join(project, "theirs.md"), "x");
    chownSync(join(project, "theirs.md"), 65534, 65534);
    expect(readProjectFile(join(project, "theirs.md"), project)).toEqual({
      kind: "refused",
      reason: "it is owned by another user (uid 65534)",
    });
  });

  test("isInside: the directory itself and below; not a sibling with the same prefix", () => {
    expect(isInside("/a/b", "/a/b")).toBe(true);
    expect(isInside("/a/b/c", "/a/b")).toBe(true);
    expect(isInside("/a/b/..c", "/a/b")).toBe(true);
    expect(isInside("/a/bc", "/a/b")).toBe(false);
    expect(isInside("/a", "/a/b")).toBe(false);
  });
});

describe("readProjectText", () => {
  test("UTF-8 text with its BOM dropped; other bytes are refused as not UTF-8; missing and refused as for bytes", () => {
    writeFileSync(join(project, "bom.json"), new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]));
    writeFileSync(join(project, "latin1.json"), new Uint8Array([0x22, 0xe9, 0x22]));
    writeFileSync(join(base, "secret.json"), "{}");
    symlinkSync(join(base, "secret.json"), join(project, "outside.json"));
    expect(readProjectText(join(project, "bom.json"), project)).toEqual({ kind: "text", text: "{}" });
    expect(readProjectText(join(project, "latin1.json"), project)).toEqual({
      kind: "refused",
      reason: NOT_UTF8,
    });
    expect(readProjectText(join(project, "nope.json"), project)).toEqual({ kind: "missing" });
    expect(readProjectText(join(project, "outside.json"), project)).toEqual({
      kind: "refused",
      reason: `it resolves outside the project (to ${join(base, "secret.json")})`,
    });
  });
});

describe("locateRepository", () => {
  test.if(process.getuid?.() === 0)(
    "stops at a directory another account owns, and names the repository it did not use",
    () => {
      const shared = join(base, "shared");
      mkdirSync(join(shared, ".git"), { recursive: true });
      mkdirSync(join(shared, "mine"));
      chownSync(shared, 65534, 65534);
      expect(locateRepository(join(shared, "mine"))).toEqual({
        repo: undefined,
        ignored: { root: shared, foreignDir: shared, uid: 65534 },
      });
    },
  );

  test.if(process.getuid?.() === 0)(
    "another account's directory with no repository above it is nothing to report",
    () => {
      mkdirSync(join(project, "sub"));
      chownSync(project, 65534, 65534);
      expect(locateRepository(join(project, "sub"))).toEqual({ repo: undefined, ignored: undefined });
    },
  );
});
