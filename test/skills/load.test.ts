import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { availableSkillNames, loadSkills, skillDirs } from "../../src/skills/load.ts";
import type { Skill } from "../../src/skills/types.ts";
import { useTempHome } from "../context/temp-home.ts";
import { tree } from "../support/tool-workspace.ts";

const SKILLS = resolve(import.meta.dir, "../../../shared/fixtures/agents/skills");

const t = useTempHome("ion-skills-");
const work = () => join(t.base, "work");
const noPrograms = () => null;
const load = (which: (program: string) => string | null = noPrograms) =>
  loadSkills({ cwd: work(), env: t.env, which });
const byName = (skills: Skill[], name: string) => skills.find((skill) => skill.name === name);

function skillMd(name: string, description: string, body = `# ${name}\n\nDo it well.`, extra = ""): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}\n`;
}

describe("skill directories", () => {
  test("highest precedence first: ./.ion, ./.agents, <config>, ~/.agents", () => {
    expect(skillDirs({ cwd: work(), env: t.env })).toEqual([
      { path: join(work(), ".ion/skills"), source: "project", projectRoot: work() },
      { path: join(work(), ".agents/skills"), source: "project", projectRoot: work() },
      { path: join(t.config, "skills"), source: "user" },
      { path: join(t.home, ".agents/skills"), source: "user" },
    ]);
  });

  test("in the home directory ~/.agents/skills is listed once", () => {
    const dirs = skillDirs({ cwd: t.home, env: t.env }).map((dir) => dir.path);
    expect(dirs.filter((dir) => dir === join(t.home, ".agents/skills"))).toHaveLength(1);
  });
});

describe("loadSkills", () => {
  test("with no directories: the three built-ins, sorted, available, without diagnostics", () => {
    const { items, diagnostics } = load();
    expect(diagnostics).toEqual([]);
    expect(items.map((s) => [s.name, s.source, s.path, s.available])).toEqual([
      ["designer", "builtin", "builtin:designer", true],
      ["developer", "builtin", "builtin:developer", true],
      ["refactor", "builtin", "builtin:refactor", true],
    ]);
    for (const skill of items) {
      expect(skill.description.length).toBeGreaterThan(40);
      expect(skill.body.startsWith("# ")).toBe(true);
    }
  });

  test("every real SKILL.md loads without an error; the 1068-character description is cut with a warning", () => {
    const dir = join(t.config, "skills");
    // The folders as they are, linked (symlinks are followed); the frontmatter-only copies as SKILL.md.
    const entries = readdirSync(SKILLS, { withFileTypes: true });
    for (const entry of entries) {
      if (entry.isDirectory()) {
        mkdirSync(dir, { recursive: true });
        symlinkSync(join(SKILLS, entry.name), join(dir, entry.name));
      } else {
        const name = entry.name.replace(/\.frontmatter-only\.md$/, "");
        tree(dir, { [`${name}/SKILL.md`]: readFileSync(join(SKILLS, entry.name)) });
      }
    }
    const { items, diagnostics } = load();
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const user = items.filter((s) => s.source === "user").map((s) => s.name);
    expect(user).toEqual([
      "brand-guidelines",
      "claude-api",
      "doc-coauthoring",
      "internal-comms",
      "template-skill",
      "web-artifacts-builder",
      "webapp-testing",
    ]);
    const api = byName(items, "claude-api")!;
    expect(api.description).toHaveLength(1024);
    expect(api.description.endsWith("…")).toBe(true);
    expect(api.description.startsWith("Reference for the Claude API")).toBe(true);
    expect(diagnostics).toContainEqual({
      path: join(dir, "claude-api/SKILL.md"),
      severity: "warning",
      message: "description: 1068 characters, over the limit of 1024; cut to 1024",
    });
    const testing = byName(items, "webapp-testing")!;
    expect(testing.dir).toBe(join(dir, "webapp-testing"));
    expect(testing.body.startsWith("# Web Application Testing")).toBe(true);
    expect(byName(items, "template-skill")!.description).toBe(
      "Replace with description of the skill and when Claude should use it.",
    );
  });

  test("project beats user beats built-in, by name; .ion beats .agents, <config> beats ~/.agents", () => {
    tree(t.home, { ".agents/skills/developer/SKILL.md": skillMd("developer", "from ~/.agents") });
    tree(t.config, { "skills/developer/SKILL.md": skillMd("developer", "from config") });
    tree(work(), {
      ".agents/skills/developer/SKILL.md": skillMd("developer", "from ./.agents"),
      ".ion/skills/developer.md": "# from ./.ion\n\nbody",
    });
    const description = () => byName(load().items, "developer")?.description;
    expect(description()).toBe("from ./.ion");
    expect(byName(load().items, "developer")?.source).toBe("project");
    Bun.spawnSync(["rm", "-r", join(work(), ".ion")]);
    expect(description()).toBe("from ./.agents");
    Bun.spawnSync(["rm", "-r", join(work(), ".agents")]);
    expect(description()).toBe("from config");
    expect(byName(load().items, "developer")?.source).toBe("user");
    Bun.spawnSync(["rm", "-r", join(t.config, "skills")]);
    expect(description()).toBe("from ~/.agents");
    Bun.spawnSync(["rm", "-r", join(t.home, ".agents")]);
    expect(byName(load().items, "developer")?.source).toBe("builtin");
  });

  test("a bad skill is a diagnostic, and a lower-precedence skill of its name still loads", () => {
    tree(work(), { ".ion/skills/refactor/SKILL.md": "---\nname: refactor\n---\nno description\n" });
    const { items, diagnostics } = load();
    expect(byName(items, "refactor")?.source).toBe("builtin");
    expect(diagnostics).toEqual([
      {
        path: join(work(), ".ion/skills/refactor/SKILL.md"),
        severity: "error",
        message: "description: missing",
      },
    ]);
  });

  test("missing `requires` programs make a skill unavailable, with the reason", () => {
    tree(t.config, {
      "skills/deploy/SKILL.md": skillMd(
        "deploy",
        "Deploy the app",
        "Run it.",
        "requires: [docker, kubectl, git]\n",
      ),
      "skills/lint.md": "---\nrequires: git\n---\n# Lint the code\n",
    });
    const which = (program: string) => (program === "git" ? "/usr/bin/git" : null);
    const { items, diagnostics } = load(which);
    expect(diagnostics).toEqual([]);
    const deploy = byName(items, "deploy")!;
    expect(deploy.requires).toEqual(["docker", "kubectl", "git"]);
    expect(deploy.available).toBe(false);
    expect(deploy.unavailable).toBe("needs docker, kubectl (not on PATH)");
    expect(byName(items, "lint")).toMatchObject({
      available: true,
      requires: ["git"],
      description: "Lint the code",
    });
    expect(availableSkillNames(items)).toEqual(["designer", "developer", "lint", "refactor"]);
  });

  test("requires is looked up on the environment's PATH by default", () => {
    const bin = join(t.base, "bin");
    tree(bin, { "my-tool": "#!/bin/sh\n" });
    Bun.spawnSync(["chmod", "+x", join(bin, "my-tool")]);
    tree(t.config, { "skills/tooled.md": "---\nrequires: [my-tool]\n---\nUses my-tool\n" });
    const loaded = (PATH: string) =>
      byName(loadSkills({ cwd: work(), env: { ...t.env, PATH } }).items, "tooled");
    expect(loaded(bin)?.available).toBe(true);
    expect(loaded(join(t.base, "empty"))?.available).toBe(false);
  });

  test("short .md skills: name from the file, description from the first non-empty line", () => {
    tree(t.config, {
      "skills/commit.md": "\n\n## Write a commit message\n\nLook at the staged diff first.\n",
      "skills/long.md": `${"word ".repeat(100)}\n`,
      "skills/notes.txt": "not a skill",
      "skills/.hidden.md": "# hidden",
    });
    const { items, diagnostics } = load();
    expect(diagnostics).toEqual([]);
    expect(byName(items, "commit")).toMatchObject({
      description: "Write a commit message",
      body: "## Write a commit message\n\nLook at the staged diff first.",
      path: join(t.config, "skills/commit.md"),
    });
    expect(byName(items, "commit")?.dir).toBeUndefined();
    const long = byName(items, "long")!.description;
    expect(long.length).toBeLessThanOrEqual(200);
    expect(long.endsWith("…")).toBe(true);
    expect(items.map((s) => s.name)).not.toContain("notes");
    expect(items.map((s) => s.name)).not.toContain(".hidden");
  });

  test("a folder beats a same-named .md file beside it, with a warning", () => {
    tree(t.config, {
      "skills/review/SKILL.md": skillMd("review", "folder"),
      "skills/review.md": "# file",
    });
    const { items, diagnostics } = load();
    expect(byName(items, "review")?.description).toBe("folder");
    expect(diagnostics).toEqual([
      {
        path: join(t.config, "skills/review.md"),
        severity: "warning",
        message: 'ignored: the folder skill "review" beside it has the same name',
      },
    ]);
  });

  test("folders without SKILL.md are not skills; non-UTF-8 files are errors", () => {
    tree(t.config, {
      "skills/assets/logo.txt": "x",
      "skills/binary.md": Buffer.from([0x23, 0x20, 0xff, 0xfe]),
    });
    const { items, diagnostics } = load();
    expect(items.map((s) => s.name)).toEqual(["designer", "developer", "refactor"]);
    expect(diagnostics).toEqual([
      { path: join(t.config, "skills/binary.md"), severity: "error", message: "not UTF-8 text" },
    ]);
  });

  test("a dangling symlink in a skills directory is a warning, not a crash", () => {
    mkdirSync(join(t.config, "skills"), { recursive: true });
    symlinkSync(join(t.base, "gone"), join(t.config, "skills/gone"));
    const { diagnostics } = load();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ path: join(t.config, "skills/gone"), severity: "warning" });
    expect(diagnostics[0]!.message).toStartWith("cannot follow the link (");
  });
});
