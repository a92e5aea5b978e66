import { describe, expect, test } from "bun:test";
import { copyFileSync, cpSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BUILTIN_TEMPLATE } from "../../src/agent/context.ts";
import { type FileSystem, nodeFileSystem } from "../../src/context/file-cache.ts";
import { buildSystemPrompt, SystemPromptBuilder } from "../../src/context/system-prompt.ts";
import { IonError } from "../../src/errors.ts";
import { loadSkills } from "../../src/skills/load.ts";
import { resolveSkill } from "../../src/skills/resolve.ts";
import { tree } from "../support/tool-workspace.ts";
import { useTempHome } from "./temp-home.ts";

const FIXTURES = resolve(import.meta.dir, "../../../shared/fixtures/agents");
const TOOLS = ["read_file", "grep", "edit_file", "bash", "skill"];
const NOON = new Date(2025, 5, 1, 12, 0, 0);

const t = useTempHome("ion-system-prompt-");

/** A repository with an AGENTS.md at its root and in `pkg`, cwd `pkg`; ion and global layers too. */
function workspace(): string {
  tree(t.config, { "AGENTS.md": "ION-LOCAL rules" });
  tree(t.xdg, { "agents/AGENTS.md": "GLOBAL rules" });
  const root = join(t.base, "repo");
  tree(root, {
    ".git/HEAD": "ref: refs/heads/main\n",
    "AGENTS.md": "PROJECT-ROOT rules",
    "pkg/AGENTS.md": "PKG rules",
  });
  return join(root, "pkg");
}

const options = (cwd: string, extra: object = {}) => ({
  cwd,
  env: t.env,
  preamble: "PREAMBLE",
  tools: TOOLS,
  skills: loadSkills({ cwd, env: t.env, which: () => null }).items,
  now: NOON,
  ...extra,
});

/** Each part occurs after the one before it. */
function inOrder(text: string, parts: string[]): void {
  let at = 0;
  for (const part of parts) {
    const found = text.indexOf(part, at);
    expect({ part, found: found >= 0 }).toEqual({ part, found: true });
    at = found + part.length;
  }
}

describe("buildSystemPrompt", () => {
  test("base, preamble, environment, tools, then ion-local, global, project layers, skills index, active skill", () => {
    const cwd = workspace();
    const skills = loadSkills({ cwd, env: t.env }).items;
    const built = new SystemPromptBuilder().build(
      options(cwd, { activeSkill: resolveSkill(skills, "refactor") }),
    );
    inOrder(built.text, [
      "You are ion",
      "PREAMBLE",
      `- Working directory: ${cwd}`,
      "- Date: 2025-06-01",
      "- Git branch: main",
      "Available tools: read_file, grep, edit_file, bash, skill.",
      `<instructions path="${join(t.config, "AGENTS.md")}" scope="ion">\nION-LOCAL rules\n</instructions>`,
      `<instructions path="${join(t.xdg, "agents/AGENTS.md")}" scope="global">`,
      `<instructions path="${join(t.base, "repo/AGENTS.md")}" scope="project">`,
      `<instructions path="${join(cwd, "AGENTS.md")}" scope="project">\nPKG rules`,
      "# Skills",
      "- designer: Plan the architecture",
      "- developer: Implement a change",
      "- refactor: Restructure code",
      "# Active skill: refactor",
      "You are changing the structure of code, never what it does.",
    ]);
    expect(built.text.endsWith("summarise what moved where.")).toBe(true);
    expect(built.instructions.map((i) => i.scope)).toEqual(["ion", "global", "project", "project"]);
    expect(built.diagnostics).toEqual([]);
    expect(built.template).toBe(BUILTIN_TEMPLATE);
  });

  test("byte-identical across turns with the same inputs, also later the same day", () => {
    const cwd = workspace();
    const builder = new SystemPromptBuilder();
    const first = builder.build(options(cwd)).text;
    expect(builder.build(options(cwd)).text).toBe(first);
    expect(builder.build(options(cwd, { now: new Date(2025, 5, 1, 23, 59, 59) })).text).toBe(first);
    expect(new SystemPromptBuilder().build(options(cwd)).text).toBe(first);
    expect(builder.build(options(cwd, { now: new Date(2025, 5, 2, 0, 0, 1) })).text).not.toBe(first);
  });

  test("a changed instruction file changes the prompt on the next build", () => {
    const cwd = workspace();
    const builder = new SystemPromptBuilder();
    const before = builder.build(options(cwd)).text;
    const file = join(cwd, "AGENTS.md");
    writeFileSync(file, "PKG rules, revised");
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    const after = builder.build(options(cwd)).text;
    expect(after).not.toBe(before);
    expect(after).toContain("PKG rules, revised");
  });

  test("the skills index only with the skill tool; an unknown window budgets as 128k", () => {
    const cwd = workspace();
    expect(buildSystemPrompt(options(cwd, { tools: ["read_file"] })).text).not.toContain("# Skills");
    expect(buildSystemPrompt(options(cwd, { tools: ["read_file"] })).input.skills).toBeUndefined();
    expect(buildSystemPrompt(options(cwd)).input.skills?.listed.length).toBe(3);
  });

  test("a capped index says the rest is reachable through the skill tool", () => {
    const cwd = workspace();
    for (let i = 0; i < 60; i++) {
      tree(cwd, { [`.ion/skills/skill-${i}.md`]: `# ${"A long description of this skill. ".repeat(4)}\n` });
    }
    const built = buildSystemPrompt(
      options(cwd, { contextWindow: 32_000, skills: loadSkills({ cwd, env: t.env }).items }),
    );
    const index = built.input.skills!;
    expect(index.listed.length).toBeLessThan(63);
    expect(index.namesOnly.length).toBeGreaterThan(0);
    expect(index.unlisted).toBeGreaterThan(0);
    expect(built.text).toContain(
      `- More skills, by name only to save space: ${index.namesOnly.join(", ")}\n`,
    );
    expect(built.text).toContain(
      `- ${index.unlisted} more not listed here to save space: the skill tool, given a name it does not know, lists every skill.`,
    );
  });

  test("the real AGENTS.md and SKILL.md files render in order, each layer labelled with its path", () => {
    const root = join(t.base, "repo");
    mkdirSync(join(root, ".git"), { recursive: true });
    const names = [
      "AGENTS.md--vercel-ai.md",
      "AGENTS.md--anomalyco-models.dev.md",
      "AGENTS.md--ollama-ollama.md",
    ];
    const dirs = [root, join(root, "packages"), join(root, "packages/ai")];
    // Copied in: project files that link outside the project are not read.
    dirs.forEach((dir, i) => {
      mkdirSync(dir, { recursive: true });
      copyFileSync(join(FIXTURES, names[i]!), join(dir, "AGENTS.md"));
    });
    cpSync(join(FIXTURES, "skills"), join(dirs[2]!, ".agents/skills"), { recursive: true });
    const cwd = dirs[2]!;
    const skills = loadSkills({ cwd, env: t.env });
    expect(skills.diagnostics.filter((d) => d.severity === "error").map((d) => d.path)).toEqual([
      // `claude-api.frontmatter-only.md` as a short skill: its file name is not a skill name.
      join(cwd, ".agents/skills/claude-api.frontmatter-only.md"),
      join(cwd, ".agents/skills/doc-coauthoring.frontmatter-only.md"),
    ]);
    const active = resolveSkill(skills.items, "webapp-testing");
    const built = buildSystemPrompt(options(cwd, { skills: skills.items, activeSkill: active }));
    expect(built.diagnostics).toEqual([]);
    const firstLine = (name: string) =>
      readFileSync(join(FIXTURES, name), "utf8")
        .split("\n")
        .find((line) => line.trim() !== "")!;
    inOrder(built.text, [
      ...dirs.flatMap((dir, i) => [`<instructions path="${join(dir, "AGENTS.md")}"`, firstLine(names[i]!)]),
      "- brand-guidelines: Applies Anthropic's official brand colors",
      "- webapp-testing: Toolkit for interacting with and testing local web applications",
      "# Active skill: webapp-testing",
      `Files it mentions are relative to ${join(cwd, ".agents/skills/webapp-testing")}.`,
      "# Web Application Testing",
    ]);
  });
});

