import { pageRank, type WeightedEdge } from "./pagerank.ts";

/**
 * The repo map: the project's most central files with their most telling definitions, cut to a token
 * budget (chars/4). Files are ranked by a PageRank over the file graph — a file that references a name
 * points to the files that define it, so what much of the code uses ranks first — personalised toward
 * the files and names a conversation mentions (aider's repo map does the same).
 *
 *   renderRepoMap(graph, { tokens: 1000, focus: { files: ["src/a.ts"], names: ["retry"] } })
 *     → { text: "src/a.ts\n  12: export function retry(…\n…", files: 8, symbols: 40 }
 */

/** A definition as the map shows it. */
export interface MapSymbol {
  name: string;
  kind: string;
  line: number;
  signature: string;
  parent?: string | undefined;
}

/** The file graph: paths relative to the root, weighted reference edges, each file's definitions. */
export interface RepoGraph {
  files: readonly string[];
  /** `[referencing file, defining file, weight]` (the number of references), by path. */
  edges: readonly (readonly [string, string, number])[];
  definitionsByFile: ReadonlyMap<string, readonly MapSymbol[]>;
}

/** What the conversation is about: files named in it, and names of definitions it mentions. */
export interface MapFocus {
  files?: readonly string[];
  names?: readonly string[];
}

export interface RepoMapOptions {
  /** The budget in tokens, counted as characters / 4. */
  tokens: number;
  focus?: MapFocus;
  /** A first line, counted in the budget (left out when even it does not fit). */
  heading?: string;
}

export interface RepoMap {
  text: string;
  /** Files and definitions shown. */
  files: number;
  symbols: number;
}

/** Characters of a signature shown at most: the map is for finding code, read_file shows the rest. */
const SIGNATURE_CHARS = 120;
/** A file contributes at most this many of its definitions (the map is a survey, not an outline). */
const MAX_PER_FILE = 24;
/** A file's k-th best definition counts SPREAD^k of its rank (the best counts it all). */
const SPREAD = 0.6;
/** How much more a mentioned name counts than another definition of its file. */
const NAME_BOOST = 10;
/** The share of PageRank's restarts that go to the conversation's files and names when it names any. */
const FOCUS_SHARE = 0.6;

