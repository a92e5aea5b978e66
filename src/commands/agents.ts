import { defineCommand } from "citty";
import type { Diagnostic } from "../context/diagnostics.ts";
import type { CustomAgent } from "../subagents/custom-agents.ts";
import type { SubagentType } from "../tools/task.ts";
import {
  clipLine,
  fileListingOutput,
  guardSubcommand,
  parseStrict,
  projectFileArgs,
  reportDiagnostics,
  tildePath,
} from "./_shared.ts";

/**
 * `ion agents [list] [--json]`, `ion agents show NAME`: the custom subagent types the `task` tool can
 * start (subagents/custom-agents.ts), with the files that could not be used. The top level holds flag
 * definitions only; the loader and table load inside `run()`.
 */

const { listArgs, showArgs } = projectFileArgs("agents", "agent");

/** One element of `ion agents --json`. */
export interface AgentListItem {
  name: string;
  description: string;
  source: CustomAgent["source"];
  path: string;
  /** ion tool names; null: the parent's tools. */
  tools: string[] | null;
  disallowedTools: string[];
  /** As written; null: the parent's model. */
  model: string | null;
}

async function load(cwd: string | undefined) {
  const { loadCustomAgents } = await import("../subagents/custom-agents.ts");
  const { SUBAGENT_TYPES } = await import("../tools/task.ts");
  const loaded = loadCustomAgents({ cwd: cwd ?? process.cwd() });
  const builtin: readonly string[] = SUBAGENT_TYPES;
  // A built-in type of the same name is the one `task` starts: say so rather than list a dead file.
  const shadowed = loaded.items.filter((agent) => builtin.includes(agent.name));
  const diagnostics: Diagnostic[] = [
    ...loaded.diagnostics,
    ...shadowed.map((agent) => ({
      path: agent.path,
      severity: "error" as const,
      message: `${agent.name} is a built-in type; rename the agent to use it`,
    })),
  ];
  const items = loaded.items.filter((agent) => !builtin.includes(agent.name));
  return { items, diagnostics, builtin };
}

const toolsText = (agent: CustomAgent) => {
  const allowed = agent.tools === undefined ? "all" : agent.tools.join(", ") || "none";
  return agent.disallowedTools.length === 0
    ? allowed
    : `${allowed} except ${agent.disallowedTools.join(", ")}`;
};
const modelText = (agent: CustomAgent) => agent.model ?? "inherit";

/** A built-in type as `show` prints it: what it is for, its tools and its model. */
async function builtinLines(name: SubagentType): Promise<string[]> {
  const { BUILTIN_TYPES, READ_TOOLS } = await import("../subagents/builtin-types.ts");
  const { role, tools } = BUILTIN_TYPES[name];
  return [
    `name: ${name}`,
    `description: ${role}`,
    "source: built-in",
    `tools: ${tools === "all" ? "all (the parent's, without task)" : [...READ_TOOLS, ...tools].join(", ")}`,
    `model: ${name === "explorer" ? "subagents.fast_model when set, else inherit" : "inherit"}`,
  ];
}

const list = defineCommand({
  meta: { name: "list", description: "Custom agents with their source, tools and model (the default)" },
  args: listArgs,
  async run({ rawArgs }) {
    const args = parseStrict("agents list", rawArgs, listArgs, 0);
    const { stdout, stderr, terminal, safe } = await fileListingOutput();
    const { items, diagnostics, builtin } = await load(args.cwd);
    if (args.json === true) {
      const json: AgentListItem[] = items.map((agent) => ({
        name: agent.name,
        description: agent.description,
        source: agent.source,
        path: agent.path,
        tools: agent.tools ?? null,
        disallowedTools: agent.disallowedTools,
        model: agent.model ?? null,
      }));
      stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      const { renderTable } = await import("../ui/table.ts");
      if (items.length > 0) {
        const columns = ["NAME", "SOURCE", "TOOLS", "MODEL", "DESCRIPTION"].map((header) => ({ header }));
        const rows = items.map((agent) => [
          agent.name,
          tildePath(agent.path),
          clipLine(safe(toolsText(agent)), 60),
          safe(modelText(agent)),
          clipLine(safe(agent.description), 60),
        ]);
        stdout.write(renderTable(columns, rows, { width: terminal().width }));
      } else
        stdout.write(
          "No custom agents (.ion/agents, .claude/agents, or agents/ in ion's config directory).\n",
        );
      stdout.write(`Built-in types: ${builtin.join(", ")}\n`);
    }
    reportDiagnostics(stderr, diagnostics, safe);
  },
});

const show = defineCommand({
  meta: {
    name: "show",
    description: "Print a custom agent's settings and instructions, or what a built-in type is",
  },
  args: showArgs,
  async run({ rawArgs }) {
    const args = parseStrict("agents show", rawArgs, showArgs, 1);
    const { stdout, stderr, safe } = await fileListingOutput();
    const { IonError } = await import("../errors.ts");
    if (typeof args.name !== "string" || args.name === "")
      throw new IonError("usage", '"ion agents show" needs an agent name', {
        hint: "`ion agents` lists them",
      });
    const { items, diagnostics, builtin } = await load(args.cwd);
    const agent = items.find((item) => item.name === args.name);
    // A file that failed to load is the likeliest reason a name is missing: show its problems.
    reportDiagnostics(stderr, diagnostics, safe);
    if (builtin.includes(args.name)) {
      stdout.write(`${(await builtinLines(args.name as SubagentType)).join("\n")}\n`);
      return;
    }
    if (!agent)
      throw new IonError("usage", `no custom agent named ${safe(args.name)}`, {
        hint: "`ion agents` lists them",
      });
    const lines = [
      `name: ${agent.name}`,
      `description: ${agent.description}`,
      `source: ${agent.source} (${tildePath(agent.path)})`,
      `tools: ${toolsText(agent)}`,
      `model: ${modelText(agent)}`,
      "",
      agent.prompt,
    ];
    stdout.write(`${safe(lines.join("\n"))}\n`);
  },
});

const SUBCOMMANDS = { list, show };

export default defineCommand({
  meta: { name: "agents", description: "List the custom subagent types or show one" },
  // Declared here too so that `ion agents --json` reaches the default subcommand.
  args: listArgs,
  subCommands: SUBCOMMANDS,
  default: "list",
  setup({ rawArgs }) {
    // The value of `--cwd DIR` is not a subcommand's name (citty skips it the same way).
    guardSubcommand(
      "agents",
      rawArgs.filter((_, i) => rawArgs[i - 1] !== "--cwd"),
      SUBCOMMANDS,
    );
  },
});
