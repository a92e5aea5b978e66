import { readdir, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { asIoError } from "../history/io.ts";
import { inboxDir } from "../memory/inbox.ts";
import { MemoryStore } from "../memory/store.ts";
import { errnoOf } from "../util/error-text.ts";

/**
 * `ion reset --all`'s part for memory: the database is emptied in a transaction (another ion that has
 * it open waits, and keeps a working database) and vacuumed, so nothing learnt stays in its pages;
 * copies of a damaged database moved aside earlier are deleted.
 */

const DB = "memory.db";
const DAMAGED = `${DB}.corrupt-`;

export interface MemoryFiles {
  dbPath: string;
  /** memory.db, its inbox of turns not yet taken in, and its damaged copies, by name. */
  files: string[];
  /** No memory and no damaged copy: nothing to wipe. */
  empty: boolean;
  /** For the question and the report: `the memory (12 memories)`. */
  description: string;
}

export async function findMemory(data: string): Promise<MemoryFiles> {
  const dbPath = join(data, DB);
  const inbox = basename(inboxDir(dbPath));
  const files = (await namesIn(data)).filter(
    (name) => name === DB || name === inbox || name.startsWith(DAMAGED),
  );
  const damaged = files.filter((name) => name.startsWith(DAMAGED)).length;
  let count = 0;
  // Opening the store takes in what waits in the inbox: the count is of everything learnt.
  if (files.includes(DB) || files.includes(inbox)) {
    const store = MemoryStore.open(dbPath, {
      warn: (text) => process.stderr.write(`ion: warning: ${text}\n`),
    });
    try {
      count = store.stats().count;
    } finally {
      store.close();
    }
  }
  const parts = [
    `${count} ${count === 1 ? "memory" : "memories"}`,
    ...(damaged > 0 ? [`${damaged} damaged ${damaged === 1 ? "copy" : "copies"}`] : []),
  ];
  return {
    dbPath,
    files,
    empty: count === 0 && damaged === 0,
    description: `the memory (${parts.join(", ")})`,
  };
}

export async function wipeMemory(found: MemoryFiles): Promise<void> {
  if (found.files.some((name) => !name.startsWith(DAMAGED))) {
    const store = MemoryStore.open(found.dbPath);
    try {
      store.wipe();
    } finally {
      store.close();
    }
  }
  const data = join(found.dbPath, "..");
  for (const name of await namesIn(data)) {
    if (!name.startsWith(DAMAGED)) continue;
    const path = join(data, name);
    await rm(path, { force: true }).catch((err: unknown) => {
      throw asIoError(err, `cannot delete ${path}`);
    });
  }
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return [];
    throw asIoError(err, `nothing deleted: cannot list ${dir}`);
  }
}
