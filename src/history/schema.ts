import { z } from "zod";

/**
 * The session file format: `<data>/sessions/<id>.jsonl.zst` is standard zstd (frames appended per
 * save, each behind a skippable marker frame holding its length and CRC — see frames.ts) that decodes to JSON Lines — this header, then one entry per line. zod validates every line on load.
 */
export const SESSION_VERSION = 1;

export const SessionHeaderSchema = z.looseObject({
  type: z.literal("session"),
  version: z.number().int().min(1),
  id: z.string().min(1),
  created_at: z.string(),
  cwd: z.string(),
  provider: z.string(),
  model: z.string(),
  title: z.string(),
});
export type SessionHeader = z.infer<typeof SessionHeaderSchema> & { version: typeof SESSION_VERSION };

const UsageSchema = z.object({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  cache_read_input_tokens: z.number().int().min(0),
  cache_creation_input_tokens: z.number().int().min(0),
});

const TextBlock = z.object({ type: z.literal("text"), text: z.string() });
const ThinkingBlock = z.object({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().optional(),
});
const ToolUseBlock = z.object({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
const ToolResultBlock = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.string(),
  is_error: z.boolean(),
});

export const MessageSchema = z.discriminatedUnion("role", [
  z.object({
    role: z.literal("user"),
    content: z.array(z.discriminatedUnion("type", [TextBlock, ToolResultBlock])),
  }),
  z.object({
    role: z.literal("assistant"),
    content: z.array(z.discriminatedUnion("type", [TextBlock, ThinkingBlock, ToolUseBlock])),
  }),
]);

/** Every entry has `n`, its 0-based position among the session's entries, and a timestamp. */
const base = { n: z.number().int().min(0), at: z.string() };

export const MessageEntrySchema = z.object({
  ...base,
  type: z.literal("message"),
  message: MessageSchema,
  /** Assistant steps: the stop reason (null when the step was cut short) and that step's usage. */
  stop_reason: z.string().nullable().optional(),
  usage: UsageSchema.optional(),
});

export const ModelChangeEntrySchema = z.object({
  ...base,
  type: z.literal("model_change"),
  provider: z.string(),
  model: z.string(),
});

/**
 * From here on the model sees `summary` in place of every message entry before `first_kept`;
 * the originals stay in the file.
 */
export const CompactionEntrySchema = z.object({
  ...base,
  type: z.literal("compaction"),
  trigger: z.enum(["auto", "manual", "overflow"]),
  summary: z.string(),
  /** `n` of the first message entry still sent to the model. */
  first_kept: z.number().int().min(0),
  tokens_before: z.number().int().min(0),
  tokens_after: z.number().int().min(0),
  /** "summary", or "dropped" when summarising failed and the oldest messages were dropped instead. */
  method: z.enum(["summary", "dropped"]),
});

/** The end of one `ion run` (or chat turn): its outcome, for listings and for resuming honestly. */
export const RunEndEntrySchema = z.object({
  ...base,
  type: z.literal("run_end"),
  subtype: z.enum(["success", "error_max_turns", "error_during_execution", "error_interrupted"]),
  num_turns: z.number().int().min(0),
  usage: UsageSchema,
  total_cost_usd: z.number().nullable(),
  errors: z.array(z.string()),
});

export const SessionEntrySchema = z.discriminatedUnion("type", [
  MessageEntrySchema,
  ModelChangeEntrySchema,
  CompactionEntrySchema,
  RunEndEntrySchema,
]);

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
