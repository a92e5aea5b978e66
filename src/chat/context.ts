import type { AgentEvent } from "../agent/events.ts";
import type { PermissionMode } from "../agent/permissions.ts";
import type { AgentSession } from "../agent/session.ts";
import type { ModelInfo } from "../catalog/catalog.ts";
import type { ThinkingLevel } from "../providers/types.ts";
import type { Choice } from "../ui/first-run.ts";
import type { Style } from "../ui/style.ts";
import type { SlashRegistry } from "./registry.ts";

/** What a slash command may use: the session, the terminal, and the chat's own settings. */
export interface ChatContext {
  session: AgentSession;
  registry: SlashRegistry<ChatContext>;
  style: Style;
  /** A terminal (pickers, colours); false when stdin is a pipe. */
  interactive: boolean;
  /** One line of output for the user. */
  print(text: string): void;
  /** A fuzzy picker on the terminal; undefined when cancelled (or there is no terminal). */
  pick(message: string, choices: (query: string) => Choice[], initial?: string): Promise<string | undefined>;
  /** Renders events (a compaction) like a turn's, cancellable with Ctrl+C. */
  render(make: (signal: AbortSignal) => AsyncIterable<AgentEvent>): Promise<void>;
  /** Thinking level and permission mode: applied to the session and saved in the user config. */
  setThinking(level: ThinkingLevel): Promise<void>;
  setMode(mode: PermissionMode): Promise<void>;
  /**
   * Saves a setting in the user config when typed on a terminal (piped lines change this chat only);
   * `note` says where, or why not, for the end of the command's line.
   */
  saveSetting(path: string[], value: unknown): Promise<{ saved: boolean; note: string }>;
  showThinking: boolean;
  /** The catalogue's models of configured providers (cached; may fetch once). */
  models(): Promise<ModelInfo[]>;
  quit(): void;
}
