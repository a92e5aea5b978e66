/**
 * `ion mcp list` and `ion mcp tools SERVER`: the servers a session here would start, started the same
 * way (in parallel, each within `mcp.startup_timeout_ms`, stderr to `<data>/mcp-logs/<server>.log`) to
 * report their status and tools, then closed. A project's servers start only when the project is
 * trusted; otherwise they are listed as not started.
 */
import { type LoadedConfig, loadConfig } from "../config/load.ts";
import { dataDir, type Env } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { mcpLogFile, mcpLogFiles } from "../mcp/log-path.ts";
import type { McpServers } from "../mcp/servers.ts";
import {
  collectMcpServers,
  type McpServerSources,
  type SourcedServer,
  trustOptions,
} from "../mcp/sources.ts";
import { commandEnvironment } from "../tools/command-env.ts";
import { onEndingSignals } from "../util/signals.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { clipLine, parseStrict, tildePath } from "./_shared.ts";
import { listArgs, toolsArgs } from "./mcp.ts";

/** One element of `ion mcp list --json`. */
export interface McpListItem {
  name: string;
  /** The file that defines the server. */
  source: string;
  scope: "user" | "project";
  transport: "stdio" | "http" | "sse" | null;
  /** `untrusted`: a project's server, not started because the project is not trusted. */
  status: "connected" | "failed" | "untrusted";
  /** Why it failed; null otherwise. */
  error: string | null;
  /** How many tools it offers; null when it did not start. */
  tools: number | null;
  /** Its log file; null when it was not started. */
  log: string | null;
}

/** One element of `ion mcp tools SERVER --json`. */
export interface McpToolItem {
  /** The tool's name on its server. */
  name: string;
  /** The name the model calls it by, and permission rules use: `mcp__<server>__<tool>`. */
  full_name: string;
  read_only: boolean;
  description: string;
}

/** A warning may quote a project's file (a server's name): nothing in it may drive the terminal. */
function warn(line: string): void {
  process.stderr.write(`ion: warning: ${safeForTerminal(line)}\n`);
}

interface Setting {
  env: Env;
  loaded: LoadedConfig;
  sources: McpServerSources;
}

/**
 * The configuration and the servers, with the project trusted as `ion run` would trust it — remembered
 * by `ion config trust`, or `--trust-project` / `ION_TRUST_PROJECT=1` for this command — but never
 * asked: listing is no moment to decide. Warnings and the trust gate's one line go to stderr.
 */
async function settle(
  trustFlag: boolean | undefined,
  command: "list" | "tools",
  say: (line: string) => void = warn,
): Promise<Setting> {
  const env = process.env;
  const cwd = process.cwd();
  const { decideTrust } = await import("../config/trust.ts");
  const trust = await decideTrust({ cwd, env, flag: trustFlag === true, interactive: false });
  const loaded = await loadConfig({ cwd, env, trustedProject: trust.trusted });
  const sources = await collectMcpServers({ cwd, env, ...trustOptions(trust) });
  const lines = new Set([
    ...trust.warnings,
    ...trust.project.warnings,
    ...loaded.warnings,
    ...sources.warnings,
  ]);
  for (const line of lines) say(line);
  // `tools` is about one server: when it is the project's, its own error says the project is untrusted.
  if (trust.skippedLine !== undefined && command === "list") say(trust.skippedLine);
  return { env, loaded, sources };
}

/**
 * Starts `servers` as a session would, gives them to `use`, and closes them whatever happens. Ctrl+C
 * (or SIGTERM, SIGHUP) fails the servers still starting, closes the rest and ends with exit 2.
 */
async function withStarted<T>(
  setting: Setting,
  servers: readonly SourcedServer[],
  use: (started: McpServers) => T,
): Promise<T> {
  const { startMcpServers } = await import("../mcp/servers.ts");
  const abort = new AbortController();
  const stopWatching = onEndingSignals(() => abort.abort());
  const mcp = setting.loaded.config.mcp;
  let started: McpServers | undefined;
  try {
    started = await startMcpServers(
      servers.map((server) => server.definition),
      {
        logFile: mcpLogFiles(dataDir(setting.env)),
        cwd: process.cwd(),
        // What a session's servers start with: no provider key, no secret-like name unless kept.
        env: commandEnvironment({
          env: setting.env,
          config: setting.loaded.config,
          keys: setting.loaded.keys,
        }),
        signal: abort.signal,
        ...(mcp?.startup_timeout_ms === undefined ? {} : { startupTimeoutMs: mcp.startup_timeout_ms }),
      },
    );
    if (abort.signal.aborted) throw new IonError("interrupted", "interrupted: the servers were closed");
    return use(started);
  } finally {
    await started?.close();
    stopWatching();
  }
}

/**
 * The servers a session here would start, each started and closed again, then those of an untrusted
 * project (not started). `say` gets the warnings (stderr by default; `ion doctor` reports its own).
 */
export async function serverStatuses(
  trustFlag: boolean | undefined,
  say: (line: string) => void = warn,
): Promise<McpListItem[]> {
  const setting = await settle(trustFlag, "list", say);
  const { servers, skipped } = setting.sources;
  const started =
    servers.length === 0
      ? []
      : await withStarted(setting, servers, (running) => describeStarted(setting, servers, running, say));
  return [
    ...started,
    ...skipped.map((server) => ({
      name: server.name,
      source: server.file,
      scope: server.scope,
      transport: server.transport ?? null,
      status: "untrusted" as const,
      error: null,
      tools: null,
      log: null,
    })),
  ];
}

