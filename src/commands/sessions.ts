import { type ArgsDef, defineCommand } from "citty";
import { IonError } from "../errors.ts";

/** Flag definitions only: `ion sessions --help` loads no store, codec or config. The work is in sessions-*.ts. */
export const listArgs = {
  json: { type: "boolean", description: "Print a JSON array instead of a table" },
  all: { type: "boolean", alias: "a", description: "Sessions of every directory, not just this one" },
  cwd: { type: "string", description: "Sessions of this directory instead of the current one" },
} as const satisfies ArgsDef;

export const showArgs = {
  id: { type: "positional", required: false, description: "Session id or a unique prefix of it (required)" },
  json: { type: "boolean", description: "Print the header and every entry as JSON" },
} as const satisfies ArgsDef;

export const rmArgs = {
  id: { type: "positional", required: false, description: "Session id or a unique prefix of it (required)" },
} as const satisfies ArgsDef;

export const exportArgs = {
  id: { type: "positional", required: false, description: "Session id or a unique prefix of it (required)" },
  output: { type: "string", alias: "o", description: "Write the Markdown to this file instead of stdout" },
} as const satisfies ArgsDef;

const list = defineCommand({
  meta: { name: "list", description: "Sessions of this directory, newest first (the default)" },
  args: listArgs,
  async run({ rawArgs }) {
    const { listSessions } = await import("./sessions-list.ts");
    await listSessions(rawArgs);
  },
});

const show = defineCommand({
  meta: { name: "show", description: "Print a whole transcript, compacted-away messages included" },
  args: showArgs,
  async run({ rawArgs }) {
    const { showSession } = await import("./sessions-show.ts");
    await showSession(rawArgs);
  },
});

const rm = defineCommand({
  meta: { name: "rm", description: "Delete one session" },
  args: rmArgs,
  async run({ rawArgs }) {
    const { removeSession } = await import("./sessions-show.ts");
    await removeSession(rawArgs);
  },
});

const exportCommand = defineCommand({
  meta: { name: "export", description: "A session as Markdown, on stdout or into a file" },
  args: exportArgs,
  async run({ rawArgs }) {
    const { exportSession } = await import("./sessions-show.ts");
    await exportSession(rawArgs);
  },
});

const SUBCOMMANDS = { list, show, rm, export: exportCommand };

export default defineCommand({
  meta: { name: "sessions", description: "List, show, export and delete saved sessions" },
  subCommands: SUBCOMMANDS,
  default: "list",
  setup({ rawArgs }) {
    // citty would report these as internal errors (exit 1); they are usage errors (exit 64).
    const [name] = rawArgs;
    const hint = `subcommands: ${Object.keys(SUBCOMMANDS).join(", ")}; see \`ion sessions --help\``;
    if (name === undefined || Object.hasOwn(SUBCOMMANDS, name)) return;
    if (name.startsWith("-"))
      throw new IonError("usage", `ion sessions: name a subcommand before ${name}`, {
        hint: `e.g. \`ion sessions list ${name}\`; ${hint}`,
      });
    throw new IonError("usage", `unknown subcommand "${name}" for "ion sessions"`, { hint });
  },
});
