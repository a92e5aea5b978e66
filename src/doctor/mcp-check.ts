/** The MCP servers a session here would start, started as `ion mcp list` starts them, one line each. */
import { tildePath } from "../commands/_shared.ts";
import { type Check, check } from "./types.ts";

export async function mcpChecks(): Promise<Check[]> {
  const { serverStatuses } = await import("../commands/mcp-list.ts");
  // The config check reports the configuration's warnings; the servers' own are in their lines.
  const items = await serverStatuses(false, () => {});
  if (items.length === 0) return [check("mcp", "MCP", "ok", "no servers configured")];
  return items.map((item) => {
    const id = `mcp:${item.name}`;
    const title = `MCP ${item.name}`;
    if (item.status === "untrusted")
      return check(
        id,
        title,
        "warn",
        `not started: ${tildePath(item.source)} is in a project you have not trusted`,
        "ion config trust, if you trust this project",
      );
    if (item.status === "failed")
      return check(
        id,
        title,
        "fail",
        `failed to start: ${item.error ?? "no reason given"}`,
        item.log === null ? "see ion mcp list" : `its log: ${tildePath(item.log)}`,
      );
    return check(id, title, "ok", `started, ${item.tools ?? 0} tools (${tildePath(item.source)})`);
  });
}
