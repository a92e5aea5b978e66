import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { writeWithDirs } from "../support/files.ts";

/** A project agent in Claude Code's format, a user agent, and a broken file. */
function sandbox(): Sandbox {
  const box = new Sandbox();
  writeWithDirs(
    join(box.workspace, ".claude/agents/code-reviewer.md"),
    "---\nname: code-reviewer\ndescription: Reviews code.\ntools: Read, Grep, Bash\nmodel: sonnet\ncolor: red\n---\n\nYou review code.\n",
  );
  writeWithDirs(
    join(box.configDir, "agents/scribe.md"),
    "---\nname: scribe\ndescription: Writes docs.\ndisallowedTools: [Bash]\n---\nWrite clearly.\n",
  );
  writeWithDirs(join(box.configDir, "agents/broken.md"), "---\nname: broken\ntools: 7\n---\n");
  return box;
}

describe("ion agents", () => {
  test("list: name, source, tools, model; a broken file is a diagnostic on stderr", async () => {
    using box = sandbox();
    const { code, stdout, stderr } = await box.run(["agents"]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+SOURCE\s+TOOLS\s+MODEL\s+DESCRIPTION$/);
    const row = (name: string) => lines.find((line) => line.startsWith(`${name} `)) ?? "";
    expect(row("code-reviewer")).toMatch(
      /\.claude\/agents\/code-reviewer\.md\s+read_file, grep, bash\s+sonnet\s+Reviews code\.$/,
    );
    expect(row("scribe")).toMatch(/all except bash\s+inherit\s+Writes docs\.$/);
    expect(lines.at(-1)).toMatch(/^Built-in types: explorer, /);
    expect(stderr).toBe(
      `ion: warning: skipped ${join(box.configDir, "agents/broken.md")}: tools: expected a comma-separated string or a list of tool names\n`,
    );
  });

  test("--json and show NAME; show of a built-in type says what it is; show of an unknown name fails", async () => {
    using box = sandbox();
    const listed = await box.run(["agents", "--json"]);
    expect(listed.code).toBe(0);
    const items = JSON.parse(listed.stdout) as { name: string; source: string; tools: string[] | null }[];
    expect(items.map((a) => [a.name, a.source, a.tools])).toEqual([
      ["code-reviewer", "project", ["read_file", "grep", "bash"]],
      ["scribe", "user", null],
    ]);
    const shown = await box.run(["agents", "show", "code-reviewer"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("tools: read_file, grep, bash\nmodel: sonnet\n\nYou review code.\n");
    const builtin = await box.run(["agents", "show", "explorer"]);
    expect(builtin.code).toBe(0);
    expect(builtin.stdout).toBe(
      [
        "name: explorer",
        "description: find and read what the task asks about; you cannot change files",
        "source: built-in",
        "tools: read_file, list_files, glob, grep, symbols",
        "model: subagents.fast_model when set, else inherit",
        "",
      ].join("\n"),
    );
    const reviewer = await box.run(["agents", "show", "reviewer"]);
    expect(reviewer.stdout).toContain(
      "tools: read_file, list_files, glob, grep, symbols, bash\nmodel: inherit\n",
    );
    const missing = await box.run(["agents", "show", "nobody"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("no custom agent named nobody");
    // The command is quoted as every other usage error quotes it.
    const unnamed = await box.run(["agents", "show"]);
    expect(unnamed.code).toBe(64);
    expect(unnamed.stderr).toStartWith('ion: "ion agents show" needs an agent name\n');
  });
});
