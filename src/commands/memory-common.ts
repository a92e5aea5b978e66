import { existsSync } from "node:fs";
import { loadConfig } from "../config/load.ts";
import type { Env } from "../config/paths.ts";
import type { Config, Keys } from "../config/schema.ts";
import { IonError } from "../errors.ts";
import { inboxDir } from "../memory/inbox.ts";
import { MemoryStore, memoryDbPath } from "../memory/store.ts";
import type { MemoryRecord, MemoryType } from "../memory/types.ts";
import { localDay } from "../util/local-day.ts";
import { clipLine } from "./_shared.ts";

/** What `ion memory` and `/memory` share: the store, dates given on the command line, how a memory reads. */

export const MEMORY_TYPES: readonly MemoryType[] = ["episodic", "semantic", "procedural"];
/** Ids as shown: unique among those listed, at least the millisecond and the in-process counter. */
export const SHORT_ID_MIN = 18;

/** Whether memory ever learnt anything here (stored, or waiting in the inbox): reading commands do not create the database. */
export function memoryExists(env: Env = process.env): boolean {
  const path = memoryDbPath(env);
  return existsSync(path) || existsSync(inboxDir(path));
}

/** The memory database, created when missing; a damaged one is moved aside with a warning on stderr. */
export function openMemoryStore(env: Env = process.env, warn = stderrWarning): MemoryStore {
  return MemoryStore.open(memoryDbPath(env), { warn });
}

function stderrWarning(text: string): void {
  process.stderr.write(`ion: warning: ${text}\n`);
}

/** The configuration of this directory (for the embedding model and whether memory is on). */
export async function memoryConfig(env: Env = process.env): Promise<{ config: Config; keys: Keys }> {
  const loaded = await loadConfig({ cwd: process.cwd(), env });
  for (const warning of loaded.warnings) stderrWarning(warning);
  return { config: loaded.config, keys: loaded.keys };
}

/**
 * `2026-11-26` (a local day: its start for `edge` "start", its last millisecond for "end") or an ISO
 * time (`2026-11-26T14:00`, `…Z`) → ms since the epoch; anything else is a usage error naming the flag.
 */
export function parseDate(flag: string, text: string, edge: "start" | "end"): number {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (day) {
    const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const start = new Date(year, month - 1, date).getTime();
    if (new Date(start).getDate() === date)
      return edge === "start" ? start : new Date(year, month - 1, date + 1).getTime() - 1;
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(text.trim())) {
    const ms = Date.parse(text.trim());
    if (Number.isFinite(ms)) return ms;
  }
  throw new IonError("usage", `${flag} "${text}" is not a date`, {
    hint: `e.g. ${flag} 2026-11-26 or ${flag} 2026-11-26T14:30`,
  });
}

/** `--limit N`: a positive whole number, else `fallback` when not given. */
export function parseLimit(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0)
    throw new IonError("usage", `--limit "${text}" is not a positive whole number`, {
      hint: "e.g. --limit 50",
    });
  return n;
}

/** The fields of a memory in `--json` output: times as ISO strings, null for a memory still valid. */
export function memoryItem(memory: MemoryRecord) {
  return {
    id: memory.id,
    content: memory.content,
    type: memory.type,
    source: memory.source,
    created_at: new Date(memory.createdAt).toISOString(),
    valid_from: new Date(memory.validFrom).toISOString(),
    valid_to: memory.validTo === null ? null : new Date(memory.validTo).toISOString(),
    tokens: memory.tokens,
  };
}

/** `2026-11-26 episodic  user: indent with tabs` (forgotten: `forgotten 2026-11-27`), on one line. */
export function memorySummary(memory: MemoryRecord, width = 100): string {
  const ended = memory.validTo === null ? "" : ` (forgotten ${localDay(new Date(memory.validTo))})`;
  return `${localDay(new Date(memory.createdAt))}  ${memory.type.padEnd(10)}  ${clipLine(memory.content, width)}${ended}`;
}

/** The memory `prefix` names; a usage error when none or several do. */
export function requireMemory(store: MemoryStore | undefined, prefix: string): MemoryRecord {
  const found = store?.get(prefix);
  if (!found)
    throw new IonError("usage", `no memory "${prefix}" (or the prefix names several)`, {
      hint: "`ion memory list` or `ion memory search QUERY` shows the ids",
    });
  return found;
}
