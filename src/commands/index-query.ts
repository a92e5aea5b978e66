import type { OpenedProject } from "../code-index/project-index.ts";
import { IonError } from "../errors.ts";
import { parsePositiveInt, parseStrict, tildePath } from "./_shared.ts";
import { mapArgs, symbolsArgs } from "./index.ts";
import { indexedRoot } from "./index-common.ts";

/** Lines of `ion index symbols` at most (as the `symbols` tool), and definitions of its --json. */
const SHOWN = 50;
const JSON_LIMIT = 1000;

/**
 * This directory's index, brought up to date first (a lookup is never older than the files); an
 * error when there is none: building one is `ion index`'s to do, and says what it did.
 */
async function upToDate(): Promise<OpenedProject> {
  const root = indexedRoot(process.cwd());
  const { existingIndex } = await import("../code-index/project-index.ts");
  const project = existingIndex(root, process.env);
  if (!project)
    throw new IonError("io", `no code index for ${tildePath(root)}`, { hint: "`ion index` builds one" });
  try {
    await project.refresh();
  } catch (err) {
    project.close();
    throw err;
  }
  for (const warning of project.warnings.splice(0)) process.stderr.write(`ion: warning: ${warning}\n`);
  return project;
}

/** `ion index symbols QUERY [--json]`: definitions named QUERY, else the closest names. */
export async function findSymbols(rawArgs: string[]): Promise<void> {
  const args = parseStrict("index symbols", rawArgs, symbolsArgs, 1);
  const query = args._.join(" ").trim();
  if (!query)
    throw new IonError("usage", "ion index symbols needs a QUERY", { hint: "e.g. `ion index symbols main`" });
  const project = await upToDate();
  try {
    const found = project.index.findDefinitions(query, { limit: args.json === true ? JSON_LIMIT : SHOWN });
    if (args.json === true) {
      const json = found.hits.map((hit) => ({
        path: hit.path,
        line: hit.line,
        end_line: hit.endLine,
        kind: hit.kind,
        name: hit.name,
        signature: hit.signature,
        parent: hit.parent ?? null,
        match: found.match,
      }));
      process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      return;
    }
    const { cappedLines, definitionLine } = await import("../code-index/answer-lines.ts");
    const { safeForTerminal } = await import("../util/terminal-text.ts");
    if (found.match === "none") {
      process.stderr.write(`no definition named or close to ${safeForTerminal(query)}\n`);
      return;
    }
    if (found.match !== "exact")
      process.stderr.write(`no definition named exactly ${safeForTerminal(query)}; the closest:\n`);
    const text = cappedLines(found.hits.map(definitionLine), found.total, `--json lists up to ${JSON_LIMIT}`);
    process.stdout.write(`${safeForTerminal(text)}\n`);
  } finally {
    project.close();
  }
}

/** `ion index map [--tokens N]`: the repo map of this directory's project. */
export async function printMap(rawArgs: string[]): Promise<void> {
  const args = parseStrict("index map", rawArgs, mapArgs, 0);
  let tokens = args.tokens === undefined ? undefined : parsePositiveInt("--tokens", args.tokens);
  if (tokens === undefined) {
    const { loadConfig } = await import("../config/load.ts");
    const loaded = await loadConfig({ cwd: process.cwd(), env: process.env });
    for (const warning of loaded.warnings) process.stderr.write(`ion: warning: ${warning}\n`);
    // 0 turns the chat's map off; asked for here, the map still comes at its default size.
    const { DEFAULT_MAP_TOKENS } = await import("../code-index/map-focus.ts");
    tokens = loaded.config.index?.map_tokens || DEFAULT_MAP_TOKENS;
  }
  const project = await upToDate();
  try {
    const { renderRepoMap } = await import("../code-index/repo-map.ts");
    const map = renderRepoMap(project.index.fileGraph(), { tokens });
    const { safeForTerminal } = await import("../util/terminal-text.ts");
    if (map.text === "") process.stderr.write("the index holds no definitions: nothing to map\n");
    else process.stdout.write(`${safeForTerminal(map.text)}\n`);
  } finally {
    project.close();
  }
}
