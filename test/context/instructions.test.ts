import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type FileSystem, nodeFileSystem } from "../../src/context/file-cache.ts";
import {
  InstructionLoader,
  instructionSlots,
  loadInstructions,
  MAX_LAYER_TOKENS,
} from "../../src/context/instructions.ts";
import { tree } from "../support/tool-workspace.ts";
import { useTempHome } from "./temp-home.ts";

const FIXTURES = resolve(import.meta.dir, "../../../shared/fixtures/agents");

const t = useTempHome("ion-instructions-");

/** A node:fs that counts reads per path, so tests see what the cache re-read. */
function countingFs(): FileSystem & { reads: Map<string, number> } {
  const reads = new Map<string, number>();
  return {
    reads,
    stat: (path) => nodeFileSystem.stat(path),
    read(path) {
      reads.set(path, (reads.get(path) ?? 0) + 1);
      return nodeFileSystem.read(path);
    },
  };
}

/** A repository at `repo` with the files given (a `.git` directory marks its root). */
function repo(files: Record<string, string | Uint8Array>): string {
  const root = join(t.base, "repo");
  mkdirSync(join(root, ".git"), { recursive: true });
  tree(root, files);
  return root;
}

const load = (cwd: string) => new InstructionLoader().load({ cwd, env: t.env });

