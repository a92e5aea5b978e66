import { open, readFile, stat } from "node:fs/promises";
import type { Codec } from "./codec.ts";
import { type SessionCost, sessionCost } from "./cost.ts";
import { type Decoded, decodeSession, firstHeader, isUnreadable, rawHeader } from "./decode.ts";
import { MARKER_MAGIC, MARKER_SIZE } from "./frames.ts";
import { asIoError, errnoOf, messageOf, systemMessage } from "./io.ts";
import type { SessionHeader } from "./schema.ts";
import { entryTotals } from "./view.ts";

/** Listing sessions: summaries from whole files, and the cwd from a file's head alone. */

export interface SessionSummary {
  id: string;
  path: string;
  header: SessionHeader;
  /** The file's mtime: the last save. */
  updated_at: string;
  /** Message entries (user and assistant). */
  messages: number;
  /** Summed over the assistant steps' usage; `input` includes cache reads and writes. */
  tokens: { input: number; output: number };
  /** Summed over the runs' ends, as each run priced itself. */
  cost: SessionCost;
  title: string;
  cwd: string;
}

export interface ListOptions {
  /** Only sessions whose header cwd equals this. */
  cwd?: string;
  /** Told about each session file that was skipped because it could not be read. */
  onWarning?: (message: string) => void;
}

const LIST_CONCURRENCY = 16;
/** How much of a file `latestForCwd` reads to find its header; a longer first record is read whole. */
const HEAD_BYTES = 64 * 1024;

/** `SessionStore.list`: the summaries of `ids`, newest first (by last update), filtered by `options.cwd`. */
export async function listSessions(
  ids: readonly string[],
  pathOf: (id: string) => string,
  codec: Codec,
  options: ListOptions,
): Promise<SessionSummary[]> {
  const summaries = await mapLimit(ids, LIST_CONCURRENCY, (id) => summarize(id, pathOf(id), codec, options));
  const found = summaries.filter((s): s is SessionSummary => s !== undefined);
  return found.sort((a, b) => compareNewest(a.updated_at, a.id, b.updated_at, b.id));
}

/**
 * `SessionStore.latestForCwd`: the most recently updated of `ids` whose header names `cwd` or cannot
 * be read, reading only the files' headers, newest file first; `codec` is asked for once the files
 * are sorted.
 */
export async function latestSessionOf(
  cwd: string,
  ids: readonly string[],
  pathOf: (id: string) => string,
  codecOf: () => Promise<Codec>,
): Promise<string | undefined> {
  const dated = await mapLimit(ids, LIST_CONCURRENCY, async (id) => {
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
  const codec = await codecOf();
  for (const { id } of newest) {
    const found = await headerCwd(id, pathOf(id), codec);
    if (found === cwd || found === null) return id;
  }
  return undefined;
}

/** One session's summary from its whole file; undefined when the file is gone or (with a warning) unreadable. */
async function summarize(
  id: string,
  path: string,
  codec: Codec,
  options: ListOptions,
): Promise<SessionSummary | undefined> {
  let bytes: Uint8Array;
  let mtime: Date;
  try {
    [bytes, mtime] = await Promise.all([readFile(path), stat(path).then((s) => s.mtime)]);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return undefined; // removed or moved meanwhile
    // One file ion may not read (EACCES, a directory in its place) must not hide every other session.
    options.onWarning?.(`skipped session ${id}: cannot read ${path} (${systemMessage(err)})`);
    return undefined;
  }
  let decoded: Decoded;
  try {
    if (options.cwd !== undefined && (await firstHeader(bytes, codec)).cwd !== options.cwd) return undefined;
    decoded = await decodeSession(id, bytes, codec);
  } catch (err) {
    // An unreadable file is left for load/openForAppend to report and move aside; the list goes on.
    if (!isUnreadable(err)) throw err;
    options.onWarning?.(`skipped session ${id}: ${messageOf(err)}`);
    return undefined;
  }
  const { messages, input, output } = entryTotals(decoded.entries);
  const { header } = decoded;
  return {
    id,
    path,
    header,
    updated_at: mtime.toISOString(),
    messages,
    tokens: { input, output },
    cost: sessionCost(decoded.entries),
    title: header.title,
    cwd: header.cwd,
  };
}

/**
 * The cwd the header names (read without validating, so a newer format's file still matches); null
 * when there is no readable header; undefined when the file is gone.
 */
async function headerCwd(id: string, path: string, codec: Codec): Promise<string | null | undefined> {
  let head: Uint8Array;
  try {
    head = await readHead(path);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return undefined;
    throw asIoError(err, `cannot read session ${id}`);
  }
  const raw = rawHeader(head, codec);
  const cwd = typeof raw === "object" && raw !== null ? Reflect.get(raw, "cwd") : undefined;
  return typeof cwd === "string" ? cwd : null;
}

/** The first HEAD_BYTES of a file, or all of it when its first record is longer. */
async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const head = buffer.subarray(0, bytesRead);
    if (bytesRead < HEAD_BYTES) return head;
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const isMarked = view.getUint32(0, true) === MARKER_MAGIC;
    if (isMarked && MARKER_SIZE + view.getUint32(8, true) <= bytesRead) return head;
    return await readFile(path);
  } finally {
    await handle.close();
  }
}

export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export function compareNewest(aTime: string, aId: string, bTime: string, bId: string): number {
  if (aTime !== bTime) return aTime < bTime ? 1 : -1;
  return aId < bId ? 1 : aId > bId ? -1 : 0;
}
