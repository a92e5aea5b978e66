import { relative } from "node:path";
import type { ProjectTrust } from "../agent/session-options.ts";
import { counted, formatTokens } from "../util/numbers.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import type { ChatContext } from "./context.ts";
import type { SlashCommand } from "./registry.ts";

/**
 * `/mcp`: this chat's MCP servers, each with its status (and tool count, or why it failed), and
 * whether their tools are listed or found through mcp_search. Names and errors come from config files
 * and servers: made safe for the terminal. Waits for servers still starting.
 */
export const mcpCommand: SlashCommand<ChatContext> = {
  name: "mcp",
  summary: "MCP servers of this chat and their status",
  async run(_args, context) {
    const { session, style } = context;
    const overview = await session.mcpServers();
    const skipped = skippedLine(session.projectTrust);
    if (overview === undefined || overview.servers.length === 0) {
      context.print(
        style.dim(
          skipped
            ? `no MCP servers in this chat: ${skipped}`
            : "no MCP servers in this chat (`ion mcp add` adds one; `ion mcp list` shows every source)",
        ),
      );
      return;
    }
    const width = Math.min(30, Math.max(...overview.servers.map((s) => safeForTerminal(s.name).length)));
    for (const server of overview.servers) {
      const name = safeForTerminal(server.name).padEnd(width);
      const detail =
        server.status === "connected"
          ? `connected · ${counted(server.tools ?? 0, "tool")}`
          : `failed · ${safeForTerminal(server.error ?? "")}`;
      context.print(`${name}  ${detail}`);
    }
    const offered = overview.offered;
    if (offered && offered.deferred > 0)
      context.print(
        style.dim(
          `${counted(offered.deferred, "tool")} found through mcp_search, not listed: ~${formatTokens(offered.tokensSaved)} tokens saved per request`,
        ),
      );
    if (skipped) context.print(style.dim(skipped));
  },
};

/**
 * The project's own MCP servers this chat skipped because the project is not trusted, and how to
 * trust it: without it an untrusted project's servers would look as if they did not exist.
 */
function skippedLine(trust: ProjectTrust | undefined): string | undefined {
  if (!trust || trust.trusted) return undefined;
  const servers = trust.project.items.filter((item) => item.kind === "mcp-server");
  if (servers.length === 0) return undefined;
  const named = servers.map((item) => `${item.label} (${relative(trust.project.root, item.file)})`);
  const was = servers.length === 1 ? "was" : "were";
  return safeForTerminal(
    `the project's ${named.join(", ")} ${was} skipped: the project is not trusted (/trust shows what ${servers.length === 1 ? "it runs" : "they run"}; /trust yes trusts it from the next chat on)`,
  );
}
