import { expect, test } from "bun:test";
import { allowedByRules, deniedByRules, parseToolRules, splitToolList } from "../../src/agent/tool-rules.ts";

test("lists split on commas and spaces, never inside a pattern", () => {
  expect(splitToolList(["Bash(git log:*) Read,Edit", " Write "])).toEqual([
    "Bash(git log:*)",
    "Read",
    "Edit",
    "Write",
  ]);
});

test("a prefix rule matches whole words of a simple command only", () => {
  const rules = parseToolRules(["Bash(git log:*)", "Bash(npm test)"], []);
  const bash = (command: string) => allowedByRules(rules, { name: "bash", input: { command } });
  expect(bash("git log")).toBe(true);
  expect(bash("git log --oneline -3")).toBe(true);
  expect(bash("git logx")).toBe(false);
  expect(bash("git log && rm -rf x")).toBe(false);
  expect(bash("git log $(rm x)")).toBe(false);
  expect(bash("git log > out")).toBe(false);
  expect(bash("npm test")).toBe(true);
  expect(bash("npm test --watch")).toBe(false);
  expect(allowedByRules(rules, { name: "write_file", input: {} })).toBe(false);
});

test("a disallowed tool wins over an allowed one; Bash(*) is the whole tool", () => {
  const rules = parseToolRules(["Bash(*)", "Write"], ["write_file"]);
  expect(rules.deny).toEqual(new Set(["write_file"]));
  expect(allowedByRules(rules, { name: "bash", input: { command: "anything; at all" } })).toBe(true);
  expect(allowedByRules(rules, { name: "write_file", input: {} })).toBe(false);
});

test("a Bash pattern with shell syntax is refused: it could never match", () => {
  for (const entry of ["Bash(a; b)", "Bash(git log | head:*)", "Bash(echo $HOME)"])
    expect(() => parseToolRules([entry], [])).toThrow(
      `--allowedTools: "${entry}": a pattern with shell syntax`,
    );
  expect(parseToolRules(["Bash(git log:*)"], []).bash).toEqual([{ command: "git log", prefix: true }]);
});

test("MCP tools by name, or a whole server by its name; every built-in by ion's or Claude Code's name", () => {
  const rules = parseToolRules(["mcp__files__read_text_file", "WebFetch", "task"], ["mcp__git", "plan"]);
  expect(rules.unknown).toEqual([]);
  expect(deniedByRules(rules, "mcp__git__commit")).toBe(true);
  expect(deniedByRules(rules, "mcp__github__commit")).toBe(false);
  expect(deniedByRules(rules, "plan")).toBe(true);
  expect(deniedByRules(rules, "mcp__files__read_text_file")).toBe(false);
  const allowed = (name: string) => allowedByRules(rules, { name, input: {} });
  expect(allowed("mcp__files__read_text_file")).toBe(true);
  expect(allowed("mcp__files__write_file")).toBe(false);
  expect(allowed("web_fetch")).toBe(true);
  expect(allowed("task")).toBe(true);
  expect(allowed("mcp__git__commit")).toBe(false);
  expect(parseToolRules(["Bogus", "mcp__"], []).unknown).toEqual(["Bogus", "mcp__"]);
});
