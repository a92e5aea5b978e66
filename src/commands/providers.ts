import { type ArgsDef, defineCommand } from "citty";
import { IonError } from "../errors.ts";

/** Flag definitions only: `ion providers --help` loads no config. The work is in providers-*.ts. */
export const listArgs = {
  json: { type: "boolean", description: "Print a JSON array instead of a table" },
} as const satisfies ArgsDef;

export const loginArgs = {
  id: { type: "positional", required: false, description: "Provider id, e.g. openai (required)" },
} as const satisfies ArgsDef;

export const logoutArgs = loginArgs;

const list = defineCommand({
  meta: {
    name: "list",
    description: "Every provider: wire, base URL, and where its key comes from (the default)",
  },
  args: listArgs,
  async run({ rawArgs }) {
    const { listProviders } = await import("./providers-list.ts");
    await listProviders(rawArgs);
  },
});

const login = defineCommand({
  meta: {
    name: "login",
    description: "Store a provider's API key in keys.json (masked prompt; or the first line of stdin)",
  },
  args: loginArgs,
  async run({ rawArgs }) {
    const { login } = await import("./providers-login.ts");
    await login(rawArgs);
  },
});

const logout = defineCommand({
  meta: { name: "logout", description: "Remove a provider's API key from keys.json" },
  args: logoutArgs,
  async run({ rawArgs }) {
    const { logout } = await import("./providers-login.ts");
    await logout(rawArgs);
  },
});

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
    // citty would report an unknown subcommand as an internal error (exit 1); it is a usage error (64).
    const at = rawArgs.findIndex((arg) => !arg.startsWith("-"));
    const name = rawArgs[at];
    const hint = `subcommands: ${Object.keys(SUBCOMMANDS).join(", ")}; see \`ion providers --help\``;
    if (name === undefined) return; // `ion providers [--json]`: the list checks its own flags
    if (!Object.hasOwn(SUBCOMMANDS, name))
      throw new IonError("usage", `unknown subcommand "${name}" for "ion providers"`, { hint });
    // citty would drop options given before the subcommand's name.
    if (at > 0)
      throw new IonError("usage", `unexpected ${rawArgs[0]} before "${name}" for "ion providers"`, {
        hint: `options go after the subcommand; see \`ion providers ${name} --help\``,
      });
  },
});
