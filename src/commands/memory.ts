import { type ArgsDef, defineCommand } from "citty";
import { guardSubcommand, lazyCommand } from "./_shared.ts";

/** Flag definitions only: `ion memory --help` loads no database. The work is in memory-*.ts. */
export const searchArgs = {
  query: { type: "positional", required: false, description: "What to look for (required)" },
  "as-of": {
    type: "string",
    valueHint: "date",
    description:
      "What ion knew then: memories learnt by and still valid at that date (YYYY-MM-DD or ISO time)",
  },
  limit: { type: "string", valueHint: "n", description: "At most this many (default 10)" },
  json: { type: "boolean", description: "Print a JSON array, each memory with its score parts" },
} as const satisfies ArgsDef;

export const listArgs = {
  type: {
    type: "string",
    valueHint: "episodic|semantic|procedural",
    description: "Only memories of this type",
  },
  since: {
    type: "string",
    valueHint: "date",
    description: "Only memories learnt since then (YYYY-MM-DD or ISO time)",
  },
  all: {
    type: "boolean",
    alias: "a",
    description: "Forgotten memories too (marked with the day they ended)",
  },
  limit: { type: "string", valueHint: "n", description: "At most this many, newest first (default 20)" },
  json: { type: "boolean", description: "Print a JSON array" },
} as const satisfies ArgsDef;

export const forgetArgs = {
  id: { type: "positional", required: false, description: "Memory id or a unique prefix of it (required)" },
  hard: {
    type: "boolean",
    description: "Delete it for good instead of ending its validity (--as-of will not find it either)",
  },
} as const satisfies ArgsDef;

export const statsArgs = {
  json: { type: "boolean", description: "Print the figures as JSON" },
} as const satisfies ArgsDef;

const list = lazyCommand(
  "list",
  "What ion remembers, newest first (the default)",
  listArgs,
  async () => (await import("./memory-list.ts")).listMemories,
);

const search = lazyCommand(
  "search",
  "Memories that match a query, best first, with why they ranked there",
  searchArgs,
  async () => (await import("./memory-search.ts")).searchMemories,
);

const forget = lazyCommand(
  "forget",
  "Stop recalling a memory (kept for --as-of); --hard deletes it",
  forgetArgs,
  async () => (await import("./memory-list.ts")).forgetMemory,
);

const stats = lazyCommand(
  "stats",
  "How many memories, the database's size, the embedding model, the last learnt",
  statsArgs,
  async () => (await import("./memory-stats.ts")).memoryStats,
);

const SUBCOMMANDS = { list, search, forget, stats };

export default defineCommand({
  meta: { name: "memory", description: "Search, list and forget what ion remembers across sessions" },
  // Declared here too so that `ion memory --json` reaches the default subcommand.
  args: listArgs,
  subCommands: SUBCOMMANDS,
  default: "list",
  setup({ rawArgs }) {
    guardSubcommand("memory", rawArgs, SUBCOMMANDS);
  },
});
