import { mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { mkdir, readdir, rename, stat, unlink, utimes } from "node:fs/promises";
import { basename, join } from "node:path";
import { IonError } from "../errors.ts";
import { counted } from "../util/numbers.ts";
import { sessionCost } from "./cost.ts";
import { asIoError, errnoOf, messageOf } from "./io.ts";
import { acquireLock, type SessionLock } from "./lock.ts";
import { type LoadedSession, SESSION_FILE_SUFFIX, type SessionStore, type SessionSummary } from "./store.ts";
import { entryTotals } from "./view.ts";

/**
 * Retention (`history.retention_days`): a session not saved to for `days` days (its file's mtime, as
 * `SessionStore.list` reports it) is moved to `<data>/trash/`, and a file that has sat in the trash for
 * another `days` days is deleted. Nothing is ever unlinked in one step, so the caller can list what
 * moved (spec §8: never silently) and the user has `days` more days to take a file back out of the
 * trash. A session another ion process holds open (its lock is live) is kept, with a warning.
 *
 * A pass stats every saved session, so a run does not make one each time: `retentionDue` says whether
 * a day has passed since the last (the mtime of `<dataDir>/retention-checked`, which
 * `markRetentionChecked` sets), which keeps a run's cost independent of how many sessions are saved.
 */
export const DEFAULT_RETENTION_DAYS = 30;

const DAY_MS = 86_400_000;

/** The file whose mtime says when retention last ran, in the data dir. */
export const RETENTION_STAMP = "retention-checked";
/** How often a run makes a retention pass. */
const CHECK_EVERY_MS = DAY_MS;

/** The move time is part of a trashed file's name: `<id>.trashed-<epoch ms>.jsonl.zst`. */
const TRASHED = /\.trashed-(\d+)(?:\.|$)/;

export interface RetentionOptions {
  store: SessionStore;
  /** The data dir; the trash is `<dataDir>/trash`. */
  dataDir: string;
  /** Whole days; 0 keeps everything forever. */
  days: number;
  /** The current time (tests pass their own). */
  now?: Date;
}

export interface RetentionResult {
  /** Sessions moved to the trash by this call. */
  moved: SessionSummary[];
  /** Session ids (a trashed file's name up to its first dot) deleted from the trash by this call. */
  purged: string[];
  /** Files that could not be moved or deleted, one line each; the rest were still handled. */
  warnings: string[];
}

/** `history.retention_days` from a loaded config, or the default. */
export function retentionDays(config: {
  history?: { retention_days?: number | undefined } | undefined;
}): number {
  return config.history?.retention_days ?? DEFAULT_RETENTION_DAYS;
}

export function trashDir(dataDir: string): string {
  return join(dataDir, "trash");
}

/** The lines to print on stderr after `applyRetention` (none when it did nothing). */
export function describeRetention(result: RetentionResult, days: number, dataDir: string): string[] {
  const lines: string[] = [];
  if (result.moved.length > 0) {
    lines.push(
      `moved ${counted(result.moved.length, "session")} unused for ${days}+ days to ${trashDir(dataDir)} (deleted after ${days} more days):`,
    );
    for (const s of result.moved)
      lines.push(`  ${s.id}  ${s.updated_at.slice(0, 10)}  ${s.title || "(untitled)"}`);
  }
  if (result.purged.length > 0)
    lines.push(
      `deleted ${counted(result.purged.length, "session")} from the trash: ${result.purged.join(", ")}`,
    );
  for (const warning of result.warnings) lines.push(`warning: ${warning}`);
  return lines;
}

/**
 * Whether a retention pass is due: none has been recorded in `dataDir`, the last was a day or more
 * before `now`, or it is dated in the future (the clock was set back). One stat.
 */
export function retentionDue(dataDir: string, now: Date): boolean {
  let checked: number;
  try {
    checked = statSync(join(dataDir, RETENTION_STAMP)).mtimeMs;
  } catch (err) {
    if (errnoOf(err) === "ENOENT" || errnoOf(err) === "ENOTDIR") return true;
    throw asIoError(err, `cannot read ${join(dataDir, RETENTION_STAMP)}`);
  }
  const elapsed = now.getTime() - checked;
  return elapsed >= CHECK_EVERY_MS || elapsed < -CHECK_EVERY_MS;
}

/** Records a retention pass at `now` (see `retentionDue`), creating the data dir if need be. */
export function markRetentionChecked(dataDir: string, now: Date): void {
  const stamp = join(dataDir, RETENTION_STAMP);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(stamp, "");
    utimesSync(stamp, now, now);
  } catch (err) {
    throw asIoError(err, `cannot write ${stamp}`);
  }
}

