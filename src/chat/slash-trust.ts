import { IonError } from "../errors.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import type { ChatContext } from "./context.ts";
import type { SlashCommand } from "./registry.ts";

/**
 * `/trust`: whether this chat's project is trusted and what it would run; `/trust yes` remembers it as
 * trusted, `/trust revoke` forgets it. What a project runs loads when the chat starts, so a change
 * takes effect in the next chat — the line says so rather than loading half of it now.
 */
export const trustCommand: SlashCommand<ChatContext> = {
  name: "trust",
  args: "[yes|revoke]",
  summary: "is this project trusted, and what would it run; yes trusts it, revoke stops",
  complete: () => ["yes", "revoke"],
  // A document piped into the chat must not trust the repository it came from.
  refuseWhenPiped: (args) =>
    args === "yes"
      ? "piped input cannot trust a project (type /trust yes, or run `ion config trust`)"
      : undefined,
  async run(args, context) {
    const { listingLines } = await import("../config/trust.ts");
    const { projectRunnables } = await import("../config/trust-project.ts");
    const { readTrusted, revokeProject, trustFile, trustProject } = await import("../config/trust-store.ts");
    const { session, style } = context;
    const env = process.env;
    const file = trustFile(env);
    const project = projectRunnables(session.cwd, env);
    const root = safeForTerminal(project.root);
    const loaded = session.projectTrust?.trusted === true && project.items.length > 0;
    if (args === "yes") {
      await trustProject(file, project.root, project.hash);
      const next = loaded
        ? "this chat has it loaded already"
        : "it loads when a chat starts: leave and run `ion chat -c` to use it";
      context.print(style.dim(`trusted ${root}; ${next}`));
      return;
    }
    if (args === "revoke") {
      const was = await revokeProject(file, project.root);
      const still = loaded ? "; this chat keeps what it loaded until you leave it" : "";
      context.print(style.dim(`${was ? "no longer trusted" : "was not trusted"}: ${root}${still}`));
      return;
    }
    if (args !== "") throw new IonError("usage", `/trust takes yes or revoke; got "${args}"`);
    for (const line of project.warnings) context.print(style.dim(`warning: ${safeForTerminal(line)}`));
    if (project.items.length === 0) {
      context.print(`${root} has nothing that needs trust (no .mcp.json, hooks, MCP servers or base URLs)`);
      return;
    }
    const stored = (await readTrusted(file))[project.root];
    const trusted = stored?.hash === project.hash;
    const state =
      stored === undefined
        ? "not trusted"
        : trusted
          ? `trusted since ${stored.trusted_at.slice(0, 10)}`
          : "changed since you trusted it: not trusted until you say so again";
    context.print(`${root}: ${state}; this chat ${loaded ? "loaded" : "skipped"}:`);
    for (const line of listingLines(project)) context.print(line);
    // Trusted already, the hint to trust it would read as if it were not.
    const next = !trusted
      ? "/trust yes trusts it (from the next chat on)"
      : loaded
        ? "trusted"
        : "trusted: it loads when a chat starts (leave and run `ion chat -c`)";
    context.print(style.dim(`${next} · /trust revoke stops trusting it`));
  },
};
