/**
 * The MCP servers a session in `cwd` would start, each with the file that defines it:
 *
 *   user     `mcpServers` of the user's config.json                         always
 *   project  `mcpServers` of the project's `.ion/config.json` (in `cwd`)     only when the project is trusted
 *   project  the project's `.mcp.json` (at its root: the git root, else cwd) only when the project is trusted
 *
 * A name defined more than once is started once, from the first file in that order, with one warning
 * naming every file that defines it. Unlike Claude Code (local > project > user), the user's own
 * config wins over a project's: a project may add servers, never replace one of yours (the contract
 * for `mcpServers` in project files), so a repository cannot put its own command behind the name of a
 * server you configured with your tokens. Of the two project files ion's own is the more specific.
 *
 * Untrusted project servers are not parsed for use, only named in `skipped`, so the caller can say
 * what was left out. Cheap to import: the parser (zod) loads only when a file names servers.
 *
 *   collectMcpServers({ cwd, env, trusted }) → { servers, skipped, warnings }
 *   trustOptions(decision) → { trusted, trustedMcpJson }    a trust gate's decision as those options
 */
import { join, resolve } from "node:path";
import type { ProjectTrust } from "../agent/session-options.ts";
import { readJson } from "../config/load.ts";
import { configFiles, type Env } from "../config/paths.ts";
import { findGitRoot } from "../util/git.ts";
import { isPlainObject } from "../util/plain-object.ts";
import { readProjectText } from "../util/project-file.ts";
import type { McpServerDefinition } from "./config.ts";

export type McpScope = "user" | "project";

export interface McpServerOrigin {
  /** The file that defines the server. */
  file: string;
  /** `user`: the user's config.json; `project`: a file of the project, which needs trust. */
  scope: McpScope;
}

export interface SourcedServer extends McpServerOrigin {
  definition: McpServerDefinition;
}

/** A project's server that was not started because the project is not trusted. */
export interface SkippedServer extends McpServerOrigin {
  name: string;
  /** undefined when the entry is not a server ion could start anyway. */
  transport: McpServerDefinition["type"] | undefined;
}

export interface McpServerSources {
  /** What to start, user servers first, each name once. */
  servers: SourcedServer[];
  /** Project servers left out for want of trust (empty when trusted). */
  skipped: SkippedServer[];
  /** One line per bad entry, unreadable `.mcp.json` and name defined twice. */
  warnings: string[];
}

export interface McpSourceFiles {
  user: string;
  /** The project's `.ion/config.json`; undefined when it is the user's own file (config dir in cwd). */
  projectConfig: string | undefined;
  mcpJson: string;
  /** The project's root, which its files must stay inside. */
  root: string;
}

export function mcpSourceFiles(cwd: string, env: Env = process.env): McpSourceFiles {
  const files = configFiles(cwd, env);
  const root = findGitRoot(resolve(cwd))?.root ?? resolve(cwd);
  return {
    user: files.user,
    projectConfig: files.project === files.user ? undefined : files.project,
    mcpJson: join(root, ".mcp.json"),
    root,
  };
}

export interface CollectOptions {
  cwd: string;
  /** For the config paths and `${VAR}` expansion. Default: process.env. */
  env?: Env;
  /** The project trust decision (src/config/trust.ts); the user's own config needs none. */
  trusted: boolean;
  /**
   * The `.mcp.json` servers as the trust decision read and hashed them (`ProjectRunnables.mcpServers`,
   * undefined for no file). Given, the file is not read again: what starts is exactly what was trusted.
   */
  trustedMcpJson?: { servers: Record<string, unknown> | undefined };
}

