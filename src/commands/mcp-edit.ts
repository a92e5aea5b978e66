/**
 * `ion mcp add` and `ion mcp remove`: a server in the user's config.json, edited as `ion config set`
 * edits it (under the file's lock, validated, written atomically, key order kept). A project's servers
 * are the project's files: these commands never write them.
 */
import { editConfig, isObject, type JsonObject, setAt, unsetAt } from "../config/edit.ts";
import { configFiles } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { mcpSettingProblem } from "../mcp/setting.ts";
import { collectMcpServers } from "../mcp/sources.ts";
import { maskHeaderValue, maskUrl } from "../util/secrets.ts";
import { checkFlags, parseChoice, parseStrict } from "./_shared.ts";
import { addArgs, removeArgs } from "./mcp.ts";

/** Names that stay readable in tool names (`mcp__<server>__<tool>`), log files and dotted config paths. */
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

const ADD_EXAMPLE =
  "e.g. `ion mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes` or `ion mcp add docs --url https://example.com/mcp`";

function serverName(command: "add" | "remove", given: unknown): string {
  if (typeof given !== "string" || given === "")
    throw new IonError("usage", `"ion mcp ${command}" needs a server name`, {
      hint: command === "add" ? ADD_EXAMPLE : "`ion mcp list` lists them",
    });
  if (command === "add" && !SERVER_NAME.test(given))
    throw new IonError("usage", `"${given}" is not a server name: use letters, digits, _ and -`);
  return given;
}

/** `KEY=VALUE` / `Name: value` pairs of a repeatable flag, in order (a later one of a name wins). */
function pairs(flag: "--env" | "--header", values: readonly string[]): Record<string, string> {
  const separator = flag === "--env" ? "=" : ":";
  const out: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(separator);
    const key = at < 0 ? "" : value.slice(0, at).trim();
    if (key === "")
      throw new IonError(
        "usage",
        `${flag} needs ${flag === "--env" ? "KEY=VALUE" : "NAME:VALUE"}, got "${value}"`,
      );
    out[key] = flag === "--env" ? value.slice(at + 1) : value.slice(at + 1).trim();
  }
  return out;
}

/**
 * The command line as a POSIX shell would need it typed (the hint is meant to be pasted): a word with
 * anything but plain characters is single-quoted, so `$`, backquotes and `!` stay as they are.
 */
function commandLine(words: readonly string[]): string {
  return words
    .map((word) => (/^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`))
    .join(" ");
}

/** What `add` writes: Claude Code's `.mcp.json` entry shape. */
function newEntry(
  name: string,
  command: readonly string[],
  url: string | undefined,
  transport: string | undefined,
  env: Record<string, string>,
  headers: Record<string, string>,
): { entry: JsonObject; summary: string } {
  const hasEnv = Object.keys(env).length > 0;
  const hasHeaders = Object.keys(headers).length > 0;
  if (url !== undefined && command.length > 0)
    throw new IonError("usage", "give a command after -- or a --url, not both");
  if (url === undefined) {
    if (command.length === 0)
      throw new IonError("usage", `"ion mcp add ${name}" needs a command after -- or a --url`, {
        hint: ADD_EXAMPLE,
      });
    if (transport !== undefined && transport !== "stdio")
      throw new IonError(
        "usage",
        `--transport ${transport} goes with --url; a command's server talks over stdio`,
      );
    if (hasHeaders)
      throw new IonError("usage", "--header is for a --url server; a command's server takes --env");
    const [program, ...args] = command as [string, ...string[]];
    const names = hasEnv ? ` with ${Object.keys(env).join(", ")}` : "";
    return {
      entry: { command: program, args, ...(hasEnv ? { env } : {}) },
      summary: `stdio: ${commandLine(command)}${names}`,
    };
  }
  if (hasEnv) throw new IonError("usage", "--env is for a command's server; a --url server takes --header");
  const type = transport === undefined ? "http" : parseChoice("--transport", transport, ["http", "sse"]);
  const shownHeaders = Object.entries(headers).map(
    ([header, value]) => `${header}: ${maskHeaderValue(header, value)}`,
  );
  return {
    entry: { type, url, ...(hasHeaders ? { headers } : {}) },
    summary: `${type}: ${maskUrl(url)}${shownHeaders.length > 0 ? ` with ${shownHeaders.join(", ")}` : ""}`,
  };
}

/** `ion mcp add NAME [--env K=V]… -- COMMAND [ARGS…]`, `ion mcp add NAME --url URL [--header K:V]… [--transport T]`. */
export async function addServer(rawArgs: string[]): Promise<void> {
  const split = rawArgs.indexOf("--");
  const own = split < 0 ? rawArgs : rawArgs.slice(0, split);
  const command = split < 0 ? [] : rawArgs.slice(split + 1);
  const repeated = checkFlags("mcp add", own, addArgs, ["env", "header"]);
  const args = parseStrict("mcp add", own, addArgs, Number.POSITIVE_INFINITY);
  const name = serverName("add", args.name);
  const extra = args._.slice(1);
  if (extra.length > 0)
    throw new IonError("usage", `unexpected argument "${extra[0]}" for "ion mcp add"`, {
      hint: /^https?:\/\//.test(extra[0] ?? "")
        ? `a URL goes after --url: \`ion mcp add ${name} --url ${extra[0]}\``
        : `a server's command goes after --: \`ion mcp add ${name} -- ${commandLine(extra)}\``,
    });
  const url = typeof args.url === "string" ? args.url : undefined;
  const transport = typeof args.transport === "string" ? args.transport : undefined;
  const { entry, summary } = newEntry(
    name,
    command,
    url,
    transport,
    pairs("--env", repeated.env ?? []),
    pairs("--header", repeated.header ?? []),
  );
  const file = configFiles(process.cwd(), process.env).user;
  const path = ["mcpServers", name];
  await editConfig(file, path.join("."), (draft) => {
    // Checked under the lock: two parallel adds of one name cannot both succeed.
    if (isObject(draft.mcpServers) && Object.hasOwn(draft.mcpServers, name))
      throw new IonError("config", `MCP server "${name}" already exists in ${file}`, {
        hint: `\`ion mcp remove ${name}\` first to replace it`,
      });
    const problem = mcpSettingProblem(draft, path, entry, file);
    if (problem !== undefined) throw new IonError("config", `cannot add ${name}: ${problem}`);
    setAt(draft, path, entry);
    return true;
  });
  process.stdout.write(`added MCP server "${name}" (${summary}) to ${file}\n`);
}

/** `ion mcp remove NAME`: only from the user's config; a project's server is named with its file. */
export async function removeServer(rawArgs: string[]): Promise<void> {
  const args = parseStrict("mcp remove", rawArgs, removeArgs, 1);
  const name = serverName("remove", args.name);
  const env = process.env;
  const file = configFiles(process.cwd(), env).user;
  const path = ["mcpServers", name];
  const { changed } = await editConfig(file, path.join("."), (draft) => unsetAt(draft, path));
  if (changed) {
    process.stdout.write(`removed MCP server "${name}" from ${file}\n`);
    return;
  }
  // Not the user's: say where it is, without starting or expanding anything of the project's.
  const { skipped } = await collectMcpServers({ cwd: process.cwd(), env, trusted: false });
  const inProject = skipped.find((server) => server.name === name);
  if (inProject)
    throw new IonError("config", `MCP server "${name}" is defined in ${inProject.file}, not in your config`, {
      hint: `remove it from that file; \`ion mcp remove\` changes only ${file}`,
    });
  throw new IonError("usage", `no MCP server "${name}" in ${file}`, { hint: "`ion mcp list` lists them" });
}
