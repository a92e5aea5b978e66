import * as z from "zod/mini";
import { ContextMarkSchema, MessageSchema, UserMessageSchema } from "../providers/message-schema.ts";
import { SESSION_VERSION, type SessionEntry, type SessionHeader } from "./schema.ts";
import { NewerSessionFormatError } from "./session-errors.ts";

/**
 * Validation of what is read from a session file: the zod schemas of the header and of every entry
 * (the types in schema.ts are inferred from them). Only reading needs it — ion does not validate the
 * entries it builds itself before writing them — so decode.ts imports this module when it first
 * reads a file, and a run that only starts a new session never loads zod for it.
 *
 * Written with `zod/mini`: the same validation core as the classic API at a fraction of its
 * start-up cost (see config/schema.ts).
 */

// zod/mini carries no messages of its own: the English ones, as the classic API has them.
z.config(z.locales.en());

const count = z.number().check(z.int(), z.minimum(0));

export const SessionHeaderSchema = z.looseObject({
  type: z.literal("session"),
  version: z.number().check(z.int(), z.minimum(1)),
  id: z.string().check(z.minLength(1)),
  created_at: z.string(),
  cwd: z.string(),
  provider: z.string(),
  model: z.string(),
  title: z.string(),
});

const UsageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
});

/** Every entry has `n`, its 0-based position among the session's entries, and a timestamp. */
const base = { n: count, at: z.string() };

export const MessageEntrySchema = z.object({
  ...base,
  type: z.literal("message"),
  message: MessageSchema,
  /** Assistant steps: the stop reason (null when the step was cut short) and that step's usage. */
  stop_reason: z.optional(z.nullable(z.string())),
  usage: z.optional(UsageSchema),
});

export const ModelChangeEntrySchema = z.object({
  ...base,
  type: z.literal("model_change"),
  provider: z.string(),
  model: z.string(),
});

/**
 * A context message: text ion or an extension put into the conversation (memory recall, a hook's
 * additional context), never the user's words. It enters the model's view in file order exactly as a
 * user message entry does; `message.context` names the same source, so the message stays marked as
 * context wherever it goes (compaction, transcripts), and no wire sends that mark.
 */
export const ContextMessageEntrySchema = z.object({
  ...base,
  type: z.literal("context_message"),
  source: z.string(),
  message: z.extend(UserMessageSchema, { context: ContextMarkSchema }),
});

/**
 * State an extension keeps in the session (a plan; a subagent's transcript, marked with the tool call
 * that started it). Never part of the model's view; the latest entry of an extension is its state.
 */
export const ExtensionStateEntrySchema = z.object({
  ...base,
  type: z.literal("extension_state"),
  extension: z.string(),
  data: z.unknown(),
  parent_tool_use_id: z.optional(z.string()),
});

/**
 * From here on the model sees `summary` in place of every message entry (context messages included)
 * before `first_kept`; the originals stay in the file.
 */
export const CompactionEntrySchema = z.object({
  ...base,
  type: z.literal("compaction"),
  trigger: z.enum(["auto", "manual", "overflow"]),
  summary: z.string(),
  /** `n` of the first message (or context message) entry still sent to the model. */
  first_kept: count,
  tokens_before: count,
  tokens_after: count,
  /** "summary", or "dropped" when summarising failed and the oldest messages were dropped instead. */
  method: z.enum(["summary", "dropped"]),
});

/** The end of one `ion run` (or chat turn): its outcome, for listings and for resuming honestly. */
export const RunEndEntrySchema = z.object({
  ...base,
  type: z.literal("run_end"),
  subtype: z.enum([
    "success",
    "error_max_turns",
    "error_max_budget_usd",
    "error_during_execution",
    "error_interrupted",
  ]),
  num_turns: count,
  usage: UsageSchema,
  total_cost_usd: z.nullable(z.number()),
  errors: z.array(z.string()),
  /** A failed run's kind (events.ts ErrorKind) and the provider's HTTP status; older files lack them. */
  error_kind: z.optional(z.string()),
  api_error_status: z.optional(z.number().check(z.int())),
});

