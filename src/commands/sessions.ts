import { type ArgsDef, defineCommand } from "citty";
import { guardSubcommand, lazyCommand } from "./_shared.ts";

/** Flag definitions only: `ion sessions --help` loads no store, codec or config. The work is in sessions-*.ts. */
export const listArgs = {
  json: { type: "boolean", description: "Print a JSON array instead of a table" },
  all: { type: "boolean", alias: "a", description: "Sessions of every directory, not just this one" },
  cwd: {
    type: "string",
    valueHint: "dir",
    description: "Sessions of this directory instead of the current one",
  },
} as const satisfies ArgsDef;

export const showArgs = {
  id: { type: "positional", required: false, description: "Session id or a unique prefix of it (required)" },
  json: { type: "boolean", description: "Print the header and every entry as JSON" },
  last: {
    type: "boolean",
    description: "Print only the last answer (the final assistant text), for scripts",
  },
} as const satisfies ArgsDef;

export const searchArgs = {
  query: { type: "positional", required: false, description: "Text to find, case-insensitive (required)" },
  json: { type: "boolean", description: "Print a JSON array of matches instead of text" },
  all: { type: "boolean", alias: "a", description: "Sessions of every directory, not just this one" },
  cwd: {
    type: "string",
    valueHint: "dir",
    description: "Sessions of this directory instead of the current one",
  },
} as const satisfies ArgsDef;

export const rmArgs = {
  id: { type: "positional", required: false, description: "Session id or a unique prefix of it (required)" },
} as const satisfies ArgsDef;

export const exportArgs = {
  id: { type: "positional", required: false, description: "Session id or a unique prefix of it (required)" },
  output: {
    type: "string",
    alias: "o",
    valueHint: "file",
    description: "Write the Markdown to this file instead of stdout",
  },
} as const satisfies ArgsDef;

const list = lazyCommand(
  "list",
  "Sessions of this directory, newest first (the default)",
  listArgs,
  async () => (await import("./sessions-list.ts")).listSessions,
);

const show = lazyCommand(
  "show",
  "Print a whole transcript, compacted-away messages included",
  showArgs,
  async () => (await import("./sessions-show.ts")).showSession,
);

const search = lazyCommand(
  "search",
  "Find text in saved sessions (titles and messages), newest first",
  searchArgs,
  async () => (await import("./sessions-search.ts")).searchSessions,
);

const rm = lazyCommand(
  "rm",
  "Delete one session",
  rmArgs,
  async () => (await import("./sessions-show.ts")).removeSession,
);

const exportCommand = lazyCommand(
  "export",
  "A session as Markdown, on stdout or into a file",
  exportArgs,
  async () => (await import("./sessions-show.ts")).exportSession,
);

const SUBCOMMANDS = { list, show, search, rm, export: exportCommand };

export default defineCommand({
  meta: { name: "sessions", description: "List, show, search, export and delete saved sessions" },
  // Declared here too so that `ion sessions --json` reaches the default subcommand.
  args: listArgs,
  subCommands: SUBCOMMANDS,
  default: "list",
  setup({ rawArgs }) {
    guardSubcommand("sessions", rawArgs, SUBCOMMANDS);
  },
});