export async function applyRetention(options: RetentionOptions): Promise<RetentionResult> {
  const { store, dataDir, days } = options;
  if (!Number.isInteger(days) || days < 0)
    throw new RangeError(`retention days must be a whole number ≥ 0, got ${days}`);
  const result: RetentionResult = { moved: [], purged: [], warnings: [] };
  if (days === 0) return result;
  const now = (options.now ?? new Date()).getTime();
  const cutoff = now - days * DAY_MS;
  const trash = trashDir(dataDir);

  // Purge what earlier calls trashed; what this call moves is stamped `now` and waits its full `days`.
  await purgeTrash(trash, cutoff, result);

  // Start-up cost: one stat per session; only the expired sessions are read (for the listing).
  const old = (await sessionTimes(store)).filter((s) => s.mtimeMs < cutoff);
  if (old.length > 0) await mkdir(trash, { recursive: true });
  for (const { id, mtimeMs } of old) {
    const summary = await moveToTrash(store, id, mtimeMs, trash, now, result.warnings);
    if (summary) result.moved.push(summary);
  }
  result.moved.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
  return result;
}

/** Session ids in the store's directory with their last-save time (the file's mtime, as `list` uses). */
async function sessionTimes(store: SessionStore): Promise<Array<{ id: string; mtimeMs: number }>> {
  let names: string[];
  try {
    names = await readdir(store.dir);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return []; // nothing saved yet
    throw asIoError(err, `cannot list sessions in ${store.dir}`);
  }
  const ids = names
    .filter((name) => name.endsWith(SESSION_FILE_SUFFIX) && !name.startsWith("."))
    .map((name) => name.slice(0, -SESSION_FILE_SUFFIX.length))
    .filter((id) => isSessionId(store, id));
  const times = await Promise.all(
    ids.map(async (id) => {
      try {
        return { id, mtimeMs: (await stat(store.pathOf(id))).mtimeMs };
      } catch (err) {
        if (errnoOf(err) === "ENOENT") return undefined; // removed meanwhile
        throw err;
      }
    }),
  );
  return times.filter((t): t is { id: string; mtimeMs: number } => t !== undefined);
}

/** Whether the store would accept `id` (it refuses names that are not session ids). */
function isSessionId(store: SessionStore, id: string): boolean {
  try {
    return basename(store.pathOf(id)) === `${id}${SESSION_FILE_SUFFIX}`;
  } catch (err) {
    if (err instanceof IonError && err.code === "usage") return false; // not a session file name
    throw err;
  }
}

/**
 * Reads the session for the listing, then renames it into the trash while holding its lock, so a
 * session some ion process still has open is left alone. A corrupt file was moved aside by the load.
 */
async function moveToTrash(
  store: SessionStore,
  id: string,
  mtimeMs: number,
  trash: string,
  now: number,
  warnings: string[],
): Promise<SessionSummary | undefined> {
  const path = store.pathOf(id);
  let summary: SessionSummary;
  let lock: SessionLock;
  try {
    summary = summarize(await store.load(id), id, mtimeMs);
    lock = await acquireLock(join(store.dir, `${id}.lock`), id);
  } catch (err) {
    if (err instanceof IonError && err.code === "usage") return undefined; // removed meanwhile
    warnings.push(`skipped session ${id}: ${messageOf(err)}`);
    return undefined;
  }
  const target = join(trash, trashedName(basename(path), now));
  try {
    await rename(path, target);
    // The name records the move time; the mtime does too, for anyone looking with ls -l.
    const moved = new Date(now);
    await utimes(target, moved, moved);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return undefined; // removed by another ion process meanwhile
    warnings.push(`could not move session ${id} to the trash: ${messageOf(err)}`);
    return undefined;
  } finally {
    lock.release();
  }
  return summary;
}

function summarize(loaded: LoadedSession, id: string, mtimeMs: number): SessionSummary {
  const { messages, input, output } = entryTotals(loaded.entries);
  const { header } = loaded;
  return {
    id,
    path: loaded.path,
    header,
    updated_at: new Date(mtimeMs).toISOString(),
    messages,
    tokens: { input, output },
    cost: sessionCost(loaded.entries),
    title: header.title,
    cwd: header.cwd,
  };
}

async function purgeTrash(trash: string, cutoff: number, result: RetentionResult): Promise<void> {
  let names: string[];
  try {
    names = await readdir(trash);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return; // no trash yet
    throw asIoError(err, `cannot list the session trash in ${trash}`);
  }
  for (const name of names.sort()) {
    const path = join(trash, name);
    try {
      const info = await stat(path);
      if (!info.isFile()) continue;
      if (movedAt(name, info.mtimeMs) >= cutoff) continue;
      await unlink(path);
      result.purged.push(idOf(name));
    } catch (err) {
      if (errnoOf(err) === "ENOENT") continue; // purged by another ion process meanwhile
      result.warnings.push(`could not delete ${path}: ${messageOf(err)}`);
    }
  }
}

/** `<id>.jsonl.zst` → `<id>.trashed-<now>.jsonl.zst`; names without that extension get the tag at the end. */
export function trashedName(name: string, now: number): string {
  const dot = name.indexOf(".");
  return dot < 0 ? `${name}.trashed-${now}` : `${name.slice(0, dot)}.trashed-${now}${name.slice(dot)}`;
}

/** When a trash file was moved there: from its name, else (a file put there by hand or another tool) its mtime. */
function movedAt(name: string, mtimeMs: number): number {
  const match = TRASHED.exec(name);
  return match ? Number(match[1]) : mtimeMs;
}

function idOf(name: string): string {
  const dot = name.indexOf(".");
  return dot <= 0 ? name : name.slice(0, dot);
}
