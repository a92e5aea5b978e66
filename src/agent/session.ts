import { IonError } from "../errors.ts";
import type { SessionEntry } from "../history/schema.ts";
import { CorruptSessionError, SessionStore } from "../history/store.ts";
import { modelView } from "../history/view.ts";
import type { Message } from "../providers/types.ts";
import { SessionRecorder } from "./recorder.ts";

export interface SessionChoice {
  /** -c: the latest session of this cwd. */
  continueLatest: boolean;
  /** -r ID: a given session (prefix of its id). */
  resume: string | undefined;
  /** --no-session: write nothing. */
  noSession: boolean;
}

export interface RunSession {
  id: string;
  /** The model's view of the earlier conversation (empty for a new session). */
  history: Message[];
  recorder: SessionRecorder | undefined;
}

interface OpenOptions {
  dataDir: string;
  cwd: string;
  provider: string;
  model: string;
  title: string;
  /** The id a new session gets. */
  newId: string;
  retentionDays: number;
  notice: (line: string) => void;
}

function lastModel(header: { provider: string; model: string }, entries: readonly SessionEntry[]) {
  let current = { provider: header.provider, model: header.model };
  for (const entry of entries)
    if (entry.type === "model_change") current = { provider: entry.provider, model: entry.model };
  return current;
}

async function expire(store: SessionStore, options: OpenOptions): Promise<void> {
  if (options.retentionDays <= 0) return;
  const { applyRetention } = await import("../history/retention.ts");
  const { moved } = await applyRetention({
    store,
    dataDir: options.dataDir,
    days: options.retentionDays,
    now: new Date(),
  });
  if (moved.length === 0) return;
  const list = moved.map((s) => `${s.id} (${s.title})`).join(", ");
  options.notice(
    `moved ${moved.length} session(s) not used for ${options.retentionDays} days to the trash: ${list}`,
  );
}

/** Picks the session a run (or, later, a chat) continues or starts; never overwrites a corrupt file (it is moved aside). */
export async function openRunSession(choice: SessionChoice, options: OpenOptions): Promise<RunSession> {
  if (choice.continueLatest && choice.resume !== undefined) {
    throw new IonError("usage", "--continue and --resume cannot be used together");
  }
  if (choice.noSession) {
    if (choice.continueLatest || choice.resume !== undefined) {
      throw new IonError("usage", "--no-session cannot be combined with --continue or --resume");
    }
    return { id: options.newId, history: [], recorder: undefined };
  }
  const store = SessionStore.forDataDir(options.dataDir);
  await expire(store, options);

  let id: string | undefined;
  if (choice.resume !== undefined) id = await store.resolveId(choice.resume);
  else if (choice.continueLatest) {
    id = await store.latestForCwd(options.cwd);
    if (!id) options.notice("no earlier session in this directory; starting a new one");
  }

  if (id) {
    try {
      const { writer, loaded } = await store.openForAppend(id);
      for (const warning of loaded.warnings) options.notice(warning);
      const view = modelView(loaded.entries);
      const previous = lastModel(loaded.header, loaded.entries);
      const recorder = new SessionRecorder(writer, view.ns);
      if (previous.provider !== options.provider || previous.model !== options.model) {
        recorder.pendingModelChange = { provider: options.provider, model: options.model };
      }
      return { id, history: view.messages, recorder };
    } catch (err) {
      if (!(err instanceof CorruptSessionError)) throw err;
      options.notice(
        `session ${err.id} could not be read; moved it to ${err.movedTo} and started a new session`,
      );
    }
  }
  const writer = await store.create({
    id: options.newId,
    cwd: options.cwd,
    provider: options.provider,
    model: options.model,
    title: options.title,
  });
  return { id: writer.id, history: [], recorder: new SessionRecorder(writer, []) };
}

/** A session's title: the first line the user typed, shortened. */
export function sessionTitle(prompt: string): string {
  const line = prompt.trim().split("\n")[0]?.trim() ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line || "(untitled)";
}