describe("instruction layers", () => {
  test("order: ion config, XDG agents, then git root down to cwd; CLAUDE.md only where AGENTS.md is absent", () => {
    tree(t.config, { "AGENTS.md": "ion-local" });
    tree(t.xdg, { "agents/AGENTS.md": "global" });
    const root = repo({
      "AGENTS.md": "root",
      "a/CLAUDE.md": "a-claude",
      "a/b/AGENTS.md": "b-agents",
      "a/b/CLAUDE.md": "b-claude (never read)",
      "a/b/c/README.md": "not an instruction file",
    });
    const cwd = join(root, "a/b/c");
    const { items, diagnostics } = load(cwd);
    expect(diagnostics).toEqual([]);
    expect(items.map((i) => [i.scope, i.path, i.text])).toEqual([
      ["ion", join(t.config, "AGENTS.md"), "ion-local"],
      ["global", join(t.xdg, "agents/AGENTS.md"), "global"],
      ["project", join(root, "AGENTS.md"), "root"],
      ["project", join(root, "a/CLAUDE.md"), "a-claude"],
      ["project", join(root, "a/b/AGENTS.md"), "b-agents"],
    ]);
  });

  test("without XDG_CONFIG_HOME the global layer is ~/.config/agents/AGENTS.md", () => {
    tree(t.home, { ".config/agents/AGENTS.md": "home global" });
    const { XDG_CONFIG_HOME: _unset, ...env } = t.env;
    const { items } = new InstructionLoader().load({ cwd: t.base, env });
    expect(items.map((i) => [i.scope, i.text])).toEqual([["global", "home global"]]);
  });

  test("nothing above the git root is read", () => {
    tree(t.base, { "AGENTS.md": "above the repository" });
    const root = repo({ "AGENTS.md": "root", "pkg/AGENTS.md": "pkg" });
    expect(load(join(root, "pkg")).items.map((i) => i.text)).toEqual(["root", "pkg"]);
  });

  test("a worktree's .git file marks the root too", () => {
    const root = join(t.base, "wt");
    tree(root, {
      ".git": "gitdir: /elsewhere/.git/worktrees/wt\n",
      "AGENTS.md": "wt",
      "sub/AGENTS.md": "sub",
    });
    expect(load(join(root, "sub")).items.map((i) => i.text)).toEqual(["wt", "sub"]);
  });

  test("outside a repository only cwd itself is read, not its parents", () => {
    tree(t.base, { "AGENTS.md": "parent", "plain/AGENTS.md": "cwd", "plain/x/AGENTS.md": "child" });
    const slots = instructionSlots({ cwd: join(t.base, "plain"), env: t.env });
    expect(slots.filter((s) => s.scope === "project")).toEqual([
      {
        scope: "project",
        candidates: [join(t.base, "plain/AGENTS.md"), join(t.base, "plain/CLAUDE.md")],
        projectRoot: join(t.base, "plain"),
      },
    ]);
    expect(load(join(t.base, "plain")).items.map((i) => i.text)).toEqual(["cwd"]);
  });

  test("symlinks are followed, and one file reached by two paths is quoted once", () => {
    const root = repo({ "shared/AGENTS.md": "shared rules" });
    mkdirSync(join(t.xdg, "agents"));
    symlinkSync(join(root, "shared/AGENTS.md"), join(t.xdg, "agents/AGENTS.md"));
    symlinkSync(join(root, "shared/AGENTS.md"), join(root, "AGENTS.md"));
    // The CLAUDE.md-is-a-link-to-AGENTS.md layout of real repositories (vercel/ai).
    tree(root, { "web/AGENTS.md": "web" });
    symlinkSync("AGENTS.md", join(root, "web/CLAUDE.md"));
    const { items, diagnostics } = load(join(root, "web"));
    expect(diagnostics).toEqual([]);
    expect(items.map((i) => [i.scope, i.text])).toEqual([
      ["global", "shared rules"],
      ["project", "web"],
    ]);
  });

  test("a layer over 10 000 tokens is cut, with a warning naming the file", () => {
    const root = repo({ "AGENTS.md": `${"x".repeat(50_000)}THE-END` });
    const { items, diagnostics } = load(root);
    const path = join(root, "AGENTS.md");
    expect(items).toHaveLength(1);
    expect(items[0]!.truncated).toBe(true);
    expect(items[0]!.text).not.toContain("THE-END");
    expect(items[0]!.text).toContain(`[… ${path} is cut here`);
    expect(items[0]!.tokens).toBeLessThanOrEqual(MAX_LAYER_TOKENS + 50);
    expect(diagnostics).toEqual([
      {
        path,
        severity: "warning",
        message: "about 12502 tokens, over the limit of 10000; only the first 10000 are used",
      },
    ]);
  });

  test("non-UTF-8 and unreadable files are skipped with a warning; the other layers load", () => {
    const root = repo({ "AGENTS.md": "root", "sub/AGENTS.md": Buffer.from([0x68, 0x69, 0xff, 0xfe, 0x0a]) });
    const { items, diagnostics } = load(join(root, "sub"));
    expect(items.map((i) => i.text)).toEqual(["root"]);
    expect(diagnostics).toEqual([
      { path: join(root, "sub/AGENTS.md"), severity: "warning", message: "not UTF-8 text; skipped" },
    ]);

    const denied: FileSystem = {
      stat: (path) => nodeFileSystem.stat(path),
      read(path) {
        if (path.endsWith("sub/AGENTS.md"))
          throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: "EACCES" });
        return nodeFileSystem.read(path);
      },
    };
    writeFileSync(join(root, "sub/AGENTS.md"), "fine now, but unreadable");
    const unreadable = new InstructionLoader(denied).load({ cwd: join(root, "sub"), env: t.env });
    expect(unreadable.items.map((i) => i.text)).toEqual(["root"]);
    expect(unreadable.diagnostics[0]?.message).toBe("cannot read it (permission denied); skipped");
  });

  test("cached by mtime: an unchanged file is not read again, a changed one is", () => {
    tree(t.config, { "AGENTS.md": "ion v1" });
    const root = repo({ "AGENTS.md": "root v1" });
    const fs = countingFs();
    const loader = new InstructionLoader(fs);
    const first = loader.load({ cwd: root, env: t.env });
    expect(first.items.map((i) => i.text)).toEqual(["ion v1", "root v1"]);
    expect(loader.load({ cwd: root, env: t.env })).toEqual(first);
    expect([...fs.reads.values()]).toEqual([1, 1]);

    const rootFile = join(root, "AGENTS.md");
    writeFileSync(rootFile, "root v2");
    const later = new Date(Date.now() + 5_000);
    utimesSync(rootFile, later, later); // a different mtime even on coarse-grained file systems
    const second = loader.load({ cwd: root, env: t.env });
    expect(second.items.map((i) => i.text)).toEqual(["ion v1", "root v2"]);
    expect(fs.reads.get(join(t.config, "AGENTS.md"))).toBe(1);
    expect(fs.reads.get(rootFile)).toBe(2);
  });

  test("a file that appears or disappears between loads is seen", () => {
    const root = repo({});
    const loader = new InstructionLoader();
    expect(loader.load({ cwd: root, env: t.env }).items).toEqual([]);
    writeFileSync(join(root, "CLAUDE.md"), "now here");
    expect(loader.load({ cwd: root, env: t.env }).items.map((i) => i.text)).toEqual(["now here"]);
    writeFileSync(join(root, "AGENTS.md"), "agents wins");
    expect(loader.load({ cwd: root, env: t.env }).items.map((i) => i.text)).toEqual(["agents wins"]);
  });

  test("the real AGENTS.md files of public repositories load, in tree order, without diagnostics", () => {
    const names = [
      "AGENTS.md--vercel-ai.md",
      "AGENTS.md--anomalyco-models.dev.md",
      "AGENTS.md--ollama-ollama.md",
    ];
    const root = repo({});
    const dirs = [root, join(root, "packages"), join(root, "packages/core")];
    dirs.forEach((dir, i) => {
      mkdirSync(dir, { recursive: true });
      // Copied in: a project's AGENTS.md that links outside the project is not read.
      copyFileSync(join(FIXTURES, names[i]!), join(dir, "AGENTS.md"));
    });
    const { items, diagnostics } = loadInstructions({ cwd: dirs[2]!, env: t.env });
    expect(diagnostics).toEqual([]);
    expect(items.map((i) => i.path)).toEqual(dirs.map((dir) => join(dir, "AGENTS.md")));
    items.forEach((item, i) => {
      expect(item.text).toBe(readFileSync(join(FIXTURES, names[i]!), "utf8").trim());
      expect(item.truncated).toBe(false);
    });
  });
});
