/**
 * What a project's `.ion/config.json` may set. A repository is untrusted, so the rule is an allow-list:
 * a project may choose how the model works on it (which model, its preamble, its context window,
 * thinking, compaction), never where the user's key goes, what reaches outside the project, or what
 * runs without asking.
 *
 *   "project"  any project may set it
 *   "trusted"  only a project the user trusts (base URLs, headers and keys would send the user's key
 *              elsewhere; hooks, MCP servers, tool permissions run or allow things)
 *   "user"     only the user's own config (workspace.allow widens what file tools reach;
 *              history.retention_days deletes every project's sessions) — and anything not listed
 *
 *   projectKeyRule(["providers", "openai", "api_base"]) → "trusted"
 *   filterProjectConfig(raw, { trusted }) → { kept, ignored: [{ path, rule }] }
 */

import { isPlainObject } from "../util/plain-object.ts";

export type ProjectKeyRule = "project" | "trusted" | "user";

type RuleTree = { readonly [key: string]: ProjectKeyRule | RuleTree };

/** `*` stands for any key at its level (a provider id). */
const PROVIDER_RULES: RuleTree = {
  type: "project",
  name: "project",
  models: "project",
  context_window: "project",
  // Only what the provider itself returned goes back to it: nothing leaves for elsewhere.
  resend_reasoning_content: "project",
  api_key: "trusted",
  api_base: "trusted",
  headers: "trusted",
};

const PROJECT_RULES: RuleTree = {
  $schema: "project",
  provider: "project",
  model: "project",
  preamble: "project",
  context_window: "project",
  thinking: "project",
  api_key: "trusted",
  api_base: "trusted",
  providers: { "*": PROVIDER_RULES },
  history: { compact_threshold: "project" },
  network: { idle_timeout_s: "project" },
  // Planning first with the designer: one more read-only request, a project may want it.
  plan: { auto: "project" },
  // A bell after a long turn: harmless, a project may choose it.
  chat: { notify_after_s: "project" },
  // How long MCP servers may take: a project may know its servers are slow. It adds no server (those
  // need trust, below), and a hung call still ends with Ctrl+C.
  mcp: { startup_timeout_ms: "project", tool_timeout_ms: "project" },
  // Which model explores and how long a child may work: the project's choice, like `model`.
  subagents: "project",
  // Turning memory off for a project is its choice; what is recalled, and where embeddings go, is the user's.
  memory: { enabled: "project" },
  // The repo map's size only shapes the context a chat starts with; it reads nothing outside the project.
  index: { map_tokens: "project" },
  // Which tools exist is a trusted project's choice; what commands inherit (`tools.bash`) is the user's.
  tools: { disabled: "trusted" },
  permissions: "trusted",
  hooks: "trusted",
  mcpServers: "trusted",
};

/** The rule for a dotted path; a path below a leaf rule takes the leaf's rule. */
export function projectKeyRule(path: readonly string[]): ProjectKeyRule {
  let node: ProjectKeyRule | RuleTree = PROJECT_RULES;
  for (const key of path) {
    if (typeof node === "string") return node;
    const next: ProjectKeyRule | RuleTree | undefined = Object.hasOwn(node, key) ? node[key] : node["*"];
    if (next === undefined) return "user";
    node = next;
  }
  // A section as a whole (`providers`) is settable: its parts are judged one by one.
  return typeof node === "string" ? node : "project";
}

export interface IgnoredKey {
  /** Dotted path, e.g. `providers.openai.api_base`. */
  path: string;
  rule: Exclude<ProjectKeyRule, "project">;
}

/**
 * The part of a project file's JSON that the project may set, and what was left out. `raw` is not
 * changed. With `trusted`, "trusted" keys are kept too.
 */
export function filterProjectConfig(
  raw: unknown,
  options: { trusted: boolean },
): { kept: unknown; ignored: IgnoredKey[] } {
  const ignored: IgnoredKey[] = [];
  if (!isPlainObject(raw)) return { kept: raw, ignored };
  const walk = (node: Record<string, unknown>, rules: RuleTree, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const path = prefix === "" ? key : `${prefix}.${key}`;
      const rule: ProjectKeyRule | RuleTree | undefined = Object.hasOwn(rules, key) ? rules[key] : rules["*"];
      if (rule === undefined || rule === "user") ignored.push({ path, rule: "user" });
      else if (rule === "trusted" && !options.trusted) ignored.push({ path, rule: "trusted" });
      else if (typeof rule === "string") out[key] = value;
      // A section whose value is not an object is kept as it is, for validation to name the error.
      else out[key] = isPlainObject(value) ? walk(value, rule, path) : value;
    }
    return out;
  };
  return { kept: walk(raw, PROJECT_RULES, ""), ignored };
}

/** One warning line per kind of key left out, naming the file and every field. */
export function ignoredKeyWarnings(file: string, userFile: string, ignored: readonly IgnoredKey[]): string[] {
  const lines: string[] = [];
  const names = (rule: IgnoredKey["rule"]) =>
    ignored
      .filter((key) => key.rule === rule)
      .map((key) => `"${key.path}"`)
      .join(", ");
  const needTrust = names("trusted");
  if (needTrust !== "")
    lines.push(
      `ignored ${needTrust} in ${file}: an untrusted project cannot set API keys, base URLs, headers, ` +
        `hooks, MCP servers or tool permissions; set them in ${userFile}`,
    );
  const userOnly = names("user");
  if (userOnly !== "")
    lines.push(
      `ignored ${userOnly} in ${file}: a project file can set only provider, model, preamble, ` +
        `context_window, thinking, providers.<id>.{type,name,models,context_window,resend_reasoning_content}, history.compact_threshold, ` +
        `network.idle_timeout_s, plan.auto, chat.notify_after_s, mcp.{startup_timeout_ms,tool_timeout_ms}, subagents.{fast_model,max_turns}, memory.enabled and index.map_tokens; set the rest in ${userFile}`,
    );
  return lines;
}
