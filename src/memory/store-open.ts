/**
 * Opening memory.db: the directory (0700) and file (0600), WAL with a busy timeout so two ion
 * processes share it, the schema migrations — and what to do with a file that is not a usable
 * database: move it aside (with its WAL) under a dated name and start a new one.
 */
import { Database } from "bun:sqlite";
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { migrate, refuseNewer } from "./store-schema.ts";

/** How long a writer waits for another process's transaction before giving up. */
export const BUSY_TIMEOUT_MS = 5000;

/** Whether SQLite said the file is not a database or is damaged. */
export function isCorruption(err: unknown): boolean {
  if (!(err instanceof Error) || !("code" in err) || typeof err.code !== "string") return false;
  return err.code === "SQLITE_NOTADB" || err.code.startsWith("SQLITE_CORRUPT");
}

/**
 * Switches the file to WAL. While another process switches the same new file, SQLite answers
 * SQLITE_BUSY at once, without waiting out the busy timeout (two `ion index` started together failed
 * so about one time in thirty, two processes adding to a new memory.db now and then): try again until
 * the timeout has passed. Shared by memory.db and the code index.
 */
export function enterWal(db: Database): void {
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.query("PRAGMA journal_mode = WAL").get();
      return;
    } catch (err) {
      const busy = err instanceof Error && "code" in err && err.code === "SQLITE_BUSY";
      if (!busy || performance.now() > deadline) throw err;
      Bun.sleepSync(5);
    }
  }
}

/** Opens (creating when missing) and migrates the database. Throws SQLite's error when it is unusable. */
export function connect(path: string): Database {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Created here first so its mode is 0600 from the start; SQLite gives the -wal and -shm files the same.
  closeSync(openSync(path, "a", 0o600));
  const db = new Database(path, { create: true, strict: true });
  try {
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    refuseNewer(db); // before anything writes, so a newer ion's file is left byte for byte
    enterWal(db);
    db.run("PRAGMA synchronous = NORMAL"); // WAL: a commit survives a crash of ion, the OS may lose the last ones
    // Reads through a memory map: a fresh process's first search reads its pages without a syscall each
    // (cold FTS5 search at 10 000 memories: 11 ms → 3 ms). Writes still go through the WAL.
    db.run("PRAGMA mmap_size = 268435456");
    db.run("PRAGMA secure_delete = ON"); // a forgotten-for-good memory leaves no bytes in free pages
    migrate(db);
    db.query("SELECT max(seq) FROM memories").get(); // reads the table's root: a damaged file fails here
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** The inode of the file now at `path`, to tell whether someone else already replaced it. */
export function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined; // another process moved it aside
    throw err;
  }
}

/**
 * Renames a damaged database (and its WAL) to `<name>.corrupt-<UTC time>` and returns that name —
 * unless the file at `path` is no longer the one that was opened (`inode`), which means another
 * process got there first; then nothing is moved and undefined is returned.
 */
export function moveAside(path: string, inode: number | undefined): string | undefined {
  const now = inodeOf(path);
  if (now === undefined || (inode !== undefined && now !== inode)) return undefined;
  const aside = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  renameSync(path, aside);
  if (existsSync(`${path}-wal`)) renameSync(`${path}-wal`, `${aside}-wal`);
  rmSync(`${path}-shm`, { force: true }); // only an index of the WAL, rebuilt from it
  return aside;
}

/** The one warning for a database moved aside. */
export function corruptionWarning(path: string, aside: string, err: unknown): string {
  const reason = err instanceof Error ? err.message : String(err);
  return `${basename(path)} was not a usable database (${reason}); moved it to ${basename(aside)} and started a new one`;
}