export const SessionEntrySchema = z.discriminatedUnion("type", [
  MessageEntrySchema,
  ModelChangeEntrySchema,
  CompactionEntrySchema,
  RunEndEntrySchema,
  ContextMessageEntrySchema,
  ExtensionStateEntrySchema,
]);

/**
 * Every `type` this ion reads; a line of another type (a newer ion's or an extension's) is skipped,
 * not taken for damage. "session" is the header's: a second header is damage, as it always was.
 */
const KNOWN_TYPES: Record<SessionEntry["type"] | "session", true> = {
  message: true,
  model_change: true,
  compaction: true,
  run_end: true,
  context_message: true,
  extension_state: true,
  session: true,
};

/**
 * The header as this ion reads it. Each older format version gets a case that upgrades it by one
 * step and falls through to the next (e.g. `case 1: raw = v1ToV2(raw); // falls through`), ending at
 * the current version. A newer version than this ion knows is refused with a clear error (the file is
 * left alone); anything else invalid throws a ZodError (the caller treats the file as corrupt).
 */
export function migrateHeader(raw: unknown): SessionHeader {
  const fields = typeof raw === "object" && raw !== null ? raw : undefined;
  const version: unknown = fields ? Reflect.get(fields, "version") : undefined;
  if (fields && typeof version === "number" && Number.isInteger(version) && version > SESSION_VERSION) {
    const id: unknown = Reflect.get(fields, "id");
    throw new NewerSessionFormatError(typeof id === "string" ? id : "file", version);
  }
  // Each older version upgrades one step and falls through to the next; when format 2 arrives:
  //   case 1: current = headerV1ToV2(current); // falls through
  //   case 2: break;
  // (and entries of older files get the same treatment in decodeSession).
  const current: unknown = raw;
  switch (version) {
    case 1:
      break;
    default:
      break; // missing or invalid: the schema below says what is wrong
  }
  const header = z.parse(SessionHeaderSchema, current);
  if (header.version !== SESSION_VERSION) {
    throw new z.core.$ZodError([
      {
        code: "custom",
        path: ["version"],
        message: `unknown session format version ${header.version}`,
        input: header.version,
      },
    ]);
  }
  return { ...header, version: SESSION_VERSION };
}

/** The header, or why it is invalid; a newer format version still throws NewerSessionFormatError. */
export function checkHeader(raw: unknown): { header: SessionHeader } | { invalid: string } {
  try {
    return { header: migrateHeader(raw) };
  } catch (err) {
    if (err instanceof z.core.$ZodError) return { invalid: issueText(err) };
    throw err;
  }
}

/**
 * The entry schema, compiled by zod (`z.compile`: the same schema and errors, generated code on the
 * happy path — several times faster per entry, but compiling costs ~5 ms, so it pays off only on a
 * long session). Built on first use.
 */
let compiledEntrySchema: typeof SessionEntrySchema | undefined;

/**
 * A parsed entry, why it is invalid, or the type of an entry this ion does not know (an object whose
 * `type` is a string no schema here has). `many`: the file has enough entries for compiling to pay.
 */
export function checkEntry(
  raw: unknown,
  many: boolean,
): { entry: SessionEntry } | { invalid: string } | { unknownType: string } {
  const type =
    typeof raw === "object" && raw !== null && !Array.isArray(raw) ? Reflect.get(raw, "type") : undefined;
  if (typeof type === "string" && !Object.hasOwn(KNOWN_TYPES, type)) return { unknownType: type };
  if (many) compiledEntrySchema ??= z.compile(SessionEntrySchema);
  const schema = many && compiledEntrySchema ? compiledEntrySchema : SessionEntrySchema;
  const parsed = z.safeParse(schema, raw);
  return parsed.success ? { entry: parsed.data } : { invalid: issueText(parsed.error) };
}

function issueText(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return `${where}${issue.message}`;
}
