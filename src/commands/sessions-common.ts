import { dataDir } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { CorruptSessionError, type LoadedSession, SessionStore } from "../history/store.ts";

/** The required ID argument. */
export function requireId(command: string, id: unknown): string {
  if (typeof id === "string" && id !== "") return id;
  throw new IonError("usage", `"ion ${command}" needs a session id (or a unique prefix of one)`, {
    hint: "`ion sessions list` shows them; `--all` for every directory",
  });
}

export function openStore(): SessionStore {
  return SessionStore.forDataDir(dataDir());
}

/** The full id for a prefix; no match or several are usage errors, with a pointer to the list. */
export async function resolveId(store: SessionStore, prefix: string): Promise<string> {
  try {
    return await store.resolveId(prefix);
  } catch (err) {
    if (err instanceof IonError && err.code === "usage" && err.hint === undefined)
      throw new IonError("usage", err.message, {
        hint: "`ion sessions list` shows this directory's sessions; `--all` every directory's",
        cause: err,
      });
    throw err;
  }
}

/** Resolves a prefix and loads the session; a corrupt file is one line (it has been moved aside). */
export async function loadSession(store: SessionStore, prefix: string): Promise<LoadedSession> {
  const id = await resolveId(store, prefix);
  try {
    const loaded = await store.load(id);
    for (const warning of loaded.warnings) process.stderr.write(`ion: warning: ${warning}\n`);
    // Showing a file is inspecting it: what was skipped is said here without -v.
    for (const note of loaded.notes ?? []) process.stderr.write(`ion: note: ${note}\n`);
    return loaded;
  } catch (err) {
    if (err instanceof CorruptSessionError) {
      const line = `session ${err.id} is corrupt (${err.reason}); moved it aside to ${err.movedTo}`;
      throw new IonError("io", line, { cause: err });
    }
    throw err;
  }
}
