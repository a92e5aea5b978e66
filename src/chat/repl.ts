import type { AgentEvent, RunResult } from "../agent/events.ts";
import { PERMISSION_MODES, type PermissionMode } from "../agent/permissions.ts";
import type { AgentSession } from "../agent/session.ts";
import type { ModelInfo } from "../catalog/catalog.ts";
import { describeError, IonError } from "../errors.ts";
import { imageLabel, imageRefusal } from "../providers/image.ts";
import { THINKING_LEVELS, type ThinkingLevel, type UserBlock } from "../providers/types.ts";
import type { WorkspaceScope } from "../tools/workspace.ts";
import { ChatRenderer } from "../ui/chat-render.ts";
import type { Writer } from "../ui/renderer.ts";
import type { Style } from "../ui/style.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { textLines } from "../util/text-lines.ts";
import { type AttachTarget, ChatAttachments } from "./attach.ts";
import type { ChatContext } from "./context.ts";
import type { ChatInput } from "./input.ts";
import type { MentionCompleter } from "./mention-complete.ts";
import { mentionAtEnd } from "./mention-parse.ts";
import { parseSlash, type SlashRegistry } from "./registry.ts";

/**
 * The chat loop: read a message, run a slash command or a turn of the agent session, render it,
 * repeat. One loop for a terminal (readline input, colours, pickers) and for piped stdin (one turn
 * per line, plain output, no prompts); the session saves every turn as it happens.
 */

export interface ChatIO {
  /** Answers; the terminal in interactive mode. */
  out: Writer;
  /** Tool lines, notices, status lines: the terminal, or stderr when stdin is a pipe. */
  progress: Writer;
  style: Style;
  color: boolean;
  /** stdin and stdout are terminals. */
  interactive: boolean;
  /**
   * stdin is a terminal: a person types the lines. Otherwise the lines are piped text, often a document:
   * they may not raise the mode (`refuseWhenPiped`), and no setting they change is saved.
   */
  typed: boolean;
  /** The terminal's line input; undefined when stdin is a pipe. */
  input: ChatInput | undefined;
  /** Lines of piped stdin; used when `input` is undefined. */
  lines: AsyncIterable<string> | undefined;
  /** The user config file, where Ctrl+T, Shift+Tab, /think and /mode typed on a terminal are saved. */
  configFile: string;
  pick: ChatContext["pick"];
}

/** A key this recent when a long turn ends means the user is typing: no bell. */
const TYPING_MS = 5_000;

const SHORT_LEVEL: Record<ThinkingLevel, string> = { off: "off", low: "low", medium: "med", high: "high" };

/** `[med auto] > `: the thinking level and the mode when they differ from the defaults. */
export function promptFor(thinking: ThinkingLevel, mode: PermissionMode): string {
  const tags: string[] = [];
  if (thinking !== "off") tags.push(SHORT_LEVEL[thinking]);
  if (mode !== "ask") tags.push(mode);
  return tags.length > 0 ? `[${tags.join(" ")}] > ` : "> ";
}

export function nextOf<T>(values: readonly T[], current: T): T {
  return values[(values.indexOf(current) + 1) % values.length]!;
}

export class Chat {
  private quitting = false;
  private cancel: (() => void) | undefined;
  private renderer: ChatRenderer | undefined;
  private catalog: Promise<ModelInfo[]> | undefined;
  private saves: Promise<void> = Promise.resolve();
  private readonly attachments = new ChatAttachments();
  private mentions: Promise<MentionCompleter> | undefined;
  readonly context: ChatContext;

  constructor(
    private readonly session: AgentSession,
    private readonly registry: SlashRegistry<ChatContext>,
    private readonly io: ChatIO,
  ) {
    const chat = this;
    this.context = {
      session,
      registry,
      style: io.style,
      interactive: io.interactive,
      showThinking: true,
      print: (text) => io.progress.write(`${text}\n`),
      pick: io.pick,
      render: (make) => this.render(make),
      setThinking: (level) => this.setThinking(level),
      setMode: (mode) => this.setMode(mode),
      saveSetting: (path, value) => this.keep(path, value),
      models: () => this.models(),
      quit() {
        chat.quitting = true;
      },
    };
  }

  /** For the approval question: get the spinner and any open line out of the way. */
  async suspendOutput(): Promise<void> {
    await this.renderer?.suspend();
  }

  /** Ctrl+C from outside the line editor (SIGINT): cancels a running turn, else leaves. */
  interrupt(): void {
    if (this.cancel) this.cancel();
    else this.quitting = true;
  }

  get done(): boolean {
    return this.quitting;
  }

  /** A turn (or command) is streaming: cancelling it ends it, and it still saves what it did. */
  get busy(): boolean {
    return this.cancel !== undefined;
  }

