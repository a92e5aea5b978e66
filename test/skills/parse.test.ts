import { describe, expect, test } from "bun:test";
import { splitFrontmatter } from "../../src/skills/frontmatter.ts";
import { nameProblem, parseSkill, type SkillOrigin } from "../../src/skills/parse.ts";

const folder = (name: string): SkillOrigin => ({
  path: `/skills/${name}/SKILL.md`,
  source: "user",
  kind: "folder",
  name,
  dir: `/skills/${name}`,
});
const file = (name: string): SkillOrigin => ({
  path: `/skills/${name}.md`,
  source: "user",
  kind: "file",
  name,
});

/** The one error a file produces, or undefined when it loads. */
function errorOf(text: string, origin: SkillOrigin): string | undefined {
  const parsed = parseSkill(text, origin);
  const errors = parsed.diagnostics.filter((d) => d.severity === "error");
  if (parsed.skill) expect(errors).toEqual([]);
  else expect(errors).toHaveLength(1);
  return errors[0]?.message;
}

describe("frontmatter", () => {
  test("split at the first line of --- and the next line of --- or ...", () => {
    expect(splitFrontmatter("---\na: 1\n---\nbody\n")).toEqual({ yaml: "a: 1\n", body: "body\n" });
    expect(splitFrontmatter("---\r\na: 1\r\n...\r\nbody")).toEqual({ yaml: "a: 1\r\n", body: "body" });
    expect(splitFrontmatter("---\na: 1\n---")).toEqual({ yaml: "a: 1\n", body: "" });
    expect(splitFrontmatter("# title\n---\n")).toEqual({ body: "# title\n---\n" });
    expect(splitFrontmatter("---\na: 1\n")).toEqual({ error: "the frontmatter has no closing `---` line" });
  });

  test("YAML block scalars, lists and unknown keys (license, metadata) are read by the YAML parser", () => {
    const text = [
      "---",
      "name: pdf",
      "description: |-",
      "  Line one.",
      "  Line two: with a colon.",
      "requires:",
      "  - qpdf",
      "  - pdftotext",
      "license: Apache-2.0",
      "metadata:",
      '  version: "1.0"',
      "allowed-tools: Bash(qpdf:*) Read",
      "---",
      "Body.",
    ].join("\n");
    const { skill, diagnostics } = parseSkill(text, folder("pdf"));
    expect(diagnostics).toEqual([]);
    expect(skill).toEqual({
      name: "pdf",
      description: "Line one.\nLine two: with a colon.",
      body: "Body.",
      source: "user",
      path: "/skills/pdf/SKILL.md",
      dir: "/skills/pdf",
      requires: ["qpdf", "pdftotext"],
    });
  });
});

