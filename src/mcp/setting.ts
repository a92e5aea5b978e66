/**
 * The check `ion config set mcpServers…` and `ion mcp add` make before writing: a server the parser
 * would skip at start-up (no command, a url without a type, a url that is not http(s)) is refused
 * while the file is still as it was. Loading a file with such a server stays a warning (sources.ts);
 * writing one on purpose is a mistake worth stopping.
 */
import { getAt, isObject, type JsonObject, setAt } from "../config/edit.ts";
import { parseMcpServers } from "./config.ts";

/**
 * Why setting `path` (under `mcpServers`) to `value` in the config object `current` would leave a
 * server that cannot start; undefined when every server the edit touches is one ion can start.
 */
export function mcpSettingProblem(
  current: JsonObject,
  path: readonly string[],
  value: unknown,
  file: string,
): string | undefined {
  if (path[0] !== "mcpServers") return undefined;
  const draft = structuredClone(current);
  setAt(draft, path, value);
  const servers = getAt(draft, ["mcpServers"]);
  // Not an object at all: the config schema refuses it with its own words.
  if (!isObject(servers)) return undefined;
  const touched = path.length >= 2 ? [path[1]!] : Object.keys(servers);
  const entries = Object.fromEntries(touched.map((name) => [name, servers[name]]));
  // Variables are not expanded for the check: one unset now may be set when the server starts.
  const { servers: usable, warnings } = parseMcpServers(entries, file, {});
  const bad = touched.filter((name) => !usable.some((server) => server.name === name));
  if (bad.length === 0) return undefined;
  const reasons = warnings.filter((line) => bad.some((name) => line.startsWith(`MCP server "${name}" `)));
  return (reasons.length > 0 ? reasons : [`MCP server "${bad[0]}" cannot start`])
    .map((line) => line.replace(/; skipped$/, ""))
    .join("; ");
}