  /** Runs until /quit, Ctrl+D or the end of piped input. */
  async run(): Promise<void> {
    const lines = this.io.lines?.[Symbol.asyncIterator]();
    while (!this.quitting) {
      const text = this.io.input ? await this.io.input.read() : await readPiped(lines);
      if (text === undefined) break;
      if (text.trim() === "") continue;
      if (await this.attachPasted(text)) continue; // before slash commands: a pasted path may start with /
      if (text.trimStart().startsWith("/")) await this.slash(text);
      else await this.turn(text);
    }
  }

  async slash(text: string): Promise<void> {
    const parsed = parseSlash(text);
    if (!parsed) return;
    const command = this.registry.find(parsed.name);
    if (!command) {
      const near = await this.registry.suggest(parsed.name);
      this.context.print(
        `unknown command /${parsed.name}${near.length > 0 ? ` — did you mean ${near.map((n) => `/${n}`).join(", ")}?` : ""} (/help lists them; nothing was sent)`,
      );
      return;
    }
    const refusal = this.io.typed ? undefined : command.refuseWhenPiped?.(parsed.args, this.context);
    if (refusal !== undefined) {
      const line = `/${parsed.name}${parsed.args ? ` ${parsed.args}` : ""}`;
      this.context.print(this.io.style.red(`ion: ${line} refused: ${refusal}; nothing was sent`));
      return;
    }
    try {
      await command.run(parsed.args, this.context);
    } catch (err) {
      this.error(err);
    }
  }

  async turn(text: string): Promise<void> {
    const content = await this.messageContent(text);
    if (!content) return;
    let result: RunResult | undefined;
    const started = performance.now();
    const renderer = this.newRenderer();
    await this.render(
      (signal) => this.session.turn(content, signal),
      renderer,
      (r) => {
        result = r;
      },
    );
    if (result)
      await renderer.finish(result, {
        provider: result.provider,
        model: result.model,
        contextUsed: this.session.contextUsed,
        contextWindow: this.session.contextWindow,
      });
    this.bell(performance.now() - started, result);
    // The user reads and types now: a full collection costs nothing they would notice, and keeps a
    // long chat's memory near where it started.
    Bun.gc(true);
  }

  /**
   * BEL when a long turn ends on a terminal, so a user who looked away hears it (config
   * `chat.notify_after_s`, default 30 s; 0 = never). Someone typing as it ends (a key within the last
   * TYPING_MS), or who stopped the turn (Ctrl+C, Esc twice), is at the terminal and needs no bell.
   */
  private bell(ms: number, result: RunResult | undefined): void {
    const after = this.session.configuration.chat?.notify_after_s ?? 30;
    const { input } = this.io;
    if (!input || after <= 0 || ms < after * 1000 || result?.subtype === "error_interrupted") return;
    if (input.typedWithin(TYPING_MS)) return;
    this.io.progress.write("\x07");
  }

  /** A line that is a pasted image path: the image is held for the next message; false for any other line. */
  private async attachPasted(text: string): Promise<boolean> {
    try {
      const image = await this.attachments.paste(text, this.attachTarget());
      if (!image) return false;
      this.context.print(`attached ${imageLabel(image)}; it goes with your next message`);
    } catch (err) {
      this.error(err);
    }
    return true;
  }

  /**
   * A typed message with what it attaches (chat/attach.ts): held images and `@` mentions, the files
   * said in one dim line. Undefined, with the reason said, when a mentioned file cannot go.
   */
  private async messageContent(text: string): Promise<UserBlock[] | undefined> {
    try {
      const { blocks, attached } = await this.attachments.content(text, this.scope());
      // Refused before the files are said to be attached: nothing goes to a model that cannot read them.
      const { modelCapabilities, label } = this.attachTarget();
      const refusal = imageRefusal(blocks, modelCapabilities, label);
      if (refusal) throw refusal;
      if (attached.length > 0)
        this.context.print(this.io.style.dim(`attached: ${safeForTerminal(attached.join(", "))}`));
      return blocks;
    } catch (err) {
      this.error(err);
      return undefined;
    }
  }

  private attachTarget(): AttachTarget {
    const { session } = this;
    return {
      cwd: session.cwd,
      modelCapabilities: session.modelCapabilities,
      label: `${session.provider.id}/${session.model}`,
    };
  }

  private scope(): WorkspaceScope {
    return { root: this.session.cwd, allow: this.session.configuration.workspace?.allow ?? [] };
  }

  /** Tab: an `@path` being typed completes to a file, a slash command through the registry. */
  async complete(line: string): Promise<[string[], string]> {
    if (line.startsWith("/") || !mentionAtEnd(line)) return this.registry.complete(line, this.context);
    // fuse.js and the file walker load on the first `@` Tab, not at the chat's start.
    this.mentions ??= import("./mention-complete.ts").then((m) => new m.MentionCompleter(() => this.scope()));
    return (await this.mentions).complete(line);
  }

