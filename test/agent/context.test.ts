import { describe, expect, test } from "bun:test";
import { renderSystemPrompt, type SystemPromptInput } from "../../src/agent/context.ts";

const BASE: SystemPromptInput = {
  cwd: "/home/dev/project",
  preamble: undefined,
  tools: [],
  date: "2025-06-01",
  os: "linux x64",
  shell: "/bin/bash",
};

describe("renderSystemPrompt", () => {
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
    const order = ["You are ion", "PREAMBLE", "# Environment", "- Git branch: main", "Available tools: grep."];
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
});
