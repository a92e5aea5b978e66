import { IonError } from "../errors.ts";
import type { SearchHit, SessionMatches } from "../history/search.ts";
import { colorEnabled, createStyle, type Style } from "../ui/style.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { parseStrict } from "./_shared.ts";
import { searchArgs } from "./sessions.ts";
import { openStore } from "./sessions-common.ts";
import { displayPath, relativeTime, scopeOf, shortIds } from "./sessions-list.ts";

/** The fields of one `ion sessions search --json` element: one per matching line. */
export interface SearchItem {
  id: string;
  updated_at: string;
  title: string;
  cwd: string;
  /** The entry's `n` (as `sessions show` numbers them); null for a match in the title. */
  entry: number | null;
  role: SearchHit["role"];
  /** The matching line, cut around the match. */
  match: string;
}

/** Matching lines shown per session in the text output (`--json` has them all). */
const SHOWN_PER_SESSION = 3;

/**
 * `ion sessions search QUERY [--json] [--all | --cwd DIR]`: the words given are one phrase, found
 * case-insensitively. Each session is printed as soon as it and every newer one have been searched.
 */
export async function searchSessions(rawArgs: string[]): Promise<void> {
  const args = parseStrict("sessions search", rawArgs, searchArgs, Number.POSITIVE_INFINITY);
  const query = args._.join(" ");
  if (query.trim() === "")
    throw new IonError("usage", '"ion sessions search" needs text to find', {
      hint: 'e.g. `ion sessions search "parse error"`; --all searches every directory',
    });
  const all = args.all === true;
  const { dir, dirs } = await scopeOf("sessions search", { all: args.all, cwd: args.cwd });
  const store = openStore();
  const ids = await store.ids();
  const short = shortIds(ids);
  const style = createStyle(colorEnabled(process.stdout.isTTY === true));
  const json = args.json === true;
  let found = 0;
  let skipped = 0;
  if (json) process.stdout.write("[");
  await store.search(ids, {
    pattern: new RegExp(escapeRegExp(query), "i"),
    ...(all ? {} : { cwds: dirs }),
    onWarning: (line) => {
      skipped++;
      process.stderr.write(`ion: warning: ${line}\n`);
    },
    onMatch: (session) => {
      const text = json
        ? session.hits
            .map((hit) => `${found++ > 0 ? "," : ""}\n  ${JSON.stringify(toItem(session, hit))}`)
            .join("")
        : `${found++ > 0 ? "\n" : ""}${block(session, short, all, style)}`;
      process.stdout.write(text);
    },
  });
  if (json) process.stdout.write(found > 0 ? "\n]\n" : "]\n");
  if (found === 0) {
    const where = all ? "" : ` in ${displayPath(dir)}`;
    const more = skipped > 0 ? ` (${skipped} skipped)` : all ? "" : " (--all searches every directory)";
    process.stderr.write(`no sessions${where} match ${JSON.stringify(query)}${more}\n`);
  }
}

function toItem(session: SessionMatches, hit: SearchHit): SearchItem {
  return {
    id: session.id,
    updated_at: session.updated_at,
    title: session.header.title,
    cwd: session.header.cwd,
    entry: hit.entry,
    role: hit.role,
    match: hit.line,
  };
}

/** The session's line (id, when, [cwd,] title), then its first matching lines, the match in bold. */
function block(session: SessionMatches, short: Map<string, string>, all: boolean, style: Style): string {
  const titleHit = session.hits.find((h) => h.role === "title");
  const title = titleHit
    ? highlighted(titleHit, style)
    : oneLine(session.header.title).trim() || "(untitled)";
  const head = [
    style.cyan(short.get(session.id) ?? session.id),
    style.dim(relativeTime(session.updated_at, Date.now())),
    ...(all ? [style.dim(oneLine(displayPath(session.header.cwd)))] : []),
    title,
  ].join("  ");
  const hits = session.hits.filter((h) => h.role !== "title");
  const lines = hits.slice(0, SHOWN_PER_SESSION).map((hit) => {
    const where = style.dim(`#${hit.entry} ${hit.role === "tool_call" ? "tool call" : hit.role}:`);
    return `  ${where} ${highlighted(hit, style)}`;
  });
  const more = hits.length - lines.length;
  if (more > 0) lines.push(style.dim(`  … ${more} more matching line${more === 1 ? "" : "s"}`));
  return `${[head, ...lines].join("\n")}\n`;
}

/** The hit's line with the match in bold; each part made safe apart, so no sequence spans the bold. */
function highlighted(hit: SearchHit, style: Style): string {
  const { line, start, end } = hit;
  return `${oneLine(line.slice(0, start))}${style.bold(oneLine(line.slice(start, end)))}${oneLine(line.slice(end))}`;
}

/** Text from a session, safe for the terminal and on one row. */
function oneLine(text: string): string {
  return safeForTerminal(text).replace(/[\t\n]/g, " ");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
