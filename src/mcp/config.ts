/**
 * MCP server definitions in Claude Code's `.mcp.json` format, from a project's `.mcp.json` or the
 * `mcpServers` of ion's config:
 *
 *   {"mcpServers": {"name": {"command", "args", "env", "cwd"}                 // stdio (or "type": "stdio")
 *                   "name": {"type": "http" | "sse", "url", "headers"}}}     // remote
 *
 * Parsing never throws for a bad server: each bad entry becomes one warning line and is left out, the
 * others are returned. Variables are expanded (see expand.ts); an unset one without a default is
 * warned about and the server is kept with the literal `${VAR}` text, as Claude Code does.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import { messageOf } from "../util/error-text.ts";
import { isPlainObject } from "../util/plain-object.ts";
import { type Environment, Expander } from "./expand.ts";

export interface StdioServerDefinition {
  name: string;
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The server's working directory; relative to the workspace root, which is also the default. */
  cwd?: string;
}

export interface RemoteServerDefinition {
  name: string;
  /** `http`: streamable HTTP, falling back to legacy SSE when the server refuses it; `sse`: SSE only. */
  type: "http" | "sse";
  url: string;
  headers: Record<string, string>;
}

export type McpServerDefinition = StdioServerDefinition | RemoteServerDefinition;

/**
 * A Claude Agent SDK program's in-process server (`createSdkMcpServer`): no config file names it, and
 * its messages travel over the program's control channel through the transport it opens.
 */
export interface SdkServerDefinition {
  name: string;
  type: "sdk";
  transport: () => Transport;
}

/** Any server a session connects to. */
export type AnyServerDefinition = McpServerDefinition | SdkServerDefinition;

export interface McpServerList {
  servers: McpServerDefinition[];
  /** One line each, naming the server and what is wrong (or what was assumed). */
  warnings: string[];
}

/** Values that must not be shown in a message: a server's env and header values may hold keys. */
export function definitionSecrets(definition: AnyServerDefinition): string[] {
  if (definition.type === "sdk") return [];
  return Object.values(definition.type === "stdio" ? definition.env : definition.headers);
}

const StringRecord = z.record(z.string(), z.string());

const StdioEntry = z.object({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: StringRecord.default({}),
  cwd: z.string().min(1).optional(),
});

const RemoteEntry = z.object({
  type: z.enum(["http", "sse"]),
  url: z.string().min(1),
  headers: StringRecord.default({}),
});

const KIND_NAMES: Record<string, string> = { string: "a string", array: "a list", record: "an object" };

/** One clause per problem in the words of the entry (`"args" must be a list`), not the validator's. */
function describeIssues(error: z.ZodError, kind: "stdio" | "remote"): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? `"${issue.path.join(".")}"` : "the entry";
      if (
        issue.code === "invalid_type" &&
        issue.path.length === 1 &&
        issue.message.endsWith("received undefined")
      )
        return kind === "stdio" && issue.path[0] === "command"
          ? 'has no "command" (a stdio server) or "url" (a remote one)'
          : `has no ${field}`;
      if (issue.code === "invalid_type")
        return `${field} must be ${KIND_NAMES[issue.expected] ?? issue.expected}`;
      if (issue.code === "too_small" && issue.origin === "string") return `${field} is empty`;
      return `${field}: ${issue.message}`;
    })
    .join("; ");
}

/** Why an entry is not a server ion can start, or the entry's kind. */
function entryKind(entry: Record<string, unknown>): "stdio" | "remote" | string {
  const type = entry.type;
  if (type === undefined) {
    if (entry.command === undefined && typeof entry.url === "string")
      return 'has a "url" but no "type": add "type": "http" (or "sse")';
    return "stdio";
  }
  if (type === "stdio") return "stdio";
  if (type === "http" || type === "sse") return "remote";
  return `unsupported type ${JSON.stringify(type)} (ion runs stdio, http and sse servers)`;
}

function remoteUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `url is not a valid URL`;
  }
  return parsed.protocol === "http:" || parsed.protocol === "https:" ? undefined : "url must be http(s)";
}

/**
 * The servers of an `mcpServers` object. `source` names where it came from in warnings (".mcp.json",
 * "config"); `env` is what `${VAR}` reads (the process environment by default).
 */
export function parseMcpServers(
  mcpServers: unknown,
  source: string,
  env: Environment = process.env,
): McpServerList {
  const servers: McpServerDefinition[] = [];
  const warnings: string[] = [];
  if (!isPlainObject(mcpServers)) {
    warnings.push(`MCP servers in ${source}: "mcpServers" must be an object of named servers; none loaded`);
    return { servers, warnings };
  }
  for (const [name, entry] of Object.entries(mcpServers)) {
    const label = `MCP server "${name}" (${source})`;
    if (name.trim() === "") {
      warnings.push(`MCP server with an empty name (${source}): skipped`);
      continue;
    }
    if (!isPlainObject(entry)) {
      warnings.push(`${label}: must be an object; skipped`);
      continue;
    }
    const kind = entryKind(entry);
    if (kind !== "stdio" && kind !== "remote") {
      warnings.push(`${label}: ${kind}; skipped`);
      continue;
    }
    const expander = new Expander(env);
    let server: McpServerDefinition;
    if (kind === "stdio") {
      const parsed = StdioEntry.safeParse(entry);
      if (!parsed.success) {
        warnings.push(`${label}: ${describeIssues(parsed.error, kind)}; skipped`);
        continue;
      }
      const { command, args, env: serverEnv, cwd } = parsed.data;
      server = {
        name,
        type: "stdio",
        command: expander.string(command),
        args: expander.list(args),
        env: expander.record(serverEnv),
        ...(cwd === undefined ? {} : { cwd }),
      };
    } else {
      const parsed = RemoteEntry.safeParse(entry);
      if (!parsed.success) {
        warnings.push(`${label}: ${describeIssues(parsed.error, kind)}; skipped`);
        continue;
      }
      const { type, url, headers } = parsed.data;
      server = { name, type, url: expander.string(url), headers: expander.record(headers) };
      const problem = expander.missing.length > 0 ? undefined : remoteUrlProblem(server.url);
      if (problem !== undefined) {
        warnings.push(`${label}: ${problem}; skipped`);
        continue;
      }
    }
    for (const variable of expander.missing)
      warnings.push(
        `${label}: environment variable ${variable} is not set and has no default; the literal "\${${variable}}" is used`,
      );
    servers.push(server);
  }
  return { servers, warnings };
}

/**
 * The servers of a `.mcp.json` file's text. A file that is not JSON, or has no `mcpServers` object,
 * gives one warning and no servers.
 */
export function parseMcpJson(text: string, source: string, env: Environment = process.env): McpServerList {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    const reason = messageOf(err);
    return { servers: [], warnings: [`MCP servers in ${source}: not valid JSON (${reason}); none loaded`] };
  }
  if (!isPlainObject(document) || document.mcpServers === undefined)
    return { servers: [], warnings: [`MCP servers in ${source}: no "mcpServers" object; none loaded`] };
  return parseMcpServers(document.mcpServers, source, env);
}
