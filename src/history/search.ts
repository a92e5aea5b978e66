import { readFile, stat } from "node:fs/promises";
import type { Codec } from "./codec.ts";
import { decodeSession, isUnreadable, rawHeader } from "./decode.ts";
import { asIoError, errnoOf, messageOf, systemMessage } from "./io.ts";
import { compareNewest, mapLimit } from "./listing.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";

/**
 * Full-text search over saved sessions (`ion sessions search`): titles, the user's and the model's
 * text, and tool calls' arguments. Files are read newest first, a few at a time, and each is dropped
 * once its matches are taken: memory holds the files in flight, never the whole history.
 */

export interface SearchOptions {
  /** What to find, per line (the caller makes it case-insensitive). */
  pattern: RegExp;
  /** Only sessions whose header cwd is one of these; all when absent. */
  cwds?: ReadonlySet<string>;
  /** Told about each session file that was skipped because it could not be read. */
  onWarning?: (message: string) => void;
  /** Each session with matches, newest first (by last update), as soon as the newer ones are done. */
  onMatch: (found: SessionMatches) => void | Promise<void>;
}

export interface SessionMatches {
  id: string;
  header: SessionHeader;
  /** The file's mtime: the last save. */
  updated_at: string;
  hits: SearchHit[];
}

export type HitRole = "title" | "user" | "assistant" | "tool_call";

export interface SearchHit {
  /** The entry's `n`; null for the title. */
  entry: number | null;
  role: HitRole;
  /** The matching line, cut around the match (`…` where it was cut). */
  line: string;
  /** Where the match is in `line`. */
  start: number;
  end: number;
}

/** Files read and decoded at once. */
const CONCURRENCY = 8;
/** How much of a matching line is kept: the match and what is around it. */
const LINE_WIDTH = 120;
const BEFORE_MATCH = 40;

export async function searchSessions(
  ids: readonly string[],
  pathOf: (id: string) => string,
  codec: Codec,
  options: SearchOptions,
): Promise<void> {
  const dated = await mapLimit(ids, 16, async (id) => {
    try {
      return { id, mtime: (await stat(pathOf(id))).mtime.toISOString() };
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return undefined; // removed meanwhile
      throw asIoError(err, `cannot read session ${id}`);
    }
  });
  const newest = dated
    .filter((d): d is { id: string; mtime: string } => d !== undefined)
    .sort((a, b) => compareNewest(a.mtime, a.id, b.mtime, b.id));
  // A sliding window: up to CONCURRENCY files are read ahead; results are handed over in order.
  const inFlight = new Map<number, Promise<SessionMatches | undefined>>();
  const startAt = (i: number) => {
    const item = newest[i];
    if (item) inFlight.set(i, scan(item.id, pathOf(item.id), item.mtime, codec, options));
  };
  for (let i = 0; i < CONCURRENCY; i++) startAt(i);
  for (let i = 0; i < newest.length; i++) {
    const found = await inFlight.get(i);
    inFlight.delete(i);
    startAt(i + CONCURRENCY);
    if (found) await options.onMatch(found);
  }
}

/** One session's matches; undefined when it has none, is of another directory, is gone or is unreadable. */
async function scan(
  id: string,
  path: string,
  updated_at: string,
  codec: Codec,
  options: SearchOptions,
): Promise<SessionMatches | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return undefined; // removed or moved meanwhile
    options.onWarning?.(`skipped session ${id}: cannot read ${path} (${systemMessage(err)})`);
    return undefined;
  }
  if (options.cwds && !options.cwds.has(cwdOf(rawHeader(bytes, codec)))) return undefined;
  let header: SessionHeader;
  let entries: SessionEntry[];
  try {
    ({ header, entries } = await decodeSession(id, bytes, codec));
  } catch (err) {
    // As the list does: an unreadable file is left for opening it to report; the search goes on.
    if (!isUnreadable(err)) throw err;
    options.onWarning?.(`skipped session ${id}: ${messageOf(err)}`);
    return undefined;
  }
  const hits = hitsOf(header, entries, options.pattern);
  return hits.length > 0 ? { id, header, updated_at, hits } : undefined;
}

function cwdOf(raw: unknown): string {
  const cwd = typeof raw === "object" && raw !== null ? Reflect.get(raw, "cwd") : undefined;
  return typeof cwd === "string" ? cwd : "";
}

/** Every matching line of the title and the entries, in file order. */
export function hitsOf(
  header: SessionHeader,
  entries: readonly SessionEntry[],
  pattern: RegExp,
): SearchHit[] {
  const hits: SearchHit[] = [];
  addHits(hits, header.title, null, "title", pattern);
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    for (const block of entry.message.content) {
      if (block.type === "text") addHits(hits, block.text, entry.n, entry.message.role, pattern);
      else if (block.type === "tool_use")
        addHits(hits, stringsOf(block.input).join("\n"), entry.n, "tool_call", pattern);
    }
  }
  return hits;
}

/** A tool call's string arguments (a command, a path, a pattern), nested ones included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(stringsOf);
  return [];
}

function addHits(
  hits: SearchHit[],
  text: string,
  entry: number | null,
  role: HitRole,
  pattern: RegExp,
): void {
  if (!pattern.test(text)) return; // most texts do not match: no splitting for them
  for (const line of text.split("\n")) {
    const match = pattern.exec(line);
    if (match && match[0] !== "")
      hits.push({ entry, role, ...cut(line, match.index, match.index + match[0].length) });
  }
}

/** The line without its indentation, cut to LINE_WIDTH around the match. */
function cut(line: string, start: number, end: number): { line: string; start: number; end: number } {
  let from = Math.min(start, line.length - line.trimStart().length);
  let to = Math.max(end, line.trimEnd().length);
  const whole = { from, to };
  if (to - from > LINE_WIDTH) {
    from = Math.max(from, Math.min(start - BEFORE_MATCH, to - LINE_WIDTH));
    to = Math.max(end, Math.min(to, from + LINE_WIDTH));
  }
  const before = from > whole.from ? "…" : "";
  const after = to < whole.to ? "…" : "";
  return {
    line: `${before}${line.slice(from, to)}${after}`,
    start: start - from + before.length,
    end: end - from + before.length,
  };
}
