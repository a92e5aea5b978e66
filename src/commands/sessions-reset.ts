import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { dataDir, INPUT_HISTORY_NAME } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { asIoError } from "../history/io.ts";
import { acquireLock, type SessionLock } from "../history/lock.ts";
import { SessionInUseError } from "../history/session-errors.ts";
import { SESSION_FILE_SUFFIX } from "../history/store.ts";
import { messageOf } from "../util/error-text.ts";
import { parseStrict } from "./_shared.ts";
import { resetArgs } from "./reset.ts";

interface History {
  sessionsDir: string;
  trashDir: string;
  inputHistory: string;
  /** Ids of the session files. */
  sessions: string[];
  /** Damaged session files the store moved aside (`*.corrupt-<time>`). */
  damaged: number;
  trashed: number;
  hasInputHistory: boolean;
  /** With --all: what memory holds (memory-reset.ts); undefined without it. */
  memory?: import("./memory-reset.ts").MemoryFiles;
}

/**
 * `ion reset [-y]`. Declining the question deletes nothing and exits 0. A session another ion process
 * has open is not pulled from under it: its lock is taken first, and a live holder stops the reset.
 */
export async function resetHistory(rawArgs: string[]): Promise<void> {
  const args = parseStrict("reset", rawArgs, resetArgs, 0);
  const found = await findHistory(dataDir());
  if (args.all === true) found.memory = await (await import("./memory-reset.ts")).findMemory(dataDir());
  const noMemory = found.memory?.empty !== false;
  if (found.sessions.length + found.damaged + found.trashed === 0 && !found.hasInputHistory && noMemory) {
    process.stderr.write("no history to delete\n");
    return;
  }
  if (args.yes !== true) {
    if (process.stdin.isTTY !== true)
      throw new IonError("usage", "refusing to delete history without confirmation: pass -y", {
        hint:
          args.all === true
            ? "`ion reset --all -y` deletes every saved session, the trash, the input history and the memory"
            : "`ion reset -y` deletes every saved session, the trash and the input history",
      });
    if (!(await confirm(`Delete ${describe(found)}? [y/N] `))) {
      process.stderr.write("nothing deleted\n");
      return;
    }
  }
  const locks = await lockAll(found);
  try {
    await remove(found.sessionsDir);
    await remove(found.trashDir);
    await remove(found.inputHistory);
    if (found.memory) await (await import("./memory-reset.ts")).wipeMemory(found.memory);
  } finally {
    for (const lock of locks) lock.release();
  }
  process.stdout.write(`deleted ${describe(found)}\n`);
}

async function findHistory(data: string): Promise<History> {
  const sessionsDir = join(data, "sessions");
  const trashDir = join(data, "trash");
  const inputHistory = join(data, INPUT_HISTORY_NAME);
  const names = await namesIn(sessionsDir);
  const sessions = names
    .filter((name) => name.endsWith(SESSION_FILE_SUFFIX) && !name.startsWith("."))
    .map((name) => name.slice(0, -SESSION_FILE_SUFFIX.length));
  return {
    sessionsDir,
    trashDir,
    inputHistory,
    sessions,
    damaged: names.filter((name) => name.includes(`${SESSION_FILE_SUFFIX}.corrupt-`)).length,
    trashed: (await namesIn(trashDir)).length,
    hasInputHistory: await Bun.file(inputHistory).exists(),
  };
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if (err instanceof Error && "code" in err && err.code === "ENOENT") return []; // nothing saved yet
    throw asIoError(err, `nothing deleted: cannot list ${dir}`);
  }
}

async function remove(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (err) {
    throw asIoError(err, `cannot delete ${path}`);
  }
}

/** Takes every session's lock; if any is held by a live ion process, releases the rest and refuses. */
async function lockAll(found: History): Promise<SessionLock[]> {
  const locks: SessionLock[] = [];
  try {
    for (const id of found.sessions) locks.push(await acquireLock(join(found.sessionsDir, `${id}.lock`), id));
  } catch (err) {
    for (const lock of locks) lock.release();
    const reason = messageOf(err);
    // Waiting helps only when another ion has the session open; a lock that cannot be made at all
    // (a read-only data dir) is reported as it is.
    throw new IonError("io", `nothing deleted: ${reason}`, {
      hint: err instanceof SessionInUseError ? "let it finish, then run `ion reset` again" : undefined,
    });
  }
  return locks;
}

function describe(found: History): string {
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const extras = [
    ...(found.damaged > 0 ? [`${plural(found.damaged, "damaged file")} moved aside`] : []),
    ...(found.trashed > 0 ? [`${plural(found.trashed, "file")} in the trash`] : []),
    ...(found.hasInputHistory ? ["the input history"] : []),
    ...(found.memory?.empty === false ? [found.memory.description] : []),
  ];
  const sessions = plural(found.sessions.length, "session");
  if (extras.length === 0) return sessions;
  const last = extras.pop();
  return `${sessions} (plus ${extras.length > 0 ? `${extras.join(", ")} and ` : ""}${last})`;
}

async function confirm(question: string): Promise<boolean> {
  const { terminalPrompt } = await import("../ui/ask.ts");
  const prompt = terminalPrompt();
  try {
    const answer = await prompt.ask(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}