/** A project file's text, or a warning; the loader of `.ion/config.json` reports that file's problems itself. */
function projectText(file: string, root: string, warnings: string[] | undefined): string | undefined {
  const read = readProjectText(file, root);
  if (read.kind === "text") return read.text;
  if (read.kind === "refused") warnings?.push(`skipped ${file}: ${read.reason}`);
  return undefined;
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

interface FoundServers {
  origin: McpServerOrigin;
  /** The file's `mcpServers` value, or a `.mcp.json`'s whole text (parsed with its own warnings). */
  entries: unknown;
  mcpJsonText?: string;
}

/** The `mcpServers` of each file that has some, in precedence order. */
async function findServers(
  files: McpSourceFiles,
  { trusted, trustedMcpJson }: Pick<CollectOptions, "trusted" | "trustedMcpJson">,
  warnings: string[],
): Promise<FoundServers[]> {
  const found: FoundServers[] = [];
  const user = await readJson(files.user);
  if (isPlainObject(user) && user.mcpServers !== undefined)
    found.push({ origin: { file: files.user, scope: "user" }, entries: user.mcpServers });
  if (files.projectConfig !== undefined) {
    const text = projectText(files.projectConfig, files.root, undefined);
    const document = text === undefined ? undefined : parseJsonOrUndefined(text);
    if (isPlainObject(document) && document.mcpServers !== undefined)
      found.push({ origin: { file: files.projectConfig, scope: "project" }, entries: document.mcpServers });
  }
  if (trustedMcpJson !== undefined) {
    if (trustedMcpJson.servers !== undefined)
      found.push({ origin: { file: files.mcpJson, scope: "project" }, entries: trustedMcpJson.servers });
    return found;
  }
  // Untrusted, the file is read only to name its servers: the trust decision says what is wrong with it.
  const text = projectText(files.mcpJson, files.root, trusted ? warnings : undefined);
  if (text !== undefined) {
    const document = parseJsonOrUndefined(text);
    const entries = isPlainObject(document) ? document.mcpServers : undefined;
    found.push({ origin: { file: files.mcpJson, scope: "project" }, entries, mcpJsonText: text });
  }
  return found;
}

/**
 * `collectMcpServers`'s trust options from the trust gate's decision: trusted, it takes the `.mcp.json`
 * servers exactly as the decision read and hashed them, so what starts is what was trusted.
 */
export function trustOptions(
  trust: ProjectTrust | undefined,
): Pick<CollectOptions, "trusted" | "trustedMcpJson"> {
  if (trust?.trusted !== true) return { trusted: false };
  return { trusted: true, trustedMcpJson: { servers: trust.project.mcpServers } };
}

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** The servers to start, the project servers skipped, and what was wrong. Throws only for an unreadable user config. */
export async function collectMcpServers(options: CollectOptions): Promise<McpServerSources> {
  const env = options.env ?? process.env;
  const files = mcpSourceFiles(options.cwd, env);
  const warnings: string[] = [];
  const found = await findServers(files, options, warnings);
  const skipped = options.trusted
    ? []
    : found.filter(({ origin }) => origin.scope === "project").flatMap(skippedOf);
  const used = found.filter(({ origin }) => options.trusted || origin.scope === "user");
  if (used.length === 0) return { servers: [], skipped, warnings };

  const { parseMcpJson, parseMcpServers } = await import("./config.ts");
  const servers: SourcedServer[] = [];
  const definedIn = new Map<string, string[]>();
  for (const { origin, entries, mcpJsonText } of used) {
    const parsed =
      mcpJsonText === undefined
        ? parseMcpServers(entries, origin.file, env)
        : parseMcpJson(mcpJsonText, origin.file, env);
    warnings.push(...parsed.warnings);
    for (const definition of parsed.servers) {
      const where = definedIn.get(definition.name);
      if (where === undefined) {
        definedIn.set(definition.name, [origin.file]);
        servers.push({ ...origin, definition });
      } else where.push(origin.file);
    }
  }
  for (const [name, where] of definedIn)
    if (where.length > 1)
      warnings.push(`MCP server "${name}" is defined in ${listed(where)}; the one in ${where[0]} is used`);
  return { servers, skipped, warnings };
}

/**
 * Every entry of an untrusted file, by name, with the transport it asks for. Read without the parser:
 * nothing of an untrusted project is expanded or checked, only named.
 */
function skippedOf({ origin, entries }: FoundServers): SkippedServer[] {
  if (!isPlainObject(entries)) return [];
  return Object.entries(entries).map(([name, entry]) => ({ ...origin, name, transport: transportOf(entry) }));
}

function transportOf(entry: unknown): SkippedServer["transport"] {
  if (!isPlainObject(entry)) return undefined;
  if (entry.type === "stdio" || entry.type === "http" || entry.type === "sse") return entry.type;
  return entry.type === undefined && typeof entry.command === "string" ? "stdio" : undefined;
}
