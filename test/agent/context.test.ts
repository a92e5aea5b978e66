import { describe, expect, test } from "bun:test";
import {
  BUILTIN_TEMPLATE,
  environmentFacts,
  renderSystemPrompt,
  type SystemPromptInput,
} from "../../src/agent/context.ts";

const BASE: SystemPromptInput = {
  cwd: "/home/dev/project",
  preamble: undefined,
  tools: [],
  date: "2025-06-01",
  os: "linux x64",
  shell: "/bin/bash",
};

describe("renderSystemPrompt", () => {
  test("the built-in template compiled when ion is built renders exactly as compiling it now does", () => {
    expect(BUILTIN_TEMPLATE.compiled).toContain("__eta.res");
    const { compiled: _, ...uncompiled } = BUILTIN_TEMPLATE;
    const fresh = { ...uncompiled, source: `${uncompiled.source}\n` }; // another cache key
    const inputs: SystemPromptInput[] = [
      BASE,
      { ...BASE, preamble: "Be brief.", tools: ["read_file", "skill"], gitBranch: "main" },
      {
        ...BASE,
        instructions: [{ path: "/p/AGENTS.md", scope: "project", text: "Use tabs." }],
        skills: { listed: [{ name: "pdf", description: "PDFs" }], namesOnly: ["other"], unlisted: 0 },
        activeSkill: { name: "pdf", body: "Extract first.", dir: "/s/pdf" },
      },
    ];
    for (const input of inputs) expect(renderSystemPrompt(input)).toBe(renderSystemPrompt(input, fresh));
  });

  test("the base prompt: identity and environment, nothing else", () => {
    const prompt = renderSystemPrompt(BASE);
    expect(prompt.startsWith("You are ion")).toBe(true);
    expect(prompt).toContain("- Working directory: /home/dev/project\n");
    expect(prompt).toContain("- Date: 2025-06-01\n");
    expect(prompt).toContain("- OS: linux x64\n");
    expect(prompt.endsWith("- Shell: /bin/bash")).toBe(true);
    expect(prompt).not.toContain("tools");
    expect(prompt).not.toContain("Git branch");
    expect(prompt).not.toContain("undefined");
    expect(prompt).not.toMatch(/\n{3,}/);
  });

  test("the preamble is included verbatim, not HTML-escaped", () => {
    const preamble = 'Always answer in French. Use <tags> & "quotes".';
    const prompt = renderSystemPrompt({ ...BASE, preamble });
    expect(prompt).toContain(`\n\n${preamble}\n\n# Environment`);
  });

  test("the tools line appears only when there are tools", () => {
    const withTools = renderSystemPrompt({ ...BASE, tools: ["read_file", "bash"] });
    expect(withTools).toContain("Available tools: read_file, bash.");
    expect(renderSystemPrompt({ ...BASE, tools: [] })).not.toContain("Available tools");
  });

  test("the git branch appears only when given", () => {
    expect(renderSystemPrompt({ ...BASE, gitBranch: "feature/x" }).endsWith("- Git branch: feature/x")).toBe(
      true,
    );
    expect(renderSystemPrompt({ ...BASE, gitBranch: undefined })).not.toContain("Git branch");
    expect(renderSystemPrompt({ ...BASE, gitBranch: "" })).not.toContain("Git branch");
  });

  test("everything at once, in order", () => {
    const prompt = renderSystemPrompt({ ...BASE, preamble: "PREAMBLE", tools: ["grep"], gitBranch: "main" });
    const order = [
      "You are ion",
      "PREAMBLE",
      "# Environment",
      "- Git branch: main",
      "Available tools: grep.",
    ];
    const positions = order.map((part) => prompt.indexOf(part));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  test("byte-identical for identical inputs (prompt caching)", () => {
    const input: SystemPromptInput = { ...BASE, preamble: "p", tools: ["a", "b"], gitBranch: "main" };
    const first = renderSystemPrompt(input);
    expect(renderSystemPrompt({ ...input, tools: [...input.tools] })).toBe(first);
    expect(renderSystemPrompt(input)).toBe(first);
    expect(renderSystemPrompt({ ...input, date: "2025-06-02" })).not.toBe(first);
  });

  test("instruction layers, skills index and active skill come last, in that order", () => {
    const prompt = renderSystemPrompt({
      ...BASE,
      tools: ["skill"],
      instructions: [
        { path: "/cfg/ion/AGENTS.md", scope: "ion", text: "ION" },
        { path: "/cfg/agents/AGENTS.md", scope: "global", text: "GLOBAL" },
        { path: "/repo/AGENTS.md", scope: "project", text: "PROJECT" },
      ],
      skills: { listed: [{ name: "developer", description: "Implement." }], namesOnly: [], unlisted: 0 },
      activeSkill: { name: "developer", body: "SKILL BODY" },
    });
    const order = [
      "# Environment",
      "Available tools: skill.",
      '<instructions path="/cfg/ion/AGENTS.md" scope="ion">\nION\n</instructions>',
      '<instructions path="/cfg/agents/AGENTS.md" scope="global">\nGLOBAL\n</instructions>',
      '<instructions path="/repo/AGENTS.md" scope="project">\nPROJECT\n</instructions>',
      "# Skills",
      "- developer: Implement.",
      "# Active skill: developer",
    ];
    const positions = order.map((part) => prompt.indexOf(part));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt.endsWith("\n\nSKILL BODY")).toBe(true);
    expect(prompt).not.toMatch(/\n{3,}/);
  });

  test("no instructions, skills or active skill: no headings for them", () => {
    const prompt = renderSystemPrompt({
      ...BASE,
      instructions: [],
      skills: { listed: [], namesOnly: [], unlisted: 0 },
    });
    expect(prompt).not.toContain("# Instructions");
    expect(prompt).not.toContain("# Skills");
    expect(prompt).not.toContain("# Active skill");
  });

  test("byte-identical with every section filled", () => {
    const input: SystemPromptInput = {
      ...BASE,
      tools: ["skill", "bash"],
      gitBranch: "main",
      instructions: [{ path: "/r/AGENTS.md", scope: "project", text: "rules" }],
      skills: { listed: [{ name: "a", description: "b" }], namesOnly: ["c"], unlisted: 2 },
      activeSkill: { name: "a", body: "body", dir: "/s/a" },
    };
    const first = renderSystemPrompt(input);
    expect(renderSystemPrompt(structuredClone(input))).toBe(first);
  });
});

describe("environmentFacts", () => {
  test("the date is the local day, the same all day long", () => {
    const env = { SHELL: "/bin/zsh" };
    expect(environmentFacts("/nowhere", env, new Date(2025, 0, 2, 0, 0, 1)).date).toBe("2025-01-02");
    expect(environmentFacts("/nowhere", env, new Date(2025, 0, 2, 23, 59, 59)).date).toBe("2025-01-02");
    expect(environmentFacts("/nowhere", env).shell).toBe("/bin/zsh");
  });
});
