import { truncate } from "../ui/table.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import type { ChatContext } from "./context.ts";
import type { SlashCommand } from "./registry.ts";

/**
 * Slash commands about what the model sees: /context, /skills, /skill. File names and skills come
 * from repositories, so they are made safe for the terminal before they are printed.
 */

type Command = SlashCommand<ChatContext>;

/** The first line of text from a repository, safe for the terminal. */
const firstLine = (text: string) => safeForTerminal(text).split("\n")[0] ?? "";

const pct = (share: number | null) => (share === null ? "" : ` ${(share * 100).toFixed(1).padStart(5)}%`);

export const contextCommand: Command = {
  name: "context",
  summary: "what fills the context window, part by part",
  async run(_args, context) {
    const { session, style } = context;
    const breakdown = await session.contextBreakdown();
    const width = Math.min(60, Math.max(16, ...breakdown.rows.map((r) => r.label.length)));
    for (const row of breakdown.rows) {
      const safe = safeForTerminal(row.label).replaceAll("\n", " ");
      const label = safe.length > width ? `…${safe.slice(-(width - 1))}` : safe;
      context.print(`${label.padEnd(width)}  ${String(row.tokens).padStart(8)}${pct(row.share)}`);
    }
    const window = breakdown.contextWindow;
    context.print(
      `${"total (estimate)".padEnd(width)}  ${String(breakdown.total).padStart(8)}${pct(breakdown.share)}  of ${window ?? "an unknown number of"} tokens`,
    );
    const saving = breakdown.mcpSearch;
    if (saving)
      context.print(
        style.dim(
          `mcp_search keeps ${saving.deferredTools} MCP tools out of the window: ~${saving.tokensSaved} tokens saved`,
        ),
      );
    if (session.contextUsed !== undefined)
      context.print(style.dim(`the last request as the provider counted it: ${session.contextUsed} tokens`));
  },
};

export const skillsCommand: Command = {
  name: "skills",
  summary: "the skills the model can use (and why some cannot)",
  run(_args, context) {
    const { session, style } = context;
    if (session.skills.length === 0) {
      context.print("no skills found (`ion skills path` shows where ion looks)");
      return;
    }
    const width = Math.max(...session.skills.map((s) => s.name.length));
    // One row each on a terminal: the description is cut to fit (`ion skills show NAME` has it all).
    const columns = context.interactive ? process.stdout.columns : undefined;
    const fit = (text: string) => (columns ? truncate(text, columns - 1) : text);
    for (const skill of session.skills) {
      const active = session.activeSkill?.name === skill.name ? " (active)" : "";
      const why = skill.available ? "" : firstLine(` — unavailable: ${skill.unavailable}`);
      const line = fit(
        `${firstLine(skill.name).padEnd(width)}  ${active ? `${active.trim()} ` : ""}${firstLine(skill.description)}${why}`,
      );
      context.print(skill.available ? line : style.dim(line));
    }
    context.print(style.dim("/skill NAME puts a skill's instructions into the conversation's system prompt"));
  },
};

export const skillCommand: Command = {
  name: "skill",
  args: "NAME|off",
  summary: "activate a skill for the rest of this chat (off: none)",
  complete: (_partial, context) => [...context.session.availableSkills(), "off"],
  async run(args, context) {
    const { session, style } = context;
    if (!args) {
      context.print(session.activeSkill ? `active skill: ${session.activeSkill.name}` : "no active skill");
      return;
    }
    if (args === "off") {
      session.activeSkill = undefined;
      context.print(style.dim("no active skill"));
      return;
    }
    const skill = await session.activateSkill(args);
    context.print(style.dim(firstLine(`skill ${skill.name} is active: ${skill.description}`)));
  },
};
