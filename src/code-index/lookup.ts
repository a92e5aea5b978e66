import { join } from "node:path";
import type { Env } from "../config/paths.ts";
import type { Message } from "../providers/types.ts";
import type { SymbolsRequest } from "../tools/symbols.ts";
import type { ToolUpdate } from "../tools/types.ts";
import { countedGrouped } from "../util/numbers.ts";
import { readProjectFile } from "../util/project-file.ts";
import {
  ANSWER_MAX_LINES,
  cappedLines,
  definitionLine,
  outlineLine,
  referenceLine,
  updateWarnings,
} from "./answer-lines.ts";
import { conversationText, DEFAULT_MAP_TOKENS, focusFrom } from "./map-focus.ts";
import { type OpenedProject, openProject } from "./project-index.ts";
import { type MapFocus, renderRepoMap } from "./repo-map.ts";

/**
 * The `symbols` tool's work, loaded on its first call: bring the project's index up to date (building
 * it the first time), then answer from it.
 *
 *   answerSymbols({ action: "definition", name: "withRetry" }, { root, env, … })
 *     → "src/net/retry.ts:12  function  export async function withRetry<T>(…) {  (lines 12-40)"
 */

export interface LookupOptions {
  root: string;
  env: Env;
  signal: AbortSignal;
  /** The conversation so far: the map leans toward the files and names it mentions. */
  conversation: readonly Message[];
  onUpdate?(update: ToolUpdate): void;
}

/** How long a call may spend bringing the index up to date (a first build of a large project) before it answers. */
const REFRESH_LIMIT_MS = 60_000;
/** Hits asked of the index at most: enough to count past the cap and say how many more. */
const LOOKUP_LIMIT = 1000;
/** A larger file's references are shown without their line's text (the index skips such files anyway). */
const MAX_FILE_BYTES = 1024 * 1024;

export async function answerSymbols(request: SymbolsRequest, options: LookupOptions): Promise<string> {
  const project = openProject(options.root, options.env);
  const notes = [...project.warnings.splice(0)];
  const limit = AbortSignal.timeout(REFRESH_LIMIT_MS);
  const building = project.unbuilt;
  try {
    const summary = await project.refresh({
      signal: AbortSignal.any([options.signal, limit]),
      onProgress: (done, total) => options.onUpdate?.({ output_tail: `indexing: ${done}/${total} files` }),
    });
    notes.push(...updateWarnings(summary).map((warning) => `(${warning})`));
    if (building)
      notes.push(
        `(built the index: ${countedGrouped(summary.files, "file")}, ${countedGrouped(summary.symbols, "definition")})`,
      );
  } catch (err) {
    if (!limit.aborted || options.signal.aborted) throw err;
    // What was parsed so far is stored (a batch at a time): the answer covers it, the next call goes on.
    notes.push(
      `(the index is incomplete: updating it took over ${REFRESH_LIMIT_MS / 1000} s, so this answer covers only the files indexed so far; the next call continues, or the user can run \`ion index\`)`,
    );
  }
  const answer = answerFrom(project, request, options);
  return [...notes, answer].join("\n");
}

function answerFrom(project: OpenedProject, request: SymbolsRequest, options: LookupOptions): string {
  const { index } = project;
  switch (request.action) {
    case "definition":
      return definitions(project, request.name ?? "", request.path);
    case "references":
      return references(project, request.name ?? "", request.path, options.root);
    case "outline": {
      const path = request.path ?? "";
      const hits = index.outline(path);
      if (hits.length === 0)
        return `${path}: no definitions in the index (not a TypeScript, JavaScript, Python, Rust or Go file, ignored by .gitignore, skipped, or missing); use read_file`;
      return cappedLines(hits.map(outlineLine), hits.length, "read_file the file for the rest");
    }
    case "map": {
      const graph = index.fileGraph();
      const focus = mergeFocus(focusFrom(conversationText(options.conversation), graph), request);
      const map = renderRepoMap(graph, { tokens: request.tokens ?? DEFAULT_MAP_TOKENS, focus });
      return map.text === "" ? "The index holds no definitions: nothing to map." : map.text;
    }
  }
}

