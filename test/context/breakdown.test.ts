import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { contextBreakdown } from "../../src/context/breakdown.ts";
import { SystemPromptBuilder } from "../../src/context/system-prompt.ts";
import type { Message, ToolSpec } from "../../src/providers/types.ts";
import { loadSkills } from "../../src/skills/load.ts";
import { resolveSkill } from "../../src/skills/resolve.ts";
import { tree } from "../support/tool-workspace.ts";
import { useTempHome } from "./temp-home.ts";

const t = useTempHome("ion-breakdown-");

const TOOLS: ToolSpec[] = [
  { name: "skill", description: "Read a skill", input_schema: { type: "object", properties: {} } },
];
const MESSAGES: Message[] = [
  { role: "user", content: [{ type: "text", text: "x".repeat(400) }] },
  { role: "assistant", content: [{ type: "text", text: "y".repeat(400) }] },
];

describe("contextBreakdown", () => {
  test("base, each instruction file, skills index, active skill, tools, history — summing to the prompt", () => {
    tree(t.config, { "AGENTS.md": "a".repeat(4000) });
    tree(t.base, { "work/AGENTS.md": "b".repeat(800) });
    const cwd = join(t.base, "work");
    const skills = loadSkills({ cwd, env: t.env }).items;
    const prompt = new SystemPromptBuilder().build({
      cwd,
      env: t.env,
      preamble: undefined,
      tools: ["skill"],
      skills,
      activeSkill: resolveSkill(skills, "developer"),
    });
    const breakdown = contextBreakdown({ prompt, tools: TOOLS, messages: MESSAGES, contextWindow: 100_000 });
    expect(breakdown.rows.map((row) => [row.kind, row.label])).toEqual([
      ["base", "system prompt"],
      ["instructions", join(t.config, "AGENTS.md")],
      ["instructions", join(cwd, "AGENTS.md")],
      ["skills", "skills index"],
      ["active_skill", "skill: developer"],
      ["tools", "tools"],
      ["history", "history"],
    ]);
    const tokens = Object.fromEntries(breakdown.rows.map((row) => [row.label, row.tokens]));
    expect(tokens[join(t.config, "AGENTS.md")]).toBe(1000);
    expect(tokens[join(cwd, "AGENTS.md")]).toBe(200);
    expect(tokens.history).toBe(200);
    expect(tokens["skill: developer"]).toBeGreaterThan(200);
    const systemRows = breakdown.rows.filter((row) => row.kind !== "tools" && row.kind !== "history");
    const systemTokens = systemRows.reduce((sum, row) => sum + row.tokens, 0);
    // Each row rounds up on its own: the parts add up to the whole within a token per row.
    expect(Math.abs(systemTokens - prompt.text.length / 4)).toBeLessThanOrEqual(systemRows.length);
    expect(breakdown.total).toBe(breakdown.rows.reduce((sum, row) => sum + row.tokens, 0));
    expect(breakdown.share).toBeCloseTo(breakdown.total / 100_000);
    expect(breakdown.rows[1]!.share).toBeCloseTo(0.01);
  });

  test("shares are null when the window is unknown; absent parts have no row", () => {
    const prompt = new SystemPromptBuilder().build({
      cwd: t.base,
      env: t.env,
      preamble: undefined,
      tools: [],
    });
    const breakdown = contextBreakdown({ prompt, tools: [], messages: [] });
    expect(breakdown.rows.map((row) => row.kind)).toEqual(["base", "tools", "history"]);
    expect(breakdown.share).toBeNull();
    expect(breakdown.rows.every((row) => row.share === null)).toBe(true);
  });

  test("the tokens mcp_search saves are told beside the total, not counted in it", () => {
    const prompt = new SystemPromptBuilder().build({
      cwd: t.base,
      env: t.env,
      preamble: undefined,
      tools: [],
    });
    const without = contextBreakdown({ prompt, tools: TOOLS, messages: [], contextWindow: 8_000 });
    const saving = { deferredTools: 224, tokensSaved: 9_500 };
    const lazy = contextBreakdown({
      prompt,
      tools: TOOLS,
      messages: [],
      contextWindow: 8_000,
      mcpSearch: saving,
    });
    expect(without.mcpSearch).toBeUndefined();
    expect(lazy.mcpSearch).toEqual(saving);
    expect(lazy.total).toBe(without.total);
    expect(lazy.rows).toEqual(without.rows);
    // Every MCP tool listed: nothing to tell.
    const listed = { deferredTools: 0, tokensSaved: 0 };
    expect(
      contextBreakdown({ prompt, tools: TOOLS, messages: [], mcpSearch: listed }).mcpSearch,
    ).toBeUndefined();
  });
});