describe("SKILL.md rules (Agent Skills)", () => {
  test("malformed frontmatter is an error, never a throw", () => {
    expect(errorOf("---\nname: [unclosed\n---\nbody", folder("x"))).toStartWith(
      "invalid YAML in the frontmatter: ",
    );
    expect(errorOf("---\nname: x\ndescription: a: b\n---\n", folder("x"))).toStartWith("invalid YAML");
    expect(errorOf("---\n- a\n- b\n---\n", folder("x"))).toBe(
      "the frontmatter must be a YAML mapping (`name: …`, `description: …`)",
    );
    expect(errorOf("---\nname: x\ndescription: y\n", folder("x"))).toBe(
      "the frontmatter has no closing `---` line",
    );
    expect(errorOf("# Just markdown\n", folder("x"))).toBe(
      "SKILL.md needs YAML frontmatter between `---` lines with `name` and `description`",
    );
    expect(errorOf("---\nname: 12\ndescription: y\n---\n", folder("x"))).toBe("name: expected a string");
    expect(errorOf("---\nname: x\ndescription: y\nrequires: {a: 1}\n---\n", folder("x"))).toBe(
      "requires: expected a list of program names",
    );
    expect(errorOf("---\nname: x\ndescription: y\nrequires: [a, 2]\n---\n", folder("x"))).toBe(
      "requires: expected a list of program names",
    );
    expect(errorOf("---\nname:\ndescription: y\n---\n", folder("x"))).toBe("name: expected a string");
    expect(errorOf("---\nname: x\ndescription: [y]\n---\n", folder("x"))).toBe(
      "description: expected a string",
    );
    // The first wrong field in the order name, description, requires is the one named.
    expect(errorOf("---\nrequires: 3\ndescription: 2\n---\n", folder("x"))).toBe(
      "description: expected a string",
    );
  });

  test("name: required, valid, and equal to the folder's name", () => {
    expect(errorOf("---\ndescription: y\n---\n", folder("x"))).toBe(
      'name: missing (it must be the folder\'s name, "x")',
    );
    expect(errorOf("---\nname: other\ndescription: y\n---\nbody", folder("mine"))).toBe(
      'name "other" does not match its folder "mine"',
    );
    expect(errorOf("---\nname: PDF-Tools\ndescription: y\n---\n", folder("PDF-Tools"))).toContain(
      'name "PDF-Tools" may hold only lowercase letters, digits and single hyphens',
    );
  });

  test("name rules: 1–64 lowercase letters, digits and single inner hyphens", () => {
    for (const good of ["a", "pdf-processing", "x2", "a-b-c", "a".repeat(64)])
      expect(nameProblem(good)).toBeUndefined();
    expect(nameProblem("")).toBe("is empty");
    expect(nameProblem("a".repeat(65))).toBe("is longer than 64 characters");
    for (const bad of ["-pdf", "pdf-", "pdf--x", "Pdf", "pdf_x", "pdf x", "pdf.x", "é"])
      expect(nameProblem(bad)).toBeDefined();
  });

  test("description: required and non-empty; over 1024 characters it is cut, with a warning", () => {
    expect(errorOf("---\nname: x\n---\n", folder("x"))).toBe("description: missing");
    expect(errorOf('---\nname: x\ndescription: "  "\n---\n', folder("x"))).toBe("description: is empty");
    const long = parseSkill(`---\nname: x\ndescription: ${"d".repeat(1100)}\n---\nbody`, folder("x"));
    expect(long.skill?.description).toBe(`${"d".repeat(1023)}…`);
    expect(long.diagnostics).toEqual([
      {
        path: "/skills/x/SKILL.md",
        severity: "warning",
        message: "description: 1100 characters, over the limit of 1024; cut to 1024",
      },
    ]);
  });

  test("an empty body loads, with a warning", () => {
    const parsed = parseSkill("---\nname: x\ndescription: y\n---\n", folder("x"));
    expect(parsed.skill?.body).toBe("");
    expect(parsed.diagnostics.map((d) => [d.severity, d.message])).toEqual([
      ["warning", "no instructions after the frontmatter"],
    ]);
  });
});

describe("short .md skills", () => {
  test("the file name must be a valid skill name", () => {
    expect(errorOf("# hi", file("My Notes"))).toStartWith(
      'the file name "My Notes" is not a skill name: it may hold',
    );
  });

  test("frontmatter gives the description; a different name in it is a warning", () => {
    const parsed = parseSkill(
      "---\nname: other\ndescription: From frontmatter\n---\n# Heading\n",
      file("mine"),
    );
    expect(parsed.skill).toMatchObject({ name: "mine", description: "From frontmatter", body: "# Heading" });
    expect(parsed.diagnostics.map((d) => d.message)).toEqual([
      'name "other" in the frontmatter differs from the file name; the skill is "mine"',
    ]);
  });

  test("an empty file is an error", () => {
    expect(errorOf("\n \n", file("empty"))).toBe("the file is empty");
    expect(errorOf("---\nrequires: [git]\n---\n", file("empty"))).toBe("the file is empty");
  });
});
