import { type ArgsDef, defineCommand } from "citty";
import { guardSubcommand, lazyCommand } from "./_shared.ts";

/** Flag definitions only: `ion config --help` loads no config. The work is in config-*.ts. */
export const showArgs = {
  json: { type: "boolean", description: "Print {config, sources, files} as JSON" },
} as const satisfies ArgsDef;

export const getArgs = {
  key: {
    type: "positional",
    required: false,
    description: "Dotted setting name, e.g. providers.openai.api_base",
  },
} as const satisfies ArgsDef;

export const setArgs = {
  key: { type: "positional", required: false, description: "Dotted setting name, e.g. thinking" },
  value: {
    type: "positional",
    required: false,
    description:
      "JSON when it parses (42, true, null, [..], {..}), else text; for an api_key, `-` or none reads it from a prompt or stdin",
  },
  project: { type: "boolean", description: "Write ./.ion/config.json instead of the user config" },
} as const satisfies ArgsDef;

export const unsetArgs = {
  key: { type: "positional", required: false, description: "Dotted setting name" },
  project: { type: "boolean", description: "Edit ./.ion/config.json instead of the user config" },
} as const satisfies ArgsDef;

export const pathArgs = {
  name: {
    type: "positional",
    required: false,
    description: "Print only this one: config_dir, config_file, keys_file, project_file, data_dir, cache_dir",
  },
} as const satisfies ArgsDef;

export const initArgs = {} as const satisfies ArgsDef;

export const trustArgs = {
  dir: {
    type: "positional",
    required: false,
    description: "The project (default: this directory; its git repository's root is what is trusted)",
  },
  revoke: { type: "boolean", description: "Stop trusting it" },
  list: {
    type: "boolean",
    description: "List trusted projects: when, and whether what they run changed since",
  },
  json: { type: "boolean", description: "With --list: print a JSON array" },
} as const satisfies ArgsDef;

const show = lazyCommand(
  "show",
  "Every setting in effect and where it comes from; keys masked (the default)",
  showArgs,
  async () => (await import("./config-show.ts")).showConfig,
);

const get = lazyCommand(
  "get",
  "Print one setting (JSON for objects; keys masked); exit 1 when unset",
  getArgs,
  async () => (await import("./config-show.ts")).getConfig,
);

const set = lazyCommand(
  "set",
  "Set a setting in config.json (validated first); api_key goes to keys.json",
  setArgs,
  async () => (await import("./config-set.ts")).setConfig,
);

const unset = lazyCommand(
  "unset",
  "Remove a setting (an api_key from keys.json)",
  unsetArgs,
  async () => (await import("./config-set.ts")).unsetConfig,
);

const path = lazyCommand(
  "path",
  "Where ion keeps its config, keys, project file, data and cache",
  pathArgs,
  async () => (await import("./config-show.ts")).printPaths,
);

const init = lazyCommand(
  "init",
  "First-time setup: pick a provider, a key and a model (needs a terminal)",
  initArgs,
  async () => (await import("./config-set.ts")).initConfig,
);

const trust = lazyCommand(
  "trust",
  "Trust a project: its .mcp.json, hooks, MCP servers and base URLs load (shows what will run)",
  trustArgs,
  async () => (await import("./config-trust.ts")).trustCommand,
);

const SUBCOMMANDS = { show, get, set, unset, path, init, trust };

export default defineCommand({
  meta: { name: "config", description: "Show, get, set and unset settings; first-time setup; project trust" },
  // Declared here too so that `ion config --json` reaches the default subcommand.
  args: showArgs,
  subCommands: SUBCOMMANDS,
  default: "show",
  setup({ rawArgs }) {
    guardSubcommand("config", rawArgs, SUBCOMMANDS);
  },
});
