import type * as z from "zod/mini";
import type { UserMessage } from "../providers/types.ts";
import type {
  CompactionEntrySchema,
  ContextMessageEntrySchema,
  ExtensionStateEntrySchema,
  MessageEntrySchema,
  RunEndEntrySchema,
  SessionEntrySchema,
  SessionHeaderSchema,
} from "./validate.ts";

/**
 * The session file format: `<data>/sessions/<id>.jsonl.zst` is standard zstd (frames appended per
 * save, each behind a skippable marker frame holding its length and CRC — see frames.ts) that decodes
 * to JSON Lines — this header, then one entry per line. The types here are inferred from the zod
 * schemas in validate.ts, which check every line when a file is read; importing this module loads no
 * zod (what a run writes is built by ion itself and is not validated again).
 *
 * An entry whose `type` this ion does not know (a newer ion's, an extension's) keeps its place and its
 * `n` in the file but is skipped when the file is read, with one warning per load. New kinds of entry
 * therefore need no new format version; the version changes only when a known entry changes meaning.
 */
export const SESSION_VERSION = 1;

export type SessionHeader = z.infer<typeof SessionHeaderSchema> & { version: typeof SESSION_VERSION };
export type SessionEntry = z.infer<typeof SessionEntrySchema>;
export type MessageEntry = z.infer<typeof MessageEntrySchema>;
export type CompactionEntry = z.infer<typeof CompactionEntrySchema>;
export type RunEndEntry = z.infer<typeof RunEndEntrySchema>;
/**
 * `{"type":"context_message","n","at","source","message":{"role":"user","content":[…],"context":{"source"}}}`:
 * a message ion or an extension put into the conversation; in the model's view like a user message.
 */
export type ContextMessageEntry = z.infer<typeof ContextMessageEntrySchema>;
/**
 * `{"type":"extension_state","n","at","extension","data","parent_tool_use_id"?}`: an extension's
 * state (a plan; a subagent's transcript under the call that started it). Not in the model's view.
 */
export type ExtensionStateEntry = z.infer<typeof ExtensionStateEntrySchema>;

type Unstamped<E> = E extends SessionEntry ? Omit<E, "n" | "at"> : never;

/**
 * A context message to append. The writer marks the message with its source (`message.context`), so
 * the caller may pass a plain user message.
 */
export interface NewContextMessage {
  type: "context_message";
  source: string;
  message: UserMessage;
}

/** An entry before the store numbers and stamps it. */
export type NewEntry = Unstamped<Exclude<SessionEntry, ContextMessageEntry>> | NewContextMessage;
