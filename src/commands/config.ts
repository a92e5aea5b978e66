import { type ArgsDef, defineCommand } from "citty";
import { IonError } from "../errors.ts";

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

const show = defineCommand({
  meta: {
    name: "show",
    description: "Every setting in effect and where it comes from; keys masked (the default)",
  },
  args: showArgs,
  async run({ rawArgs }) {
    const { showConfig } = await import("./config-show.ts");
    await showConfig(rawArgs);
  },
});

const get = defineCommand({
  meta: { name: "get", description: "Print one setting (JSON for objects; keys masked); exit 1 when unset" },
  args: getArgs,
  async run({ rawArgs }) {
    const { getConfig } = await import("./config-show.ts");
    await getConfig(rawArgs);
  },
});

const set = defineCommand({
  meta: {
    name: "set",
    description: "Set a setting in config.json (validated first); api_key goes to keys.json",
  },
  args: setArgs,
  async run({ rawArgs }) {
    const { setConfig } = await import("./config-set.ts");
    await setConfig(rawArgs);
  },
});

const unset = defineCommand({
  meta: { name: "unset", description: "Remove a setting (an api_key from keys.json)" },
  args: unsetArgs,
  async run({ rawArgs }) {
    const { unsetConfig } = await import("./config-set.ts");
    await unsetConfig(rawArgs);
  },
});

const path = defineCommand({
  meta: { name: "path", description: "Where ion keeps its config, keys, project file, data and cache" },
  args: pathArgs,
  async run({ rawArgs }) {
    const { printPaths } = await import("./config-show.ts");
    await printPaths(rawArgs);
  },
});

const init = defineCommand({
  meta: {
    name: "init",
    description: "First-time setup: pick a provider, a key and a model (needs a terminal)",
  },
  args: initArgs,
  async run({ rawArgs }) {
    const { initConfig } = await import("./config-set.ts");
    await initConfig(rawArgs);
  },
});

const SUBCOMMANDS = { show, get, set, unset, path, init };

export default defineCommand({
  meta: { name: "config", description: "Show, get, set and unset settings; first-time setup" },
  // Declared here too so that `ion config --json` reaches the default subcommand.
  args: showArgs,
  subCommands: SUBCOMMANDS,
  default: "show",
  setup({ rawArgs }) {
    // citty would report an unknown subcommand as an internal error (exit 1); it is a usage error (64).
    const at = rawArgs.findIndex((arg) => !arg.startsWith("-"));
    const name = rawArgs[at];
    const hint = `subcommands: ${Object.keys(SUBCOMMANDS).join(", ")}; see \`ion config --help\``;
    if (name === undefined) return; // `ion config [--json]`: show checks its own flags
    if (!Object.hasOwn(SUBCOMMANDS, name))
      throw new IonError("usage", `unknown subcommand "${name}" for "ion config"`, { hint });
    // citty would drop flags given before the subcommand's name.
    if (at > 0)
      throw new IonError("usage", `ion config: put ${rawArgs[0]} after the subcommand`, {
        hint: `e.g. \`ion config ${name} ${rawArgs.slice(0, at).join(" ")}\`; ${hint}`,
      });
  },
});
