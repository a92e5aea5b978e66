import type * as z from "zod/mini";
import type {
  CompactionEntrySchema,
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
 */
export const SESSION_VERSION = 1;

export type SessionHeader = z.infer<typeof SessionHeaderSchema> & { version: typeof SESSION_VERSION };
export type SessionEntry = z.infer<typeof SessionEntrySchema>;
export type MessageEntry = z.infer<typeof MessageEntrySchema>;
export type CompactionEntry = z.infer<typeof CompactionEntrySchema>;
export type RunEndEntry = z.infer<typeof RunEndEntrySchema>;
/** An entry before the store numbers and stamps it. */
export type NewEntry = SessionEntry extends infer E
  ? E extends SessionEntry
    ? Omit<E, "n" | "at">
    : never
  : never;