  private newRenderer(): ChatRenderer {
    return new ChatRenderer({
      out: this.io.out,
      progress: this.io.progress,
      style: this.io.style,
      color: this.io.color,
      interactive: this.io.interactive,
      showThinking: this.context.showThinking,
      columns: () => (this.io.interactive ? process.stdout.columns : undefined),
    });
  }

  /** Renders a stream of events; Ctrl+C cancels it. Errors are one line, never a crash. */
  private async render(
    make: (signal: AbortSignal) => AsyncIterable<AgentEvent>,
    renderer = this.newRenderer(),
    onResult?: (result: RunResult) => void,
  ): Promise<void> {
    const controller = new AbortController();
    this.cancel = () => controller.abort();
    this.io.input?.busy(this.cancel);
    this.renderer = renderer;
    try {
      for await (const event of make(controller.signal)) {
        await renderer.onEvent(event);
        if (event.type === "result") onResult?.(event.result);
      }
      await renderer.suspend();
    } catch (err) {
      await renderer.suspend();
      this.error(err);
    } finally {
      this.cancel = undefined;
      this.renderer = undefined;
    }
  }

  private error(err: unknown): void {
    const line = `ion: ${safeForTerminal(describeError(err))}`;
    this.context.print(this.io.style.red(line));
    if (err instanceof IonError && err.hint)
      this.context.print(this.io.style.dim(`  hint: ${safeForTerminal(err.hint)}`));
  }

  /** Ctrl+T: off → low → medium → high → off. */
  cycleThinking(): Promise<void> {
    return this.setThinking(nextOf(THINKING_LEVELS, this.session.thinking), "key");
  }

  /** Shift+Tab: read → ask → auto → read. */
  cycleMode(): Promise<void> {
    return this.setMode(nextOf(PERMISSION_MODES, this.session.mode), "key");
  }

  private async setThinking(level: ThinkingLevel, via: "command" | "key" = "command"): Promise<void> {
    this.session.thinking = level;
    const kept = await this.keep(["thinking"], level);
    // Ctrl+T is shown by the prompt's tag alone (it is pressed several times in a row), unless not saved.
    if (via === "command" || !kept.saved)
      this.context.print(this.io.style.dim(`thinking: ${level}${kept.note}`));
    this.io.input?.refresh();
  }

  /** The mode is never changed in the file unseen: Shift+Tab says so too, above the prompt. */
  private async setMode(mode: PermissionMode, via: "command" | "key" = "command"): Promise<void> {
    this.session.mode = mode;
    const line = this.io.style.dim(`mode: ${mode}${(await this.keep(["permissions", "mode"], mode)).note}`);
    if (via === "key" && this.io.input) this.io.input.say(line);
    else this.context.print(line);
    this.io.input?.refresh();
  }

  /**
   * Saves a setting typed on a terminal in the user config, so the next chat starts the same, and
   * says where (or why not: a failure is said, not fatal); piped lines change this chat only. Saves
   * run one after another: two quick Ctrl+T presses must leave the second level in the file.
   */
  private async keep(path: string[], value: unknown): Promise<{ saved: boolean; note: string }> {
    if (!this.io.typed)
      return { saved: false, note: " (this chat only: piped input does not change your saved default)" };
    let failure: string | undefined;
    this.saves = this.saves.then(async () => {
      try {
        // The config editor (and the schema and fuse.js it brings) loads on the first change, not at start.
        const { setConfigValue } = await import("../config/edit.ts");
        await setConfigValue(this.io.configFile, path, value);
      } catch (err) {
        failure = describeError(err);
      }
    });
    await this.saves;
    if (failure !== undefined)
      return { saved: false, note: ` (not saved in ${this.io.configFile}: ${failure})` };
    return { saved: true, note: ` (saved as your default in ${this.io.configFile})` };
  }

  private models(): Promise<ModelInfo[]> {
    this.catalog ??= (async () => {
      const { loadCatalog } = await import("../catalog/catalog.ts");
      const catalog = await loadCatalog(this.session.catalogInputs());
      return catalog.models.filter((m) => m.configured);
    })();
    this.catalog.catch(() => {
      this.catalog = undefined; // try again next time (e.g. once the network is back)
    });
    return this.catalog;
  }
}

/** Piped input: a line per message; a trailing `\` joins the next line. */
async function readPiped(lines: AsyncIterator<string> | undefined): Promise<string | undefined> {
  if (!lines) return undefined;
  const parts: string[] = [];
  for (;;) {
    const next = await lines.next();
    if (next.done) return parts.length > 0 ? parts.join("\n") : undefined;
    const line = next.value;
    if (line.endsWith("\\") && !line.endsWith("\\\\")) {
      parts.push(line.slice(0, -1));
      continue;
    }
    parts.push(line);
    return parts.join("\n");
  }
}

/** Lines of a non-terminal stdin; binary data ends the chat with an error (textLines). */
export function pipedLines(stdin: NodeJS.ReadStream): AsyncIterable<string> {
  return textLines(stdin);
}