export function renderRepoMap(graph: RepoGraph, options: RepoMapOptions): RepoMap {
  const budget = Math.max(0, Math.floor(options.tokens * 4));
  const heading = options.heading ? `${options.heading}\n` : "";
  const empty: RepoMap = { text: "", files: 0, symbols: 0 };
  if (heading.length >= budget) return empty;
  const ranks = fileRanks(graph, options.focus);
  const names = new Set(options.focus?.names ?? []);
  const order = graph.files
    .map((path, index) => ({ path, rank: ranks[index]! }))
    .filter(({ path }) => (graph.definitionsByFile.get(path)?.length ?? 0) > 0)
    .sort((a, b) => b.rank - a.rank || a.path.localeCompare(b.path));

  // Candidates: each file's best definitions, scored by its rank; only as many files as could show a
  // line each, so a large project costs no more than a small one.
  const candidates: { path: string; symbol: MapSymbol; line: string; score: number }[] = [];
  let reach = 0;
  for (const { path, rank } of order) {
    if (reach > budget * 2) break;
    const symbols = bestSymbols(graph.definitionsByFile.get(path) ?? [], names);
    reach += path.length + 1 + (symbols[0] ? symbolLine(symbols[0].symbol).length : 0);
    for (const { symbol, weight } of symbols)
      candidates.push({ path, symbol, line: symbolLine(symbol), score: rank * weight });
  }
  candidates.sort(
    (a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.symbol.line - b.symbol.line,
  );

  let used = heading.length;
  const chosen = new Map<string, MapSymbol[]>();
  for (const candidate of candidates) {
    const shown = chosen.get(candidate.path);
    const cost = candidate.line.length + (shown ? 0 : candidate.path.length + 1);
    if (used + cost > budget) continue;
    used += cost;
    if (shown) shown.push(candidate.symbol);
    else chosen.set(candidate.path, [candidate.symbol]);
  }
  if (chosen.size === 0) return empty;

  // Files in the order their best line was chosen: by rank, a mentioned name lifting its file.
  const blocks: string[] = [];
  let symbols = 0;
  for (const [path, shown] of chosen) {
    shown.sort((a, b) => a.line - b.line);
    symbols += shown.length;
    blocks.push(`${path}\n${shown.map(symbolLine).join("")}`);
  }
  return { text: `${heading}${blocks.join("")}`.trimEnd(), files: chosen.size, symbols };
}

/** One definition's line: its line number and signature, nested ones (a class's methods) indented. */
function symbolLine(symbol: MapSymbol): string {
  const signature = symbol.signature.replace(/\s+/g, " ").trim() || `${symbol.kind} ${symbol.name}`;
  const cut = signature.length <= SIGNATURE_CHARS ? signature : `${signature.slice(0, SIGNATURE_CHARS - 1)}…`;
  return `  ${symbol.line}:${symbol.parent ? "   " : " "}${cut}\n`;
}

/**
 * A file's definitions worth showing, best first, each with a weight: top-level definitions before
 * nested ones, types and functions before constants and fields, a file's earlier definitions before
 * later ones — the best at 1, each next one less — and a mentioned name NAME_BOOST times its own
 * weight, lifting its file.
 */
function bestSymbols(
  definitions: readonly MapSymbol[],
  names: ReadonlySet<string>,
): { symbol: MapSymbol; weight: number }[] {
  const kinds = new Map<string, string>();
  for (const { name, kind } of definitions) if (!kinds.has(name)) kinds.set(name, kind);
  // A helper inside a function is its detail, not the file's surface.
  const local = (symbol: MapSymbol) =>
    symbol.parent !== undefined && LOCAL_PARENTS.has(kinds.get(symbol.parent) ?? "");
  const weighed = definitions
    .filter((symbol) => !local(symbol))
    .map((symbol, index) => {
      let weight = KIND_WEIGHT[symbol.kind] ?? 0.6;
      if (symbol.parent) weight *= 0.5;
      if (symbol.name.startsWith("_") || symbol.name.length < 3) weight *= 0.3;
      // Earlier definitions first among equals (a file usually opens with what it is about).
      weight *= 1 - index / (definitions.length * 10);
      return { symbol, weight, boost: names.has(symbol.name) ? NAME_BOOST : 1 };
    });
  if (weighed.length === 0) return [];
  const best = Math.max(...weighed.map(({ weight }) => weight));
  weighed.sort((a, b) => b.weight * b.boost - a.weight * a.boost);
  // Each further definition of a file counts less, so the map shows more files rather than all of one.
  return weighed
    .slice(0, MAX_PER_FILE)
    .map(({ symbol, weight, boost }, k) => ({ symbol, weight: (weight / best) * boost * SPREAD ** k }));
}

/** Kinds whose inner definitions are local helpers. */
const LOCAL_PARENTS: ReadonlySet<string> = new Set(["function", "method"]);

/** How telling a kind of definition is in a survey (tags.scm kinds; others count 0.6). */
const KIND_WEIGHT: Readonly<Record<string, number>> = {
  class: 1,
  interface: 1,
  type: 0.9,
  module: 0.9,
  function: 0.9,
  method: 0.8,
  macro: 0.8,
  constant: 0.5,
  field: 0.3,
  property: 0.3,
  variable: 0.3,
};

/** Each file's PageRank (indexed like `graph.files`), restarts leaning toward the focus. */
export function fileRanks(graph: RepoGraph, focus: MapFocus | undefined): Float64Array {
  const indexOf = new Map(graph.files.map((path, index) => [path, index]));
  const edges: WeightedEdge[] = [];
  for (const [from, to, weight] of graph.edges) {
    const a = indexOf.get(from);
    const b = indexOf.get(to);
    if (a !== undefined && b !== undefined) edges.push({ from: a, to: b, weight });
  }
  return pageRank(graph.files.length, edges, { personalization: personalization(graph, indexOf, focus) });
}

/**
 * Where PageRank restarts: every file alike, plus FOCUS_SHARE of all restarts split between the
 * focused files and the files defining the focused names (a name defined in many files gives each less).
 */
function personalization(
  graph: RepoGraph,
  indexOf: ReadonlyMap<string, number>,
  focus: MapFocus | undefined,
): number[] | undefined {
  const boost = new Map<number, number>();
  const add = (index: number, weight: number) => boost.set(index, (boost.get(index) ?? 0) + weight);
  for (const path of focus?.files ?? []) {
    const index = indexOf.get(path);
    if (index !== undefined) add(index, 1);
  }
  const names = new Set(focus?.names ?? []);
  if (names.size > 0) {
    const definers = new Map<string, number[]>();
    for (const [path, symbols] of graph.definitionsByFile) {
      const index = indexOf.get(path);
      if (index === undefined) continue;
      for (const symbol of symbols)
        if (names.has(symbol.name)) definers.set(symbol.name, [...(definers.get(symbol.name) ?? []), index]);
    }
    for (const files of definers.values()) for (const index of new Set(files)) add(index, 1 / files.length);
  }
  if (boost.size === 0) return undefined;
  const total = [...boost.values()].reduce((sum, weight) => sum + weight, 0);
  const count = graph.files.length;
  // Uniform part: (1 - FOCUS_SHARE) spread over all files; focused part: FOCUS_SHARE by boost.
  const weights = new Array<number>(count).fill((1 - FOCUS_SHARE) / count);
  for (const [index, weight] of boost) weights[index]! += (FOCUS_SHARE * weight) / total;
  return weights;
}