/** Whether `path` is the file `scope` or lies below the directory `scope`; every path when no scope. */
function inScope(path: string, scope: string | undefined): boolean {
  return scope === undefined || scope === "." || path === scope || path.startsWith(`${scope}/`);
}

/** ` in src/net` for an answer narrowed to a path, else nothing. */
function where(scope: string | undefined): string {
  return scope === undefined || scope === "." ? "" : ` in ${scope}`;
}

/** `withRetry`, or `AgentSession.turn` for a method of that class; in `scope` (a file or directory) when given. */
function definitions(project: OpenedProject, query: string, scope: string | undefined): string {
  const { index } = project;
  const dot = query.lastIndexOf(".");
  if (dot > 0 && dot < query.length - 1) {
    const [parent, name] = [query.slice(0, dot), query.slice(dot + 1)];
    const members = index
      .definitions(name, { limit: LOOKUP_LIMIT })
      .filter((hit) => hit.parent === parent && inScope(hit.path, scope));
    if (members.length > 0)
      return cappedLines(members.map(definitionLine), members.length, "read the outline");
  }
  const scoped = where(scope) !== "";
  const found = index.findDefinitions(query, { limit: scoped ? LOOKUP_LIMIT : ANSWER_MAX_LINES });
  const hits = found.hits.filter((hit) => inScope(hit.path, scope));
  const total = scoped ? hits.length : found.total;
  const lines = cappedLines(hits.map(definitionLine), total, "give the exact name, `Class.name`, or a path");
  if (hits.length === 0 && found.match !== "none")
    return `No definition named ${query} or close to it${where(scope)}; ${found.total} elsewhere (leave out path to see them).`;
  switch (found.match) {
    case "exact":
      return lines;
    case "case-insensitive":
      return `No definition named ${query}${where(scope)} in this case; in another case:\n${lines}`;
    case "fuzzy":
      return `No definition named ${query}${where(scope)}; the closest names:\n${lines}`;
    case "none":
      return `No definition named ${query} in the index, nor any close name. Try references, or grep for text.`;
  }
}

function references(project: OpenedProject, name: string, scope: string | undefined, root: string): string {
  const scoped = where(scope) !== "";
  const found = project.index.findReferences(name, { limit: scoped ? LOOKUP_LIMIT : ANSWER_MAX_LINES });
  const hits = found.hits.filter((hit) => inScope(hit.path, scope));
  const total = scoped ? hits.length : found.total;
  if (total === 0)
    return `No references to ${name}${where(scope)} in the index (calls and type uses in the indexed languages). Try grep for text.`;
  const texts = new Map<string, string[] | undefined>();
  const lines = hits.slice(0, ANSWER_MAX_LINES).map((hit) => {
    if (!texts.has(hit.path)) texts.set(hit.path, fileLines(join(root, hit.path), root));
    return referenceLine({ ...hit, within: hit.enclosing?.name, text: texts.get(hit.path)?.[hit.line - 1] });
  });
  return cappedLines(lines, total, "give a path to look in one directory or file");
}

/**
 * A file's lines for quoting references, read as the index reads it (inside the project, a regular
 * file of the user's, at most 1 MiB); undefined when it cannot be (the hit is shown without its text).
 */
function fileLines(path: string, root: string): string[] | undefined {
  const read = readProjectFile(path, root, MAX_FILE_BYTES);
  return read.kind === "bytes" ? new TextDecoder().decode(read.bytes).split("\n") : undefined;
}

function mergeFocus(found: MapFocus, request: SymbolsRequest): MapFocus {
  return {
    files: [...(found.files ?? []), ...(request.path ? [request.path] : [])],
    names: [...(found.names ?? []), ...(request.name ? [request.name] : [])],
  };
}
