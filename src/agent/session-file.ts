import { IonError } from "../errors.ts";
import type { ExtensionStateEntry, SessionEntry, SessionHeader } from "../history/schema.ts";
import { CorruptSessionError, type SessionStore, type SessionWriter } from "../history/store.ts";
import { type ModelView, modelView } from "../history/view.ts";

/** Which session a front end continues or starts. */
export interface SessionChoice {
  /** The latest session of this cwd (`run -c`; `chat` unless `--new`). */
  continueLatest: boolean;
  /** A given session (its id or a unique prefix): `-r ID`. */
  resume: string | undefined;
  /** --no-session: write nothing. */
  noSession: boolean;
}

/** A session file opened for appending, with what the model saw of it. */
export interface OpenedSession {
  id: string;
  writer: SessionWriter;
  view: ModelView;
  header: SessionHeader;
  /** The provider and model the session was last held with (model_change entries included). */
  lastModel: { provider: string; model: string };
  /** Messages in the file (for the one line that says what was resumed). */
  messageCount: number;
  /** The states extensions saved, also under tool calls, in file order (see history/extension-state.ts). */
  extensionStates?: ExtensionStateEntry[];
}

function lastModelOf(header: { provider: string; model: string }, entries: readonly SessionEntry[]) {
  let current = { provider: header.provider, model: header.model };
  for (const entry of entries)
    if (entry.type === "model_change") current = { provider: entry.provider, model: entry.model };
  return current;
}

export function checkChoice(choice: SessionChoice): void {
  if (choice.continueLatest && choice.resume !== undefined)
    throw new IonError("usage", "--continue and --resume cannot be used together");
  if (choice.noSession && (choice.continueLatest || choice.resume !== undefined)) {
    throw new IonError("usage", "--no-session cannot be combined with --continue or --resume");
  }
}

/**
 * Moves sessions past `history.retention_days` to the trash, saying which (never silently). At most
 * once a day: otherwise one stat, whatever the number of saved sessions.
 */
export async function expireSessions(
  store: SessionStore,
  dataDir: string,
  days: number,
  notice: (line: string) => void,
  now = new Date(),
): Promise<void> {
  if (days <= 0) return;
  const { applyRetention, markRetentionChecked, retentionDue } = await import("../history/retention.ts");
  if (!retentionDue(dataDir, now)) return;
  const { moved } = await applyRetention({ store, dataDir, days, now });
  // Recorded after the pass, so a pass cut short is made again by the next run.
  markRetentionChecked(dataDir, now);
  if (moved.length === 0) return;
  const list = moved.map((s) => `${s.id} (${s.title})`).join(", ");
  notice(`moved ${moved.length} session(s) not used for ${days} days to the trash: ${list}`);
}

/**
 * The id of the session to continue, if any: `-r` by prefix (an error when none or several match),
 * else with `continueLatest` the newest of this cwd (`notice` when there is none and `quietWhenNone`
 * is not set).
 */
export async function chooseSession(
  store: SessionStore,
  choice: SessionChoice,
  cwd: string,
  notice: (line: string) => void,
  quietWhenNone = false,
): Promise<string | undefined> {
  if (choice.noSession) return undefined;
  if (choice.resume !== undefined) return store.resolveId(choice.resume);
  if (!choice.continueLatest) return undefined;
  const id = await store.latestForCwd(cwd);
  if (!id && !quietWhenNone) notice("no earlier session in this directory; starting a new one");
  return id;
}

/**
 * Opens a session for appending (taking its lock). A corrupt file is moved aside and told about
 * (undefined: start a new one); warnings such as a repaired torn tail go to `notice`, notes such as
 * skipped entries of unknown types to `log` (-v).
 */
export async function openSession(
  store: SessionStore,
  id: string,
  notice: (line: string) => void,
  log?: (line: string) => void,
): Promise<OpenedSession | undefined> {
  try {
    const { writer, loaded } = await store.openForAppend(id);
    for (const warning of loaded.warnings) notice(warning);
    for (const note of loaded.notes ?? []) log?.(note);
    return {
      id,
      writer,
      view: modelView(loaded.entries),
      header: loaded.header,
      lastModel: lastModelOf(loaded.header, loaded.entries),
      messageCount: loaded.entries.filter((e) => e.type === "message").length,
      extensionStates: loaded.entries.filter((e): e is ExtensionStateEntry => e.type === "extension_state"),
    };
  } catch (err) {
    if (!(err instanceof CorruptSessionError)) throw err;
    notice(`session ${err.id} could not be read; moved it to ${err.movedTo} and started a new session`);
    return undefined;
  }
}

/** A session's title: the first line the user typed, shortened. */
export function sessionTitle(prompt: string): string {
  const line = prompt.trim().split("\n")[0]?.trim() ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line || "(untitled)";
}
