import { type ArgsDef, defineCommand } from "citty";
import { IonError } from "../errors.ts";
import { lazyCommand } from "./_shared.ts";

/**
 * `ion index [PATH]` and its subcommands. Flag definitions only: `ion index --help` loads no database or
 * grammar. The work is in index-*.ts.
 */
export const buildArgs = {
  path: {
    type: "positional",
    required: false,
    description:
      "The project's directory (default: the current one); write ./status for a directory so named",
  },
} as const satisfies ArgsDef;

export const statusArgs = {
  json: { type: "boolean", description: "Print the figures as JSON" },
} as const satisfies ArgsDef;

export const symbolsArgs = {
  query: { type: "positional", required: false, description: "A name, or part of one (required)" },
  json: { type: "boolean", description: "Print a JSON array of definitions" },
} as const satisfies ArgsDef;

export const mapArgs = {
  tokens: {
    type: "string",
    valueHint: "n",
    description: "The map's size in tokens (default: config index.map_tokens, else 1000)",
  },
} as const satisfies ArgsDef;

const build = lazyCommand(
  "build",
  "Build or update the index of a project",
  buildArgs,
  async () => (await import("./index-build.ts")).buildIndex,
);
// `ion index PATH` is the way to say it; "build" is how citty reaches it.
build.meta = { name: "build", description: "Build or update the index of a project", hidden: true };

const status = lazyCommand(
  "status",
  "Where this directory's index is, what it holds and when it was updated",
  statusArgs,
  async () => (await import("./index-build.ts")).indexStatus,
);

const symbols = lazyCommand(
  "symbols",
  "Definitions whose name is QUERY, else the closest names",
  symbolsArgs,
  async () => (await import("./index-query.ts")).findSymbols,
);

const map = lazyCommand(
  "map",
  "The most central files and their main definitions, within a token budget",
  mapArgs,
  async () => (await import("./index-query.ts")).printMap,
);

const clear = lazyCommand(
  "clear",
  "Delete this directory's index",
  {},
  async () => (await import("./index-build.ts")).clearIndex,
);

const SUBCOMMANDS = { build, status, symbols, map, clear };

export default defineCommand({
  meta: {
    name: "index",
    description: "Build, update and query the code index of a project (symbols and the repo map)",
  },
  args: buildArgs,
  subCommands: SUBCOMMANDS,
  default: "build",
  setup({ rawArgs }) {
    const at = rawArgs.findIndex((arg) => !arg.startsWith("-"));
    const name = rawArgs[at];
    if (name === undefined) return;
    if (!Object.hasOwn(SUBCOMMANDS, name) || name === "build") {
      // A directory, not a subcommand: citty passes the arguments on only when they start with one.
      rawArgs.unshift("build");
      return;
    }
    if (at > 0)
      throw new IonError("usage", `unexpected ${rawArgs[0]} before "${name}" for "ion index"`, {
        hint: `options go after the subcommand: \`ion index ${name} ${rawArgs.slice(0, at).join(" ")}\``,
      });
  },
});
