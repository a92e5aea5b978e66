import { loadCatalog, type ModelInfo, searchModels } from "../catalog/catalog.ts";
import { knownProviderIds } from "../config/resolve.ts";
import { IonError } from "../errors.ts";
import { colorEnabled, createStyle } from "../ui/style.ts";
import { type Cell, type Column, renderTable } from "../ui/table.ts";
import { fdWriter } from "../util/fd-writer.ts";
import { formatTokens } from "../util/numbers.ts";
import { loadSettings, terminal } from "./_settings.ts";
import { parseStrict } from "./_shared.ts";
import { modelsArgs } from "./models.ts";

/** One element of `ion models --json` (SPEC §4), fields in this order. */
export type ModelListItem = Pick<
  ModelInfo,
  | "id"
  | "provider"
  | "model"
  | "name"
  | "context"
  | "output"
  | "input_cost"
  | "output_cost"
  | "cache_read_cost"
  | "cache_write_cost"
  | "tool_call"
  | "reasoning"
  | "release_date"
  | "configured"
>;

const COLUMNS: Column[] = [
  { header: "Model", minWidth: 12 },
  { header: "Provider" },
  { header: "Context", align: "right" },
  { header: "Output", align: "right" },
  { header: "In $/1M", align: "right" },
  { header: "Out $/1M", align: "right" },
  { header: "Caps" },
];

/**
 * `ion models [QUERY] [--provider P] [--all] [--fav] [--json] [--refresh]`. Without a query: by provider,
 * newest release first (see sortModels); with one: best match first. Only configured providers' models (a
 * key, or for ollama a host) unless `--all` or `--provider` names one; with none configured, the whole
 * catalogue. Favourites (config `favorites`) are starred; `--fav` lists only them (models-fav.ts).
 * Catalogue warnings and notes go to stderr.
 */
export async function listModels(rawArgs: string[]): Promise<void> {
  // Printed through fd writers, not process.stdout/stderr (util/fd-writer.ts: ~2–4 ms of start-up).
  const stdout = fdWriter("stdout");
  const stderr = fdWriter("stderr");
  const args = parseStrict("models", rawArgs, modelsArgs, Number.POSITIVE_INFINITY);
  const query = args._.join(" ").trim(); // `ion models claude sonnet`: the words are one query
  const env = process.env;
  const { config, keys } = await loadSettings(env, (line) => stderr.write(line));
  const provider = typeof args.provider === "string" ? args.provider : undefined;
  if (provider !== undefined && !knownProviderIds(config).includes(provider))
    throw new IonError("usage", `unknown provider "${provider}" for --provider`, {
      hint: `known providers: ${knownProviderIds(config).join(", ")}`,
    });

  const options = { config, keys, env, refresh: args.refresh === true };
  if (args.fav === true) {
    const { listFavorites } = await import("./models-fav.ts");
    await listFavorites({ options, provider, query, json: args.json === true, stdout, stderr });
    return;
  }

  const catalog = await loadCatalog(options);
  for (const warning of catalog.warnings) stderr.write(`ion: warning: ${warning}\n`);

  const pool =
    provider === undefined ? catalog.models : catalog.models.filter((m) => m.provider === provider);
  const showAll = args.all === true || provider !== undefined || !catalog.models.some((m) => m.configured);
  const order = knownProviderIds(config);
  const match = (models: ModelInfo[]) =>
    query === "" ? sortModels(models, order) : searchModels(models, query);
  const shown = match(showAll ? pool : pool.filter((m) => m.configured));

  const note = noteFor({ models: catalog.models, pool, shown, query, all: args.all === true, showAll });
  if (args.json === true) {
    stdout.write(`${JSON.stringify(shown.map(toItem), null, 2)}\n`);
  } else if (shown.length === 0) {
    const what = query === "" ? "no models" : `no models match "${query}"`;
    stderr.write(`${what}${provider === undefined ? "" : ` for ${provider}`}\n`);
  } else {
    // Loaded only for a user with favourites: the plain listing is what bench/models.ts times.
    const starred = config.favorites?.length
      ? (await import("../catalog/favorites.ts")).favoriteIds(catalog.models, config.favorites)
      : new Set<string>();
    stdout.write(table(shown, starred));
  }
  if (note !== "") stderr.write(`note: ${note}\n`);
}

