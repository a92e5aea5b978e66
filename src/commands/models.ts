import { type ArgsDef, defineCommand } from "citty";

/** Flag definitions only: `ion models --help` loads no config or catalogue. The work is in models-list.ts. */
export const modelsArgs = {
  query: {
    type: "positional",
    required: false,
    description: "Fuzzy search over model ids and names (e.g. sonet); results best match first",
  },
  provider: {
    type: "string",
    alias: "p",
    description: "Only this provider's models, with a key or not (e.g. anthropic)",
  },
  all: {
    type: "boolean",
    alias: "a",
    description: "Include the models of providers without a key, marked (no key)",
  },
  fav: {
    type: "boolean",
    description:
      "Only your favourites (config favorites), in their order, listed even when the catalogue lacks one",
  },
  json: { type: "boolean", description: "Print a JSON array instead of a table" },
  refresh: { type: "boolean", description: "Fetch the catalogue again instead of using the 24 h cache" },
} as const satisfies ArgsDef;

/**
 * `ion models [QUERY] [--provider P] [--all] [--fav] [--json] [--refresh]`: the model catalogue (each
 * configured provider's model list with models.dev metadata), from the cache when it is fresh;
 * favourites starred.
 */
export default defineCommand({
  meta: { name: "models", description: "List models with context, output and prices; fuzzy QUERY" },
  args: modelsArgs,
  async run({ rawArgs }) {
    const { listModels } = await import("./models-list.ts");
    await listModels(rawArgs);
  },
});