describe("the user's template", () => {
  test("<config>/templates/system.eta replaces the built-in one, and is re-read when it changes", () => {
    const cwd = workspace();
    const path = join(t.config, "templates/system.eta");
    tree(t.config, {
      "templates/system.eta": "Custom for <%= it.cwd %>; <%= it.instructions.length %> layers",
    });
    const builder = new SystemPromptBuilder();
    const built = builder.build(options(cwd));
    expect(built.text).toBe(`Custom for ${cwd}; 4 layers`);
    expect(built.template.path).toBe(path);
    writeFileSync(path, "Changed");
    const later = new Date(Date.now() + 5_000);
    utimesSync(path, later, later);
    expect(builder.build(options(cwd)).text).toBe("Changed");
  });

  test("a template error is a config error naming the file and line", () => {
    const cwd = workspace();
    const path = join(t.config, "templates/system.eta");
    const failure = (source: string): IonError => {
      writeFileSync(path, source);
      try {
        new SystemPromptBuilder().build(options(cwd));
      } catch (err) {
        if (err instanceof IonError) return err;
        throw err;
      }
      throw new Error("no error");
    };
    mkdirSync(join(t.config, "templates"));
    const unclosed = failure("line one\nline two <%= it.cwd \nline three");
    expect(unclosed.code).toBe("config");
    expect(unclosed.message).toBe(`template error in ${path}:2: unclosed tag`);
    expect(failure("a\nb\n<% if (it.cwd { %>\nc\n<% } %>").message).toStartWith(
      `template error in ${path}:3: `,
    );
    expect(failure("a\n<% if (it.cwd) { %>\nb\n").message).toBe(
      `template error in ${path}:4: a block opened with \`{\` is never closed`,
    );
    expect(failure("a\nb\n<%= it.nothing.here %>\n").message).toMatch(
      new RegExp(`^template error in ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: .*nothing`),
    );
  });

  test("an unreadable template is a config error, not a silent fallback", () => {
    const cwd = workspace();
    tree(t.config, { "templates/system.eta": Buffer.from([0xff, 0xfe, 0x00]) });
    expect(() => new SystemPromptBuilder().build(options(cwd))).toThrow(
      `cannot use the template ${join(t.config, "templates/system.eta")}: not UTF-8 text`,
    );
  });

  test("files are stat'ed every build but read only when changed", () => {
    const cwd = workspace();
    tree(t.config, { "templates/system.eta": "T <%= it.instructions.length %>" });
    const reads: string[] = [];
    const fs: FileSystem = {
      stat: (path) => nodeFileSystem.stat(path),
      read(path) {
        reads.push(path);
        return nodeFileSystem.read(path);
      },
    };
    const builder = new SystemPromptBuilder({ fs });
    builder.build(options(cwd));
    builder.build(options(cwd));
    builder.build(options(cwd));
    expect(reads).toHaveLength(5); // 4 layers + the template, once each
  });
});
