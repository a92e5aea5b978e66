import { existsSync } from "node:fs";
import type { ErrorKind } from "../agent/events.ts";
import { sessionTitle } from "../agent/session-file.ts";
import { dataDir, type Env } from "../config/paths.ts";
import { describeError } from "../errors.ts";
import { SessionStore, type SessionWriter } from "../history/store.ts";
import { emptyUsage } from "../providers/types.ts";

/**
 * A run that fails before its turn began (a missing `-f` file, a bad `-m`, no model configured) still
 * keeps what the user typed (SPEC §8): the prompt and the failed run's end are saved, so the result's
 * `session_id` names a session `ion sessions show` opens. Loaded only when a run fails.
 */

export interface FailedPrompt {
  env: Env;
  cwd: string;
  /** The session to save into: a new one with this id, or (`append`) the existing one the run resumed. */
  id: string;
  append: boolean;
  prompt: string;
  /** What the run would have used; "" when it never got that far (a resume picks its own model then). */
  provider: string;
  model: string;
  error: unknown;
  kind: ErrorKind;
}

function sessionFileExists(env: Env, id: string): boolean {
  try {
    return existsSync(SessionStore.forDataDir(dataDir(env)).pathOf(id));
  } catch {
    return false; // not a valid session id: no such file
  }
}

/** Saves the prompt and the run's failed end; the id saved into, or null and why nothing was saved. */
async function savePromptOfFailedRun(failed: FailedPrompt): Promise<{ id: string | null; notes: string[] }> {
  const store = SessionStore.forDataDir(dataDir(failed.env));
  let writer: SessionWriter | undefined;
  try {
    writer = failed.append
      ? (await store.openForAppend(failed.id)).writer
      : await store.create({
          id: failed.id,
          cwd: failed.cwd,
          provider: failed.provider,
          model: failed.model,
          title: sessionTitle(failed.prompt),
        });
    await writer.append([
      { type: "message", message: { role: "user", content: [{ type: "text", text: failed.prompt }] } },
      {
        type: "run_end",
        subtype: failed.kind === "interrupted" ? "error_interrupted" : "error_during_execution",
        num_turns: 0,
        usage: emptyUsage(),
        total_cost_usd: null,
        errors: [describeError(failed.error)],
        error_kind: failed.kind,
      },
    ]);
    await writer.sync();
    return { id: failed.id, notes: [] };
  } catch (err) {
    const note = `the prompt was not saved: ${describeError(err)}`;
    // A file that was created still opens (its header at least): name it; otherwise nothing exists.
    return { id: writer ? failed.id : null, notes: [note] };
  } finally {
    await writer?.close();
  }
}

/** What `ion run` knew when it failed before its turn (`setup`) or while saving the user's message (`turn`). */
export interface RunFailure {
  err: unknown;
  phase: "setup" | "turn";
  env: Env;
  cwd: string;
  /** The id a new session would have had. */
  newId: string;
  session: { id: string; saving: boolean; provider: { id: string }; model: string } | undefined;
  noSession: boolean;
  /** The prompt from the command line; "" when there was none or it was to come from stdin. */
  prompt: string;
}

/**
 * The session a failed run's result names: the held one for a refused `-c`/`-r`, the run's own id
 * under --no-session (as on success), else one the prompt was saved in; null when there was no
 * prompt to keep and no session file, or saving it failed (then `notes` says why).
 */
export async function failedRunSession(
  failure: RunFailure,
  kind: ErrorKind,
  inUseId: string | undefined,
): Promise<{ id: string | null; notes: string[] }> {
  const { session } = failure;
  if (inUseId !== undefined) return { id: inUseId, notes: [] };
  if (failure.noSession || (session && !session.saving))
    return { id: session?.id ?? failure.newId, notes: [] };
  const id = session?.id ?? failure.newId;
  const exists = sessionFileExists(failure.env, id);
  // A message that reached the turn is saved by it, or could not be: a resumed file is left as it was.
  if (exists && failure.phase === "turn") return { id, notes: [] };
  if (failure.prompt === "") return { id: exists ? id : null, notes: [] };
  return savePromptOfFailedRun({
    env: failure.env,
    cwd: failure.cwd,
    id,
    append: exists,
    prompt: failure.prompt,
    provider: session?.provider.id ?? "",
    model: session?.model ?? "",
    error: failure.err,
    kind,
  });
}
