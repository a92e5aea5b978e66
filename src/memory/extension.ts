import type { AgentEvent } from "../agent/events.ts";
import type {
  PromptInfo,
  SessionExtension,
  SessionStartInfo,
  TurnContextPart,
  TurnEndInfo,
} from "../agent/session-extension.ts";
import type { Env } from "../config/paths.ts";
import type { Config, Keys } from "../config/schema.ts";
import type { Message, UserBlock } from "../providers/types.ts";
import { messageOf } from "../util/error-text.ts";
import type { MemoryStore } from "./store.ts";
import type { EmbeddingProvider } from "./types.ts";

/**
 * Memory as a session extension. Before each prompt (`turnContext`) it recalls what earlier sessions
 * hold about it — never this session's own turns — into one "memory context" message saved before the
 * prompt, within the token budget; after each turn (`turnEnd`, once the result is out) it learns the
 * turn in the background — posted to the inbox (inbox.ts), which the next store to open takes in — and
 * `sessionEnd` waits for that.
 *
 * Nothing of src/memory beyond this file loads until a turn needs it: a transactional prompt ("hi",
 * "thanks") recalls nothing and never opens the database. Off with `memory.enabled: false` or
 * `/memory off`; `--no-session` does not add the extension at all. A failure to recall or learn (a
 * locked or broken database, a full disk, an embeddings endpoint down) is one warning, never a failed turn.
 */

export const MEMORY_EXTENSION = "memory";
/** The default budget: a tenth of the window, at most this. */
const MAX_DEFAULT_BUDGET = 4000;
/** How long the end of a session waits for learning still under way. */
const LEARN_WAIT_MS = 10_000;

interface MemorySetup {
  config: Config;
  env: Env;
  keys: Keys;
  secrets: readonly string[];
  notice: (text: string) => void;
}

export class SessionMemory implements SessionExtension {
  readonly name = MEMORY_EXTENSION;
  /** Old recalls are recalled again when they matter: a compaction does not summarise them. */
  readonly contextDroppedOnCompact = true;
  private setup: MemorySetup | undefined;
  /** `/memory off` for this session (the config stays as it is). */
  private switchedOff = false;
  private store: Promise<MemoryStore> | undefined;
  private embedder: Promise<EmbeddingProvider | undefined> | undefined;
  private readonly learning = new Set<Promise<void>>();
  private readonly told = new Set<string>();

  /** Whether this session recalls and learns now. */
  get enabled(): boolean {
    return this.setup !== undefined && this.setup.config.memory?.enabled !== false && !this.switchedOff;
  }

  /** Whether the configuration turned memory off (then `/memory on` cannot). */
  get configuredOff(): boolean {
    return this.setup?.config.memory?.enabled === false;
  }

  /** `/memory on|off`: for this session only. */
  set enabled(on: boolean) {
    this.switchedOff = !on;
  }

  async sessionStart(info: SessionStartInfo): Promise<void> {
    if (!info.config || !info.env) return;
    this.setup = {
      config: info.config,
      env: info.env,
      keys: info.keys ?? {},
      secrets: info.secrets ?? [],
      notice: info.notice ?? (() => {}),
    };
    this.embedder = undefined; // made again from this session's configuration
  }

  async turnContext(prompt: PromptInfo): Promise<TurnContextPart | undefined> {
    const setup = this.setup;
    if (!setup || !this.enabled) return undefined;
    const text = textOf(prompt.content);
    try {
      const { isTransactional } = await import("./classify.ts");
      if (text === "" || isTransactional(text)) return undefined;
      const limit = setup.config.memory?.budget_tokens ?? defaultBudget(prompt.contextWindow);
      const { frameTokens, renderMemoryContext } = await import("./render.ts");
      const room = limit - frameTokens();
      if (room <= 0) return undefined;
      const store = await this.storeFor(setup);
      store.takeInbox(); // what other ion processes learnt since this chat opened the store
      const { recall } = await import("./recall.ts");
      const found = await recall(store, text, {
        budgetTokens: room,
        excludeSource: prompt.sessionId,
        contextTexts: [`user: ${text}`, ...contextTexts(prompt.messages)],
        embedder: await this.embedderFor(setup),
        halfLifeDays: setup.config.memory?.recency_half_life_days,
      });
      if (found.embeddingError)
        this.warn(setup, `${found.embeddingError}; recalled by words and recency only`);
      const { tokensOfChars } = await import("../agent/tokens.ts");
      // Best first: the least relevant go first while the whole message is over the limit.
      const kept = found.memories.map((recalled) => recalled.memory);
      let message = renderMemoryContext(kept);
      while (kept.length > 0 && tokensOfChars(message.length) > limit) {
        kept.pop();
        message = renderMemoryContext(kept);
      }
      if (kept.length === 0) return undefined;
      const event: AgentEvent = {
        type: "memory_recall",
        count: kept.length,
        tokens: tokensOfChars(message.length),
      };
      return { text: message, events: [event] };
    } catch (err) {
      this.warn(setup, `could not recall: ${messageOf(err)}`);
      return undefined;
    }
  }

