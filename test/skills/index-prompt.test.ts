import { describe, expect, test } from "bun:test";
import { skillsIndex } from "../../src/skills/index-prompt.ts";
import type { Skill } from "../../src/skills/types.ts";

function skill(name: string, description = `Does ${name}.`, available = true): Skill {
  return { name, description, body: "", source: "user", path: `/s/${name}.md`, requires: [], available };
}

describe("skillsIndex", () => {
  test("available skills with their descriptions on one line; unavailable ones are left out", () => {
    const index = skillsIndex([skill("a", "First\n  line\tand more"), skill("b", "x", false), skill("c")]);
    expect(index).toEqual({
      listed: [
        { name: "a", description: "First line and more" },
        { name: "c", description: "Does c." },
      ],
      namesOnly: [],
      unlisted: 0,
    });
  });

  test("about 2 % of the window: then names only, then a count", () => {
    // 2 % of 10 000 tokens = 200 tokens = 800 characters.
    const many = Array.from({ length: 40 }, (_, i) =>
      skill(`skill-${String(i).padStart(2, "0")}`, "d".repeat(80)),
    );
    const index = skillsIndex(many, { contextWindow: 10_000 });
    expect(index.listed.length).toBe(8); // 8 × (8 + 80 + 5) = 744 ≤ 800
    expect(index.namesOnly).toEqual(["skill-08", "skill-09", "skill-10", "skill-11", "skill-12"]);
    expect(index.listed.length + index.namesOnly.length + index.unlisted).toBe(40);
    const used =
      index.listed.reduce((n, s) => n + s.name.length + s.description.length + 5, 0) +
      index.namesOnly.reduce((n, name) => n + name.length + 2, 0);
    expect(used).toBeLessThanOrEqual(800);
  });

  test("an unknown window is budgeted as 128k; the same skills give the same index", () => {
    const skills = Array.from({ length: 30 }, (_, i) => skill(`s${i}`, "d".repeat(500)));
    const index = skillsIndex(skills);
    expect(index.listed.length).toBe(20); // 2 560 tokens = 10 240 chars; 508 each
    expect(skillsIndex([...skills].reverse())).toEqual(index);
  });
});
