import { describe, expect, test } from "bun:test";
import type { Skill } from "../../src/skills/types.ts";
import { skillTool } from "../../src/tools/skill.ts";

const ctx = { cwd: "/w", allow: [], signal: new AbortController().signal, callId: "call-1", sessionId: "s" };

const SKILLS: Skill[] = [
  {
    name: "pdf",
    description: "PDFs",
    body: "Run scripts/extract.py first.",
    source: "project",
    path: "/w/.ion/skills/pdf/SKILL.md",
    dir: "/w/.ion/skills/pdf",
    requires: [],
    available: true,
  },
  {
    name: "notes",
    description: "Notes",
    body: "Keep notes.",
    source: "user",
    path: "/c/notes.md",
    requires: [],
    available: true,
  },
  {
    name: "deploy",
    description: "Deploy",
    body: "kubectl apply",
    source: "user",
    path: "/c/deploy.md",
    requires: ["kubectl"],
    available: false,
    unavailable: "needs kubectl (not on PATH)",
  },
];

describe("the skill tool", () => {
  const tool = skillTool(SKILLS);

  test("read-only, named skill, with a name argument", () => {
    expect(tool.readOnly).toBe(true);
    expect(tool.spec.name).toBe("skill");
    expect(tool.spec.input_schema).toMatchObject({ type: "object", required: ["name"] });
  });

  test("returns the body, with the folder its files live in", async () => {
    expect(await tool.execute({ name: "pdf" }, ctx)).toEqual({
      is_error: false,
      content: '<skill name="pdf" dir="/w/.ion/skills/pdf">\nRun scripts/extract.py first.\n</skill>',
    });
    expect(await tool.execute({ name: "notes" }, ctx)).toEqual({
      is_error: false,
      content: '<skill name="notes">\nKeep notes.\n</skill>',
    });
  });

  test("an unknown name is an error listing the available skills, with a guess", async () => {
    expect(await tool.execute({ name: "pfd" }, ctx)).toEqual({
      is_error: true,
      content: 'unknown skill "pfd". Did you mean pdf? Available skills: pdf, notes.',
    });
  });

  test("an unavailable skill says why; bad arguments are an error result", async () => {
    expect(await tool.execute({ name: "deploy" }, ctx)).toEqual({
      is_error: true,
      content: 'skill "deploy" is unavailable: needs kubectl (not on PATH)',
    });
    expect((await tool.execute({}, ctx)).is_error).toBe(true);
  });
});
