/**
 * The README's "Security model" table says what a project's `.ion/config.json` may set. It must say
 * what the loader does: each key it puts in a column has that column's rule, and the first column
 * names the same keys as the warning a user gets when a project sets something else.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ignoredKeyWarnings, type ProjectKeyRule, projectKeyRule } from "../../src/config/project-rules.ts";

const README = await Bun.file(join(import.meta.dir, "../../README.md")).text();

/** `providers.<id>.{api_key,api_base}` → `providers.<id>.api_key`, `providers.<id>.api_base`. */
function expand(key: string): string[] {
  const braces = /^(.*)\{([^}]+)\}$/.exec(key);
  return braces ? braces[2]!.split(",").map((part) => `${braces[1]}${part.trim()}`) : [key];
}

/** The table's three cells, each as the keys it names in backticks. */
function tableColumns(): string[][] {
  const section = README.slice(README.indexOf("\n## Security model\n"));
  const row = /^\| `provider`.*\|$/m.exec(section)?.[0];
  if (row === undefined) throw new Error('README: no "a project file may set" row under "Security model"');
  const cells = row.slice(1, -1).split(" | ");
  return cells.map((cell) => [...cell.matchAll(/`([^`]+)`/g)].flatMap((match) => expand(match[1]!)));
}

/** The keys the "a project file can set only …" warning names. */
function warningKeys(): string[] {
  const [line] = ignoredKeyWarnings("project.json", "user.json", [{ path: "workspace", rule: "user" }]);
  const list = /can set only (.+); set the rest/.exec(line ?? "")?.[1];
  if (list === undefined) throw new Error(`unexpected warning: ${line}`);
  return list.split(/, | and /).flatMap(expand);
}

const ruleOf = (key: string): ProjectKeyRule =>
  projectKeyRule(key.replace("<id>", "some-provider").split("."));

describe('README "Security model"', () => {
  test("each key in the table has the rule of its column", () => {
    const [project, trusted, user] = tableColumns();
    const wrong = (keys: string[] | undefined, rule: ProjectKeyRule) =>
      (keys ?? []).filter((key) => ruleOf(key) !== rule).map((key) => `${key}: ${ruleOf(key)}, not ${rule}`);
    expect(project?.length).toBeGreaterThan(5);
    expect(trusted).toContain("providers.<id>.api_base");
    expect(user).toEqual(["workspace", "sandbox", "tools.bash", "history.retention_days"]);
    expect([...wrong(project, "project"), ...wrong(trusted, "trusted"), ...wrong(user, "user")]).toEqual([]);
  });

  test("the keys a project may set are the ones the warning names, and the loader lets through", () => {
    const [project] = tableColumns();
    expect(warningKeys().filter((key) => ruleOf(key) !== "project")).toEqual([]);
    expect([...(project ?? [])].sort()).toEqual(warningKeys().sort());
  });
});
