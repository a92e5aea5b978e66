import { type ArgsDef, defineCommand } from "citty";
import { guardSubcommand, lazyCommand } from "./_shared.ts";

/** Flag definitions only: `ion providers --help` loads no config. The work is in providers-*.ts. */
export const listArgs = {
  json: { type: "boolean", description: "Print a JSON array instead of a table" },
} as const satisfies ArgsDef;

export const loginArgs = {
  id: { type: "positional", required: false, description: "Provider id, e.g. openai (required)" },
} as const satisfies ArgsDef;

export const logoutArgs = loginArgs;

const list = lazyCommand(
  "list",
  "Every provider: wire, base URL, and where its key comes from (the default)",
  listArgs,
  async () => (await import("./providers-list.ts")).listProviders,
);

const login = lazyCommand(
  "login",
  "Store a provider's API key in keys.json (masked prompt; or the first line of stdin)",
  loginArgs,
  async () => (await import("./providers-login.ts")).login,
);

const logout = lazyCommand(
  "logout",
  "Remove a provider's API key from keys.json",
  logoutArgs,
  async () => (await import("./providers-login.ts")).logout,
);

const SUBCOMMANDS = { list, login, logout };

export default defineCommand({
  meta: {
    name: "providers",
    description: "Known providers and where each one's key comes from; log in and out",
  },
  // Declared here too so that `ion providers --json` reaches the default subcommand.
  args: listArgs,
  subCommands: SUBCOMMANDS,
  default: "list",
  setup({ rawArgs }) {
    guardSubcommand("providers", rawArgs, SUBCOMMANDS);
  },
});
