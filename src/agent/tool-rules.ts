import { IonError } from "../errors.ts";
import { ionToolName, MCP_NAME, toolNameMatches } from "../tools/claude-names.ts";
import { knownToolNames } from "../tools/index.ts";

/**
 * `--allowedTools` / `--disallowedTools` for one run, in Claude Code's terms: allowed tools run without
 * asking (mode ask), disallowed ones are not offered to the model at all. Tool names are ion's or Claude
 * Code's (`Bash`, `Read`, …), as hook matchers take them, or MCP tools' (`mcp__server__tool`, or
 * `mcp__server` for all of a server's tools). Only Bash takes a pattern, and only in the
 * allow list: `Bash(git log:*)` lets through commands starting with `git log`, `Bash(npm test)` that
 * exact command — and only a simple command: one with `;`, `&`, `|`, `$`, backticks, redirections or
 * newlines is asked about as usual, since a prefix says nothing about what follows an operator.
 */

export interface ToolRules {
  /** Whole tools that run without asking. */
  allow: Set<string>;
  /** Bash commands that run without asking: an exact command, or a prefix (a whole word or more). */
  bash: Array<{ command: string; prefix: boolean }>;
  /** Tools not offered to the model. */
  deny: Set<string>;
  /** Names ion has no tool for (ignored, with a notice). */
  unknown: string[];
}

/** Splits flag values on commas and whitespace, except inside a pattern's parentheses. */
export function splitToolList(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = "";
    for (const ch of value) {
      if (ch === "(") depth++;
      else if (ch === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === "," || /\s/.test(ch))) {
        if (current !== "") out.push(current);
        current = "";
      } else current += ch;
    }
    if (current !== "") out.push(current);
  }
  return out;
}

/** ion's name of a tool a rule names (ion's, Claude Code's, an MCP tool or server), or undefined. */
function ionName(name: string): string | undefined {
  const ion = ionToolName(name);
  if (knownToolNames().includes(ion) || MCP_NAME.test(ion)) return ion;
  return undefined;
}

/** Whether a set of rule names covers this tool (an MCP server's name covers all its tools). */
function covers(names: ReadonlySet<string>, tool: string): boolean {
  for (const name of names) if (toolNameMatches(name, tool)) return true;
  return false;
}

/** Whether `--disallowedTools` keeps this tool from the model. */
export function deniedByRules(rules: ToolRules, tool: string): boolean {
  return covers(rules.deny, tool);
}

export function parseToolRules(allowed: readonly string[], disallowed: readonly string[]): ToolRules {
  const rules: ToolRules = { allow: new Set(), bash: [], deny: new Set(), unknown: [] };
  for (const entry of splitToolList(allowed)) addRule(rules, entry, "allow");
  for (const entry of splitToolList(disallowed)) addRule(rules, entry, "deny");
  return rules;
}

function addRule(rules: ToolRules, entry: string, kind: "allow" | "deny"): void {
  const flag = kind === "allow" ? "--allowedTools" : "--disallowedTools";
  const match = /^([^()]+)\((.*)\)$/s.exec(entry);
  const tool = ionName(match ? match[1]! : entry);
  if (tool === undefined) {
    if (/[()]/.test(entry) && !match)
      throw new IonError("usage", `${flag}: "${entry}" is not a tool name or pattern`);
    rules.unknown.push(entry);
    return;
  }
  const pattern = match?.[2]?.trim();
  if (pattern === undefined || pattern === "*" || pattern === ":*") {
    rules[kind].add(tool);
    return;
  }
  if (kind === "deny")
    throw new IonError("usage", `${flag}: "${entry}": a pattern cannot be disallowed, only a whole tool`, {
      hint: `a compound command could get around a pattern; disallow the tool (${match![1]}), or leave it asking`,
    });
  if (tool !== "bash" || pattern === "")
    throw new IonError("usage", `${flag}: "${entry}": only Bash takes a pattern, e.g. Bash(git log:*)`, {
      hint: `allow the whole tool instead: ${match![1]}`,
    });
  const prefix = pattern.endsWith(":*");
  const command = prefix ? pattern.slice(0, -2).trim() : pattern;
  // Only simple commands run without asking, so a rule with shell syntax could never match.
  if (NOT_SIMPLE.test(command))
    throw new IonError(
      "usage",
      `${flag}: "${entry}": a pattern with shell syntax (; & | $ < > …) never matches`,
      {
        hint: "only a simple command runs without asking; allow its start, e.g. Bash(git log:*)",
      },
    );
  rules.bash.push({ command, prefix });
}

/** Shell syntax after which a command prefix no longer tells what runs. */
const NOT_SIMPLE = /[;&|`$<>(){}\n\r\\]/;

/** Whether the rules let this call run without asking. */
export function allowedByRules(
  rules: ToolRules,
  call: { name: string; input: Record<string, unknown> },
): boolean {
  if (covers(rules.deny, call.name)) return false;
  if (covers(rules.allow, call.name)) return true;
  if (call.name !== "bash" || rules.bash.length === 0) return false;
  const command = typeof call.input.command === "string" ? call.input.command.trim() : "";
  if (command === "" || NOT_SIMPLE.test(command)) return false;
  return rules.bash.some((rule) =>
    rule.prefix
      ? command === rule.command || command.startsWith(`${rule.command} `)
      : command === rule.command,
  );
}
