import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { writeWithDirs } from "../support/files.ts";

/** A sandbox with a user skill, a project skill overriding a built-in, an unavailable one and a broken one. */
function sandbox(): Sandbox {
  const box = new Sandbox();
  writeWithDirs(
    join(box.configDir, "skills/release-notes/SKILL.md"),
    "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\n\n# Release notes\n\nGroup changes by type.\n",
  );
  writeWithDirs(
    join(box.workspace, ".ion/skills/developer.md"),
    "# Our way of developing\n\nRun `make check` first.\n",
  );
  writeWithDirs(
    join(box.home, ".agents/skills/deploy/SKILL.md"),
    "---\nname: deploy\ndescription: Deploy to the cluster.\nrequires: [ion-test-no-such-program]\n---\nkubectl apply\n",
  );
  writeWithDirs(join(box.configDir, "skills/broken/SKILL.md"), "---\nname: other\ndescription: x\n---\n");
  return box;
}

describe("ion skills", () => {
  test("list: a table of name, description, source, availability; problems after it on stderr", async () => {
    using box = sandbox();
    const { code, stdout, stderr } = await box.run(["skills"]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+DESCRIPTION\s+SOURCE\s+AVAILABLE$/);
    const row = (name: string) => lines.find((line) => line.startsWith(`${name} `)) ?? "";
    expect(lines.slice(1).map((line) => line.split(" ")[0])).toEqual([
      "deploy",
      "designer",
      "developer",
      "refactor",
      "release-notes",
    ]);
    expect(row("developer")).toContain("Our way of developing");
    expect(row("developer")).toContain(".ion/skills/developer.md");
    expect(row("designer")).toMatch(/built-in\s+yes$/);
    expect(row("release-notes")).toContain(join(box.configDir, "skills/release-notes/SKILL.md"));
    expect(row("deploy")).toMatch(
      /~\/\.agents\/skills\/deploy\/SKILL\.md\s+no: needs ion-test-no-such-program \(not on PATH\)$/,
    );
    expect(stderr).toBe(
      `ion: warning: skipped ${join(box.configDir, "skills/broken/SKILL.md")}: name "other" does not match its folder "broken"\n`,
    );
  });

  test("--json: an array of objects", async () => {
    using box = sandbox();
    const { code, stdout } = await box.run(["skills", "--json"]);
    expect(code).toBe(0);
    const items = JSON.parse(stdout) as Record<string, unknown>[];
    expect(items.map((item) => item.name)).toEqual([
      "deploy",
      "designer",
      "developer",
      "refactor",
      "release-notes",
    ]);
    expect(items.find((item) => item.name === "release-notes")).toEqual({
      name: "release-notes",
      description: "Write release notes from the git log.",
      source: "user",
      path: join(box.configDir, "skills/release-notes/SKILL.md"),
      requires: [],
      available: true,
      reason: null,
    });
    expect(items.find((item) => item.name === "deploy")).toMatchObject({
      available: false,
      reason: "needs ion-test-no-such-program (not on PATH)",
    });
    expect(items.find((item) => item.name === "refactor")).toMatchObject({
      source: "builtin",
      path: "builtin:refactor",
    });
    expect((await box.run(["skills", "list", "--json"])).stdout).toBe(stdout);
  });

  test("show NAME prints the instructions", async () => {
    using box = sandbox();
    const own = await box.run(["skills", "show", "release-notes"]);
    expect(own).toEqual({ code: 0, stdout: "# Release notes\n\nGroup changes by type.\n", stderr: "" });
    const builtin = await box.run(["skills", "show", "refactor"]);
    expect(builtin.code).toBe(0);
    expect(builtin.stdout).toStartWith("# Refactor\n");
  });

  test("path: the directories searched, highest precedence first", async () => {
    using box = sandbox();
    const { code, stdout } = await box.run(["skills", "path"]);
    expect(code).toBe(0);
    expect(stdout.trimEnd().split("\n")).toEqual([
      join(box.workspace, ".ion/skills"),
      join(box.workspace, ".agents/skills"),
      join(box.configDir, "skills"),
      join(box.home, ".agents/skills"),
    ]);
  });

  test("--cwd looks for project skills in another directory", async () => {
    using box = sandbox();
    const { stdout } = await box.run(["skills", "--cwd", box.root, "--json"]);
    const developer = (JSON.parse(stdout) as { name: string; source: string }[]).find(
      (s) => s.name === "developer",
    );
    expect(developer?.source).toBe("builtin");
  });

  test("an unknown skill or subcommand is a usage error (64), with a suggestion", async () => {
    using box = sandbox();
    const unknown = await box.run(["skills", "show", "relase-notes"]);
    expect(unknown.code).toBe(64);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toBe(
      'ion: unknown skill "relase-notes"\n  hint: did you mean release-notes? `ion skills` lists them\n',
    );
    const missing = await box.run(["skills", "show"]);
    expect(missing.code).toBe(64);
    const sub = await box.run(["skills", "remove"]);
    expect(sub.code).toBe(64);
    expect(sub.stderr).toStartWith('ion: unknown subcommand "remove" for "ion skills"');
    const flag = await box.run(["skills", "--yaml"]);
    expect(flag.code).toBe(64);
  });

  test("--help describes the subcommands", async () => {
    using box = new Sandbox();
    const { code, stdout } = await box.run(["skills", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("list");
    expect(stdout).toContain("show");
    expect(stdout).toContain("path");
  });
});