/** The stderr note on what is not shown; "" when there is nothing to say. */
function noteFor(o: {
  models: ModelInfo[];
  pool: ModelInfo[];
  shown: ModelInfo[];
  query: string;
  all: boolean;
  showAll: boolean;
}): string {
  if (!o.models.some((m) => m.configured))
    return o.all || o.models.length === 0
      ? ""
      : "no provider has a key yet, so this is every model models.dev knows; `ion providers login <id>` adds one";
  if (o.showAll) return "";
  const others = o.pool.filter((m) => !m.configured);
  const models = (n: number) => (n === 1 ? "model" : "models");
  if (o.query === "")
    return others.length === 0
      ? ""
      : `${others.length} more ${models(others.length)} of providers without a key; --all lists them`;
  // With a query the others are searched only when nothing matched: fuzzy search is the slow part of a
  // warm-cache run (~50 µs a model), and there are usually far more of them than of configured ones.
  if (o.shown.length > 0) return "";
  const found = searchModels(others, o.query).length;
  if (found === 0) return "";
  return `${found} ${models(found)} of providers without a key ${found === 1 ? "matches" : "match"}; --all lists them`;
}

/**
 * The table; when a row is starred, each Model cell starts with `* ` or two spaces: ASCII, so it reads
 * the same without colour, in a pipe and at any terminal's idea of a symbol's width. A favourite the
 * catalogue does not list (`unlisted`) says so in its Caps cell.
 */
export function table(shown: ModelInfo[], starred: Set<string>, unlisted = new Set<string>()): string {
  const { isTTY, width } = terminal();
  const style = createStyle(colorEnabled(isTTY));
  const marks = shown.some((m) => starred.has(m.id));
  const rows = shown.map((m): Cell[] => {
    const cells = [
      marks ? `${starred.has(m.id) ? "*" : " "} ${m.id}` : m.id,
      m.configured ? m.provider : `${m.provider} (no key)`,
      m.context === null ? "unknown" : tokens(m.context), // SPEC §4: an unknown window is said, not dashed
      tokens(m.output),
      price(m.input_cost),
      price(m.output_cost),
      unlisted.has(m.id) ? "unknown: not in the catalogue" : caps(m),
    ];
    return m.configured ? cells : cells.map((text) => ({ text, style: style.dim }));
  });
  return renderTable(COLUMNS, rows, { width, headerStyle: isTTY ? style.dim : undefined });
}

/**
 * Ids and dates compared as written: localeCompare's first call loads ICU's collator (~0.5 ms), and
 * ids are lowercase ASCII in practice.
 */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Configured providers first, then in `order` (`ion providers`' order: built-ins, then custom ones),
 * then newest release first (unknown dates last), then by id.
 */
export function sortModels(models: ModelInfo[], order: string[]): ModelInfo[] {
  const rank = (provider: string) => {
    const at = order.indexOf(provider);
    return at < 0 ? order.length : at;
  };
  return [...models].sort(
    (a, b) =>
      Number(b.configured) - Number(a.configured) ||
      rank(a.provider) - rank(b.provider) ||
      byCodePoint(a.provider, b.provider) ||
      byCodePoint(b.release_date ?? "", a.release_date ?? "") ||
      byCodePoint(a.id, b.id),
  );
}

export function toItem(m: ModelInfo): ModelListItem {
  return {
    id: m.id,
    provider: m.provider,
    model: m.model,
    name: m.name,
    context: m.context,
    output: m.output,
    input_cost: m.input_cost,
    output_cost: m.output_cost,
    cache_read_cost: m.cache_read_cost,
    cache_write_cost: m.cache_write_cost,
    tool_call: m.tool_call,
    reasoning: m.reasoning,
    release_date: m.release_date,
    configured: m.configured,
  };
}

/** 200000 → "200k", 1047576 → "1M", 8192 → "8.2k", 1500000 → "1.5M"; unknown (or 0) → "-". */
export function tokens(n: number | null): string {
  return n === null || n <= 0 ? "-" : formatTokens(n);
}

/** $ per 1M tokens: 3 → "$3.00", 0.125 → "$0.125", 0.0375 → "$0.0375"; unknown → "-". */
export function price(n: number | null): string {
  if (n === null) return "-";
  const [whole, fraction = ""] = n.toFixed(4).replace(/0+$/, "").split(".");
  return `$${whole}.${fraction.padEnd(2, "0")}`;
}

function caps(m: ModelInfo): string {
  const list = [
    m.tool_call === true ? "tools" : "",
    m.reasoning === true ? "reasoning" : "",
    m.image_input === true ? "images" : "",
  ];
  return list.filter((c) => c !== "").join(",") || "-";
}
