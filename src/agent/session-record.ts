import { IonError } from "../errors.ts";
import { latestExtensionState } from "../history/extension-state.ts";
import type { LoadedSession, SessionStore } from "../history/store.ts";
import type { UserMessage } from "../providers/types.ts";
import { Conversation } from "./conversation.ts";
import type { PromptRefusal, SessionStartInfo, TurnContext } from "./session-extension.ts";
import { type OpenedSession, openSession, sessionTitle } from "./session-file.ts";
import { promptText, saveError } from "./session-setup.ts";

/** A provider and model as the session file records them. */
interface FileModel {
  provider: string;
  model: string;
}

/**
 * Which session an agent session is now (a chat's /clear and /resume change it) and its record: the
 * conversation, and the file it is saved in — created with the first turn, so an empty chat leaves
 * nothing behind — with the model it last recorded.
 */
export class SessionRecord {
  conversation: Conversation;
  id: string;
  /** The provider/model the session file last recorded; a turn with another records a model change. */
  private fileModel: FileModel | undefined;

  constructor(
    private readonly store: SessionStore | undefined,
    opened: OpenedSession | undefined,
    newId: string,
    private readonly cwd: string,
  ) {
    this.id = opened?.id ?? newId;
    this.conversation = new Conversation(opened?.writer, opened?.view);
    this.fileModel = opened?.lastModel;
  }

  /** Saves the prompt after this turn's context messages (and a model change, if the model changed). */
  async saveTurn(message: UserMessage, contexts: TurnContext[], model: FileModel): Promise<void> {
    await this.ensureFile(message, model);
    const last = this.fileModel;
    if (last && (last.provider !== model.provider || last.model !== model.model))
      this.conversation.modelChanged(model.provider, model.model);
    await this.conversation.addTurn(message, contexts);
    if (this.conversation.saving) this.fileModel = model;
  }

  /**
   * A prompt an extension refused: kept in the file with its refusal (never in the model's view — the
   * user's words are not lost, and the model never sees them). Returns the error that tells the user.
   */
  async refuse(message: UserMessage, refusal: PromptRefusal, model: FileModel): Promise<IonError> {
    const what = `the prompt was not sent: ${refusal.by} refused it: ${refusal.reason}`;
    try {
      await this.ensureFile(message, model);
      await this.conversation.refused(message, refusal, what);
    } catch (err) {
      return new IonError("usage", `${what}; saving the prompt failed: ${saveError(err).message}`);
    }
    const hint = `the prompt is kept in the session file; ${refusal.by} kept it from the model`;
    return new IonError("usage", what, this.conversation.saving ? { hint } : {});
  }

  /** Whether this session saves anything (`--no-session` does not). */
  get saving(): boolean {
    return this.store !== undefined;
  }

  /** `/resume`: another saved session (id or unique prefix), opened; the current one stays until `switchTo`. */
  async open(
    prefix: string,
    notice: (line: string) => void,
    log?: (line: string) => void,
  ): Promise<OpenedSession> {
    if (!this.store) throw new IonError("usage", "this chat saves nothing (--no-session): nothing to resume");
    const id = await this.store.resolveId(prefix);
    if (id === this.id) throw new IonError("usage", `session ${id} is the current one`);
    const opened = await openSession(this.store, id, notice, log);
    if (!opened) throw new IonError("io", `session ${id} could not be read`);
    return opened;
  }

  /** Saved sessions, newest first (for `/sessions` and the `/resume` picker). */
  async list(onlyHere: boolean) {
    if (!this.store) return [];
    return this.store.list(onlyHere ? { cwd: this.cwd } : {});
  }

  /** `/clear`: a new, empty session; the old one stays saved. */
  async clear(): Promise<void> {
    await this.conversation.close();
    this.conversation = new Conversation(undefined);
    this.id = Bun.randomUUIDv7();
    this.fileModel = undefined;
  }

  /** `/resume`: continues another saved session, opened for appending; the current one is released. */
  async switchTo(opened: OpenedSession): Promise<void> {
    await this.conversation.close();
    this.conversation = new Conversation(opened.writer, opened.view);
    this.id = opened.id;
    this.fileModel = opened.lastModel;
  }

  /** The current session as saved (read-only, no lock); undefined before its first turn or with --no-session. */
  async load(): Promise<LoadedSession | undefined> {
    if (!this.store || !this.conversation.saving) return undefined;
    return this.store.load(this.id);
  }

  /** What extensions are told when this session starts; a resumed one's get back the states they saved in it. */
  startInfo(opened: OpenedSession | undefined): SessionStartInfo {
    const states = opened?.extensionStates ?? [];
    return {
      sessionId: this.id,
      resumed: opened !== undefined,
      cwd: this.cwd,
      saveState: (extension, data, parent) => this.conversation.saveState(extension, data, parent),
      latestState: (extension, parent) => latestExtensionState(states, extension, parent)?.data,
    };
  }

  private async ensureFile(message: UserMessage, model: FileModel): Promise<void> {
    if (!this.store || this.conversation.saving) return;
    const writer = await this.store.create({
      id: this.id,
      cwd: this.cwd,
      provider: model.provider,
      model: model.model,
      title: sessionTitle(promptText(message.content)),
    });
    this.conversation.attach(writer);
    this.fileModel = model;
  }
}
