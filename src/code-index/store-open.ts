/**
 * Opening a project's index database: its directory (0700) and file (0600), WAL with a busy timeout
 * so two ion processes share it, a memory map for reads, and the schema migrations. Moving a damaged
 * file aside is memory.db's code (src/memory/store-open.ts), shared.
 */
import { Database } from "bun:sqlite";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { BUSY_TIMEOUT_MS, enterWal } from "../memory/store-open.ts";
import { migrate, refuseNewer } from "./store-schema.ts";

/** Opens (creating when missing) and migrates the index. Throws SQLite's error when it is unusable. */
export function connect(path: string, root: string): Database {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Created here first so its mode is 0600 from the start; SQLite gives the -wal and -shm files the same.
  closeSync(openSync(path, "a", 0o600));
  const db = new Database(path, { create: true, strict: true });
  try {
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    refuseNewer(db, path); // before anything writes, so a newer ion's file is left byte for byte
    enterWal(db);
    // The index is derived data: a commit lost to a power cut is re-parsed by the next update.
    db.run("PRAGMA synchronous = NORMAL");
    // Reads through a memory map: a fresh process's first lookup reads its pages without a syscall each.
    db.run("PRAGMA mmap_size = 268435456");
    migrate(db, path);
    // Reads a table's root page (a damaged file fails here) and records the root the first time.
    const known = db.query("SELECT value FROM meta WHERE key = 'root'").get() as { value: string } | null;
    if (known?.value !== root)
      db.query(
        "INSERT INTO meta (key, value) VALUES ('root', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ).run(root);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
