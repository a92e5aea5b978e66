/**
 * Learnt turns waiting for the database: one small JSON file per turn in `<data>/memory-inbox/`,
 * written whole (a temporary name, then a rename) so a reader never sees half of one. Learning only
 * posts here — no SQLite on the way out of a run — and whoever opens the store next (a recall,
 * `ion memory`, another ion) moves the waiting memories into it. Each memory carries its id from the
 * start, so a file taken in twice (two processes at once, or a crash between the insert and the
 * unlink) adds it once.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { dataDir, type Env } from "../config/paths.ts";
import type { MemoryType, NewMemory } from "./types.ts";
import { uuid7 } from "./uuid7.ts";

const SUFFIX = ".json";
const TYPES: readonly MemoryType[] = ["episodic", "semantic", "procedural"];

export function memoryDbPath(env: Env = process.env): string {
  return join(dataDir(env), "memory.db");
}

export function inboxDir(dbPath: string): string {
  return join(dirname(dbPath), "memory-inbox");
}

/** Posts one turn's memories (each given its id and time now); nothing when there are none. */
export function postMemories(dbPath: string, items: readonly NewMemory[], now = Date.now()): void {
  if (items.length === 0) return;
  const dir = inboxDir(dbPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const memories = items.map((item) => ({
    ...item,
    id: item.id ?? uuid7(item.createdAt ?? now),
    createdAt: item.createdAt ?? now,
  }));
  const name = `${memories[0]!.id}${SUFFIX}`;
  const temporary = join(dir, `.${name}.${process.pid}.tmp`);
  writeFileSync(temporary, JSON.stringify(memories), { mode: 0o600 });
  renameSync(temporary, join(dir, name));
}

export interface Pending {
  /** The files read, to remove once their memories are stored. */
  files: string[];
  memories: NewMemory[];
  /** Files that hold no memories ion wrote (damaged or foreign): set aside, never read again. */
  unreadable: string[];
}

/** What waits in the inbox, oldest first. */
export function pendingMemories(dbPath: string): Pending {
  const dir = inboxDir(dbPath);
  const pending: Pending = { files: [], memories: [], unreadable: [] };
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return pending;
    throw err;
  }
  for (const name of names.filter((n) => n.endsWith(SUFFIX) && !n.startsWith(".")).sort()) {
    const file = join(dir, name);
    let memories: NewMemory[] | undefined;
    try {
      memories = memoriesOf(JSON.parse(readFileSync(file, "utf8")));
    } catch (err) {
      // Taken in and removed by another process meanwhile: nothing to do.
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
    }
    if (memories) {
      pending.files.push(file);
      pending.memories.push(...memories);
    } else pending.unreadable.push(file);
  }
  return pending;
}

/** Removes taken-in files (one already removed by another process is fine). */
export function removeFiles(files: readonly string[]): void {
  for (const file of files) rmSync(file, { force: true });
}

/** Renames an unreadable file to `<name>.bad` so it is reported once and kept for a look. */
export function setAside(file: string): void {
  try {
    renameSync(file, `${file}.bad`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** Every file in the inbox, waiting or set aside (`ion reset --all`). */
export function emptyInbox(dbPath: string): void {
  rmSync(inboxDir(dbPath), { recursive: true, force: true });
}

function memoriesOf(value: unknown): NewMemory[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const memories: NewMemory[] = [];
  for (const item of value) {
    if (typeof item !== "object" || item === null) return undefined;
    const { id, content, source, type, createdAt, validFrom } = item as Record<string, unknown>;
    if (typeof id !== "string" || !/^[0-9a-f-]{36}$/.test(id)) return undefined;
    if (typeof content !== "string" || typeof source !== "string") return undefined;
    if (!TYPES.includes(type as MemoryType) || typeof createdAt !== "number") return undefined;
    const valid = typeof validFrom === "number" ? validFrom : createdAt;
    memories.push({ id, content, source, type: type as MemoryType, createdAt, validFrom: valid });
  }
  return memories;
}