/** `ion mcp list [--json] [--trust-project]`. */
export async function listServers(rawArgs: string[]): Promise<void> {
  const args = parseStrict("mcp list", rawArgs, listArgs, 0);
  const items = await serverStatuses(args["trust-project"]);
  if (items.length === 0) {
    if (args.json === true) process.stdout.write("[]\n");
    else
      process.stderr.write(
        "no MCP servers configured: `ion mcp add NAME -- COMMAND [ARGS…]` or `ion mcp add NAME --url URL` adds one\n",
      );
    return;
  }
  if (args.json === true) {
    process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    return;
  }
  const { renderTable } = await import("../ui/table.ts");
  const { terminal } = await import("../util/fd-writer.ts");
  const columns = ["NAME", "SOURCE", "TRANSPORT", "STATUS", "TOOLS", "LOG"].map((header) => ({ header }));
  const rows = items.map((item) => [
    item.name,
    tildePath(item.source),
    item.transport ?? "?",
    item.status === "untrusted"
      ? "untrusted (not started)"
      : item.error === null
        ? item.status
        : `failed: ${item.error}`,
    item.tools === null ? "-" : String(item.tools),
    item.log === null ? "-" : tildePath(item.log),
  ]);
  process.stdout.write(renderTable(columns, rows, { width: terminal().width }));
}

function describeStarted(
  setting: Setting,
  servers: readonly SourcedServer[],
  running: McpServers,
  say: (line: string) => void,
): McpListItem[] {
  // Not failed statuses (those are in the table): a tool left out, for instance.
  for (const warning of running.warnings)
    if (!/^MCP server ".*" failed to start: /.test(warning)) say(warning);
  return servers.map(({ definition, file, scope }, index) => {
    const status = running.statuses[index];
    const failed = status?.status === "failed" ? status.error : null;
    return {
      name: definition.name,
      source: file,
      scope,
      transport: definition.type,
      status: failed === null ? "connected" : "failed",
      error: failed,
      tools: failed === null ? running.tools.filter((tool) => tool.server === definition.name).length : null,
      log: mcpLogFile(dataDir(setting.env), definition.name),
    };
  });
}

/** `ion mcp tools SERVER [--json] [--trust-project]`. */
export async function listTools(rawArgs: string[]): Promise<void> {
  const args = parseStrict("mcp tools", rawArgs, toolsArgs, 1);
  const name = typeof args.server === "string" ? args.server : "";
  if (name === "")
    throw new IonError("usage", '"ion mcp tools" needs a server name', { hint: "`ion mcp list` lists them" });
  const setting = await settle(args["trust-project"], "tools");
  const server = await findServer(setting.sources, name);
  const items = await withStarted(setting, [server], (running): McpToolItem[] => {
    const status = running.statuses[0];
    if (status?.status === "failed")
      throw new IonError("tool", `MCP server "${name}" failed to start: ${status.error}`, {
        hint: `its log: ${mcpLogFile(dataDir(setting.env), name)}`,
      });
    return running.tools.map((tool) => ({
      name: tool.mcpName,
      full_name: tool.spec.name,
      read_only: tool.readOnly,
      description: tool.spec.description,
    }));
  });
  if (args.json === true) {
    process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    return;
  }
  if (items.length === 0) {
    process.stderr.write(`MCP server "${name}" offers no tools\n`);
    return;
  }
  const { renderTable } = await import("../ui/table.ts");
  const { terminal } = await import("../util/fd-writer.ts");
  const columns = ["TOOL", "READ-ONLY", "DESCRIPTION"].map((header) => ({ header }));
  const rows = items.map((item) => [item.name, item.read_only ? "yes" : "no", firstLine(item.description)]);
  process.stdout.write(renderTable(columns, rows, { width: terminal().width }));
}

/** A description's first non-empty line, at most 100 characters. */
function firstLine(text: string): string {
  return clipLine(text.split("\n").find((part) => part.trim() !== "") ?? "", 100);
}

/** The server called `name`; one of an untrusted project, or an unknown name, is an error saying so. */
async function findServer(sources: McpServerSources, name: string): Promise<SourcedServer> {
  const server = sources.servers.find((candidate) => candidate.definition.name === name);
  if (server) return server;
  const skipped = sources.skipped.find((candidate) => candidate.name === name);
  if (skipped)
    throw new IonError(
      "config",
      `MCP server "${name}" is defined by ${skipped.file}, and the project is not trusted`,
      {
        hint: `\`ion config trust\` trusts it; \`ion mcp tools ${name} --trust-project\` starts it once`,
      },
    );
  const names = [...sources.servers.map((s) => s.definition.name), ...sources.skipped.map((s) => s.name)];
  const { default: Fuse } = await import("fuse.js");
  const close = new Fuse(names, { threshold: 0.4 })
    .search(name)
    .slice(0, 3)
    .map((result) => result.item);
  const known = names.length === 0 ? "no servers are configured" : `\`ion mcp list\` lists them`;
  throw new IonError("usage", `no MCP server named "${name}"`, {
    hint: close.length > 0 ? `did you mean ${close.join(", ")}? ${known}` : known,
  });
}