  async turnEnd(turn: TurnEndInfo): Promise<void> {
    const setup = this.setup;
    if (!setup || !this.enabled) return;
    const job = this.learn(setup, turn).catch((err: unknown) => {
      this.warn(setup, `could not learn this turn: ${messageOf(err)}`);
    });
    this.learning.add(job);
    void job.finally(() => this.learning.delete(job));
  }

  /**
   * Waits for learning still under way. The database stays open for the process's next session (a
   * chat's /clear); Bun closes it when the process exits, and that close's WAL checkpoint (two fsyncs)
   * is the one cost memory adds to a run's end.
   */
  async sessionEnd(): Promise<void> {
    await settled([...this.learning], LEARN_WAIT_MS);
  }

  /** The store for `/memory`: the session's own connection. */
  openStore(): Promise<MemoryStore> {
    if (!this.setup) return Promise.reject(new Error("memory: the session has not started"));
    return this.storeFor(this.setup);
  }

  /** The store, opened on first use (a broken file is moved aside with a warning by the store). */
  private storeFor(setup: MemorySetup): Promise<MemoryStore> {
    this.store ??= import("./store.ts").then(({ MemoryStore, memoryDbPath }) =>
      MemoryStore.open(memoryDbPath(setup.env), { warn: (text) => setup.notice(`warning: ${text}`) }),
    );
    const opening = this.store;
    // A store that failed to open is tried again next turn (the disk may have room by then).
    opening.catch(() => {
      if (this.store === opening) this.store = undefined;
    });
    return opening;
  }

  /** The configured embedding provider, made once; one that cannot be made is told once: BM25 + recency only. */
  private embedderFor(setup: MemorySetup): Promise<EmbeddingProvider | undefined> {
    const spec = setup.config.memory?.embedding;
    if (spec === undefined) return Promise.resolve(undefined);
    this.embedder ??= import("./embeddings.ts")
      .then(({ embedderFor }) =>
        embedderFor(spec, { config: setup.config, env: setup.env, keys: setup.keys }),
      )
      .catch((err: unknown) => {
        this.warn(setup, `${messageOf(err)}; recalling by words and recency only`);
        return undefined;
      });
    return this.embedder;
  }

  private async learn(setup: MemorySetup, turn: TurnEndInfo): Promise<void> {
    // After the result went out: let the output be written before the database is touched.
    await new Promise((resolve) => setImmediate(resolve));
    const { turnMemories } = await import("./learn.ts");
    const { redactForMemory } = await import("./redact.ts");
    const memories = turnMemories(turn, (text) => redactForMemory(text, setup.secrets));
    // Posted, not stored: no SQLite on the way out of a run; the next store to open takes them in.
    const { memoryDbPath, postMemories } = await import("./inbox.ts");
    postMemories(memoryDbPath(setup.env), memories);
  }

  /** One line per distinct problem a session: a database that stays locked is not said every turn. */
  private warn(setup: MemorySetup, text: string): void {
    if (this.told.has(text)) return;
    this.told.add(text);
    setup.notice(`warning: memory: ${text}`);
  }
}

/** min(10 % of the window, 4 000) tokens; 4 000 when the window is unknown. */
export function defaultBudget(contextWindow: number | undefined): number {
  return contextWindow ? Math.min(Math.floor(contextWindow / 10), MAX_DEFAULT_BUDGET) : MAX_DEFAULT_BUDGET;
}

function textOf(content: readonly UserBlock[]): string {
  return content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
}

/**
 * The conversation's texts as memories would read them (`user: …`, `assistant: …`), and context
 * messages (earlier recalls) as they are: a memory already in one is not recalled again.
 */
function contextTexts(messages: readonly Message[]): string[] {
  const texts: string[] = [];
  for (const message of messages) {
    const text = message.content
      .flatMap((block) => (block.type === "text" ? [block.text] : []))
      .join("\n")
      .trim();
    if (text === "") continue;
    const isContext = message.role === "user" && message.context !== undefined;
    texts.push(isContext ? text : `${message.role}: ${text}`);
  }
  return texts;
}

/** Waits for every promise to settle, at most `ms`. */
async function settled(promises: Promise<void>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.allSettled(promises), timeout]);
  clearTimeout(timer);
}
