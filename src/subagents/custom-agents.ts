import { readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { configDir, type Env } from "../config/paths.ts";
import type { Diagnostic, Loaded } from "../context/diagnostics.ts";
import { ioReason, listDir } from "../context/diagnostics.ts";
import { parseYamlMapping, splitFrontmatter } from "../skills/frontmatter.ts";
import { ionToolName as ionName } from "../tools/claude-names.ts";
import { findGitRoot } from "../util/git.ts";
import { readProjectFile } from "../util/project-file.ts";

/**
 * Custom subagent types: markdown files with Claude Code's frontmatter (`name`, `description`,
 * `tools`, `disallowedTools`, `model`) whose body is the subagent's instructions. Directories,
 * highest precedence first (the first agent of a name wins):
 *   ./.ion/agents   ./.claude/agents     project (read under the project-file rules)
 *   <config>/agents                      user
 * `tools` is a comma-separated string or a YAML list of ion's or Claude Code's tool names (`Bash`,
 * `Read`, … as hooks map them); other keys are ignored; a bad file is a diagnostic, never a failure.
 *
 *   loadCustomAgents({cwd, env}) → Loaded<CustomAgent>      winners sorted by name
 *   parseAgentFile(text, origin) → CustomAgent | { error }
 *   ionToolName(name) → string                               "Bash" → "bash", "Bash(git:*)" → "bash"
 */

export type AgentSource = "project" | "user";

export interface CustomAgent {
  name: string;
  description: string;
  /** ion tool names the agent may use; undefined = the parent's tools (as `general`). */
  tools: string[] | undefined;
  disallowedTools: string[];
  /** As written: undefined, `inherit`, a Claude alias (`sonnet`, `opus`, `haiku`) or `<provider>/<model>`. */
  model: string | undefined;
  /** The markdown body: the subagent's instructions. */
  prompt: string;
  source: AgentSource;
  path: string;
}

export interface AgentDir {
  path: string;
  source: AgentSource;
  projectRoot?: string;
}

export interface AgentOptions {
  cwd: string;
  env?: Env;
}

export function ionToolName(name: string): string {
  // Claude Code allows a permission pattern after the name (`Bash(git:*)`); the tool is what counts.
  const bare = name.replace(/\(.*\)$/, "").trim();
  return ionName(bare);
}

function agentDirs({ cwd, env = process.env }: AgentOptions): AgentDir[] {
  const dir = resolve(cwd);
  const projectRoot = findGitRoot(dir)?.root ?? dir;
  return [
    { path: join(dir, ".ion", "agents"), source: "project", projectRoot },
    { path: join(dir, ".claude", "agents"), source: "project", projectRoot },
    { path: join(configDir(env), "agents"), source: "user" },
  ];
}

export function loadCustomAgents(options: AgentOptions): Loaded<CustomAgent> {
  const diagnostics: Diagnostic[] = [];
  const winners = new Map<string, CustomAgent>();
  for (const dir of agentDirs(options)) {
    for (const agent of loadDir(dir, diagnostics)) {
      if (!winners.has(agent.name)) winners.set(agent.name, agent);
    }
  }
  const items = [...winners.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { items, diagnostics };
}

function loadDir(dir: AgentDir, diagnostics: Diagnostic[]): CustomAgent[] {
  const names = listDir(dir.path, diagnostics)
    .map((entry) => entry.name)
    .filter((name) => name.endsWith(".md") && !name.startsWith("."));
  const agents: CustomAgent[] = [];
  for (const name of names) {
    const path = join(dir.path, name);
    const text = readText(path, dir, diagnostics);
    if (text === undefined) continue;
    const parsed = parseAgentFile(text, { path, source: dir.source });
    if ("error" in parsed) diagnostics.push({ path, severity: "error", message: parsed.error });
    else agents.push(parsed);
  }
  return agents;
}

function readText(path: string, dir: AgentDir, diagnostics: Diagnostic[]): string | undefined {
  if (dir.projectRoot !== undefined) {
    const file = readProjectFile(path, dir.projectRoot);
    if (file.kind === "missing") return undefined;
    if (file.kind === "refused") {
      diagnostics.push({ path, severity: "error", message: `not read: ${file.reason}`, refused: true });
      return undefined;
    }
    return new TextDecoder().decode(file.bytes);
  }
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    diagnostics.push({ path, severity: "error", message: `cannot read it (${ioReason(err)})` });
    return undefined;
  }
}

/** A list of tool names: a YAML list, or one string of names separated by commas (or spaces). */
function toolList(value: unknown, field: string): string[] | { error: string } {
  const names = typeof value === "string" ? value.split(/[,\s]+/) : value;
  if (!Array.isArray(names) || !names.every((n) => typeof n === "string"))
    return { error: `${field}: expected a comma-separated string or a list of tool names` };
  return names
    .map((n) => n.trim())
    .filter((n) => n !== "")
    .map(ionToolName);
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export function parseAgentFile(
  text: string,
  origin: { path: string; source: AgentSource },
): CustomAgent | { error: string } {
  const split = splitFrontmatter(text);
  if ("error" in split) return split;
  if (!("yaml" in split)) return { error: "no frontmatter (`---` with name and description)" };
  const mapping = parseYamlMapping(split.yaml);
  if ("error" in mapping) return mapping;
  const fields = mapping.data;
  const name = fields.name ?? basename(origin.path, ".md");
  if (typeof name !== "string" || !NAME.test(name))
    return { error: "name: expected a word of letters, digits, '-', '_' or '.'" };
  const description = fields.description ?? "";
  if (typeof description !== "string") return { error: "description: expected a string" };
  const model = fields.model;
  if (model !== undefined && model !== null && typeof model !== "string")
    return { error: "model: expected inherit, sonnet, opus, haiku or <provider>/<model>" };
  let tools: string[] | undefined;
  if (fields.tools !== undefined && fields.tools !== null) {
    const list = toolList(fields.tools, "tools");
    if ("error" in list) return list;
    tools = list;
  }
  let disallowedTools: string[] = [];
  if (fields.disallowedTools !== undefined && fields.disallowedTools !== null) {
    const list = toolList(fields.disallowedTools, "disallowedTools");
    if ("error" in list) return list;
    disallowedTools = list;
  }
  return {
    name,
    description: description.trim(),
    tools,
    disallowedTools,
    model: typeof model === "string" && model.trim() !== "" ? model.trim() : undefined,
    prompt: split.body.trim(),
    source: origin.source,
    path: origin.path,
  };
}
