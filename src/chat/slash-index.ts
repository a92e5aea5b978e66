import { messageOf } from "../util/error-text.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import type { ChatContext } from "./context.ts";
import type { SlashCommand } from "./registry.ts";

/**
 * `/index [path]`: builds or updates the code index of the chat's project (or of `path`, relative to
 * it), as `ion index` does, and says what it did in one line. The `symbols` tool and the repo map of
 * the next chat use it.
 */
export const indexCommand: SlashCommand<ChatContext> = {
  name: "index",
  args: "[path]",
  summary: "build or update the code index of this project (or of path)",
  async run(args, context) {
    const { style } = context;
    try {
      const { projectRootAt } = await import("../commands/index-common.ts");
      const dir = projectRootAt(context.session.cwd, args || undefined);
      context.print(style.dim(`indexing ${safeForTerminal(dir)}…`));
      const [{ openProject }, { summaryLine }, { updateWarnings }] = await Promise.all([
        import("../code-index/project-index.ts"),
        import("../commands/index-common.ts"),
        import("../code-index/answer-lines.ts"),
      ]);
      const project = openProject(dir, process.env);
      const summary = await project.refresh();
      for (const warning of [...project.warnings.splice(0), ...updateWarnings(summary)])
        context.print(style.dim(`warning: ${safeForTerminal(warning)}`));
      context.print(summaryLine(summary));
    } catch (err) {
      context.print(style.red(`ion: ${safeForTerminal(messageOf(err))}`));
    }
  },
};
