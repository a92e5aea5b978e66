/**
 * Where a server's log file lives: `<data dir>/mcp-logs/<server>.log`, the one path `ion mcp` and the
 * session both write, so `ion mcp list` can point at the log a failed session start left behind.
 *
 * A server's name comes from a config file and may hold `/`, `..` or spaces: each character outside
 * `[A-Za-z0-9_-]` becomes `_` (as in tool names), and a name that had to change gets 8 hex digits of
 * its SHA-256 added, so `a/b` and `a_b` never share a log.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { sanitiseNamePart } from "./names.ts";

const MCP_LOG_DIR = "mcp-logs";

export function mcpLogFile(dataDir: string, server: string): string {
  const clean = sanitiseNamePart(server);
  if (clean === server) return join(dataDir, MCP_LOG_DIR, `${server}.log`);
  const digest = createHash("sha256").update(server).digest("hex").slice(0, 8);
  return join(dataDir, MCP_LOG_DIR, `${clean}-${digest}.log`);
}

/** `startMcpServers`'s `logFile` option for a data directory. */
export function mcpLogFiles(dataDir: string): (server: string) => string {
  return (server) => mcpLogFile(dataDir, server);
}
