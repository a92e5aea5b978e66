import { type ArgsDef, defineCommand } from "citty";
import { guardSubcommand, lazyCommand } from "./_shared.ts";

/**
 * `ion mcp list|tools|add|remove`. Flag definitions only: `ion mcp --help` loads no config and no MCP
 * code. Listing is in mcp-list.ts (it starts the servers), editing in mcp-edit.ts.
 */

const trustArg = {
  "trust-project": {
    type: "boolean",
    description:
      "Trust this project for this command only: its servers start too (.mcp.json, .ion/config.json); or ION_TRUST_PROJECT=1",
  },
} as const satisfies ArgsDef;

export const listArgs = {
  json: { type: "boolean", description: "Print a JSON array instead of a table" },
  ...trustArg,
} as const satisfies ArgsDef;

export const toolsArgs = {
  server: { type: "positional", required: false, description: "The server's name (required)" },
  json: { type: "boolean", description: "Print a JSON array instead of a table" },
  ...trustArg,
} as const satisfies ArgsDef;

export const addArgs = {
  name: {
    type: "positional",
    required: false,
    description: "The server's name (required): letters, digits, _ and -",
  },
  command: {
    type: "positional",
    required: false,
    description: "After --: the command that starts a stdio server, then its arguments",
  },
  url: {
    type: "string",
    valueHint: "url",
    description: "A remote server's URL instead of a command",
  },
  transport: {
    type: "string",
    valueHint: "http|sse",
    description: "With --url: http (streamable HTTP, falling back to SSE; the default) or sse",
  },
  env: {
    type: "string",
    alias: "e",
    valueHint: "key=value",
    description: "An environment variable for the command (repeatable)",
  },
  header: {
    type: "string",
    alias: "H",
    valueHint: "name:value",
    description: "An HTTP header sent to the URL (repeatable)",
  },
} as const satisfies ArgsDef;

export const removeArgs = {
  name: { type: "positional", required: false, description: "The server's name (required)" },
} as const satisfies ArgsDef;

const list = lazyCommand(
  "list",
  "Each server with its source, transport, status, tool count and log file; starts them to see (the default)",
  listArgs,
  async () => (await import("./mcp-list.ts")).listServers,
);

const tools = lazyCommand(
  "tools",
  "One server's tools: name, read-only or not, description",
  toolsArgs,
  async () => (await import("./mcp-list.ts")).listTools,
);

const add = lazyCommand(
  "add",
  "Add a server to your config: NAME -- COMMAND [ARGS…], or NAME --url URL",
  addArgs,
  async () => (await import("./mcp-edit.ts")).addServer,
);

const remove = lazyCommand(
  "remove",
  "Remove a server from your config",
  removeArgs,
  async () => (await import("./mcp-edit.ts")).removeServer,
);

const SUBCOMMANDS = { list, tools, add, remove };

export default defineCommand({
  meta: { name: "mcp", description: "MCP servers: list them, their tools; add and remove them" },
  // Declared here too so that `ion mcp --json` reaches the default subcommand.
  args: listArgs,
  subCommands: SUBCOMMANDS,
  default: "list",
  setup({ rawArgs }) {
    guardSubcommand("mcp", rawArgs, SUBCOMMANDS);
  },
});
