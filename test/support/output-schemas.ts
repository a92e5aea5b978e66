/**
 * The output contract of SPEC §6 (schema 2) as zod schemas, strict so that a renamed or extra field
 * fails a test. Every line carries a UUIDv7 `uuid` and the `session_id`.
 */
import { z } from "zod";

const usage = z.strictObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
});

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const line = { uuid: z.string().regex(UUID_V7), session_id: z.string().min(1) };
const stopReason = z.enum(["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal"]).nullable();

const modelUsage = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadInputTokens: z.number().int().nonnegative(),
  cacheCreationInputTokens: z.number().int().nonnegative(),
  webSearchRequests: z.number().int().nonnegative(),
  costUSD: z.number().nonnegative().nullable(),
  contextWindow: z.number().int().positive().nullable(),
  maxOutputTokens: z.number().int().positive().nullable(),
  provider: z.string().min(1),
});

/** `error_kind` values (src/agent/events.ts ErrorKind). */
export const ERROR_KINDS = [
  "auth",
  "rate_limit",
  "overloaded",
  "server",
  "context_overflow",
  "model_not_found",
  "bad_request",
  "network",
  "idle_timeout",
  "stream_dropped",
  "usage",
  "config",
  "io",
  "tool",
  "interrupted",
  "max_turns",
  "budget",
  "internal",
] as const;

/** Which sandbox `bash` commands ran in: `type` none when nothing enforced it. */
const sandboxReport = z.strictObject({
  type: z.enum(["bwrap", "sandbox-exec", "none"]),
  mode: z.enum(["workspace-write", "read-only", "off"]),
  network: z.union([z.boolean(), z.array(z.string())]),
});

const resultFields = z.strictObject({
  type: z.literal("result"),
  schema_version: z.literal(2),
  subtype: z.enum([
    "success",
    "error_max_turns",
    "error_max_budget_usd",
    "error_during_execution",
    "error_interrupted",
  ]),
  is_error: z.boolean(),
  result: z.string(),
  provider: z.string(),
  model: z.string(),
  num_turns: z.number().int().nonnegative(),
  duration_ms: z.number().nonnegative(),
  duration_api_ms: z.number().nonnegative(),
  usage,
  total_cost_usd: z.number().nonnegative().nullable(),
  permission_denials: z.array(
    z.strictObject({
      tool_name: z.string(),
      tool_use_id: z.string(),
      tool_input: z.record(z.string(), z.unknown()),
    }),
  ),
  // One line each: a script splits on newlines.
  errors: z.array(z.string().regex(/^[^\n]*$/)),
  /** Only on a failure: why, as a kind (the provider's, or ion's own). */
  error_kind: z.enum(ERROR_KINDS).optional(),
  /** Only on a failure with a provider's HTTP reply. */
  api_error_status: z.number().int().min(100).max(599).optional(),
  stop_reason: stopReason,
  modelUsage: z.record(z.string(), modelUsage),
  /** With --json-schema: the final answer, parsed. */
  structured_output: z.unknown().optional(),
  /** Where bash commands ran (absent only when no session opened). */
  sandbox: sandboxReport.optional(),
  ...line,
});

type ResultFields = {
  is_error: boolean;
  error_kind?: string | undefined;
  api_error_status?: number | undefined;
};
const failureFields = <T extends ResultFields>(r: T) =>
  r.is_error === (r.error_kind !== undefined) && (r.api_error_status === undefined || r.is_error);
const FAILURE_FIELDS = "error_kind (and api_error_status) are on failures, and only on them";

/** A result naming a session that exists (every result but a failure that saved nothing). */
export const ResultSchema = resultFields.refine(failureFields, FAILURE_FIELDS);

/** Any result: a failure that saved nothing names no session (`session_id` null). */
export const AnyResultSchema = resultFields
  .extend({ session_id: z.string().min(1).nullable() })
  .refine(failureFields, FAILURE_FIELDS);

export const InitSchema = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("init"),
  schema_version: z.literal(2),
  cwd: z.string(),
  provider: z.string(),
  model: z.string(),
  tools: z.array(z.string()),
  mcp_servers: z.array(z.strictObject({ name: z.string(), status: z.string() })),
  skills: z.array(z.string()),
  permission_mode: z.enum(["read", "ask", "auto"]),
  permissionMode: z.enum(["plan", "default", "acceptEdits", "bypassPermissions"]),
  slash_commands: z.array(z.string()),
  apiKeySource: z.string().min(1),
  // Checked where it matters (e2e/sandbox.test.ts); events built by hand in unit tests have none.
  sandbox: sandboxReport.optional(),
  output_style: z.literal("default"),
  plugins: z.array(z.unknown()).length(0),
  ...line,
});

const assistantBlock = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text"), text: z.string(), citations: z.null() }),
  z.strictObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().optional() }),
  z.strictObject({ type: z.literal("redacted_thinking"), data: z.string() }),
  z.strictObject({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
]);

/** null on the session's own lines; a child agent's lines name the tool call that runs it. */
const top = { parent_tool_use_id: z.string().min(1).nullable() };
const messageUsage = usage.extend({
  cache_creation: z.null(),
  fallback_credit: z.null(),
  inference_geo: z.null(),
  iterations: z.null(),
  output_tokens_details: z.null(),
  server_tool_use: z.null(),
  service_tier: z.null(),
  speed: z.null(),
});
const noExtras = {
  container: z.null(),
  context_management: z.null(),
  diagnostics: z.null(),
  stop_details: z.null(),
};

export const AssistantSchema = z.strictObject({
  type: z.literal("assistant"),
  message: z.strictObject({
    id: z.string().regex(/^msg_[0-9a-f]{24}$/),
    type: z.literal("message"),
    role: z.literal("assistant"),
    model: z.string().min(1),
    content: z.array(assistantBlock),
    stop_reason: stopReason,
    stop_sequence: z.null(),
    usage: messageUsage,
    ...noExtras,
  }),
  ...top,
  ...line,
});

export const UserSchema = z.strictObject({
  type: z.literal("user"),
  message: z.strictObject({
    role: z.literal("user"),
    content: z.array(
      z.strictObject({
        type: z.literal("tool_result"),
        tool_use_id: z.string(),
        content: z.string(),
        is_error: z.boolean(),
      }),
    ),
  }),
  ...top,
  ...line,
});

const rawEvent = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("message_start"),
    message: z.strictObject({
      id: z.string(),
      type: z.literal("message"),
      role: z.literal("assistant"),
      model: z.string(),
      content: z.array(z.never()),
      stop_reason: z.null(),
      stop_sequence: z.null(),
      usage: messageUsage,
      ...noExtras,
    }),
  }),
  z.strictObject({
    type: z.literal("content_block_start"),
    index: z.number().int().nonnegative(),
    content_block: z.discriminatedUnion("type", [
      z.strictObject({ type: z.literal("text"), text: z.literal(""), citations: z.null() }),
      z.strictObject({ type: z.literal("thinking"), thinking: z.literal(""), signature: z.literal("") }),
      z.strictObject({
        type: z.literal("tool_use"),
        id: z.string(),
        name: z.string(),
        input: z.strictObject({}),
      }),
    ]),
  }),
  z.strictObject({
    type: z.literal("content_block_delta"),
    index: z.number().int().nonnegative(),
    delta: z.discriminatedUnion("type", [
      z.strictObject({ type: z.literal("text_delta"), text: z.string() }),
      z.strictObject({ type: z.literal("thinking_delta"), thinking: z.string() }),
      z.strictObject({ type: z.literal("input_json_delta"), partial_json: z.string() }),
    ]),
  }),
  z.strictObject({ type: z.literal("content_block_stop"), index: z.number().int().nonnegative() }),
  z.strictObject({
    type: z.literal("message_delta"),
    context_management: z.null(),
    delta: z.strictObject({
      stop_reason: stopReason,
      stop_sequence: z.null(),
      container: z.null(),
      stop_details: z.null(),
    }),
    usage: usage.extend({
      fallback_credit: z.null(),
      iterations: z.null(),
      output_tokens_details: z.null(),
      server_tool_use: z.null(),
    }),
  }),
  z.strictObject({ type: z.literal("message_stop") }),
]);

export const StreamEventSchema = z.strictObject({
  type: z.literal("stream_event"),
  event: rawEvent,
  ...top,
  ...line,
});

export const ApiRetrySchema = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("api_retry"),
  attempt: z.number().int().positive(),
  max_retries: z.number().int().positive(),
  retry_delay_ms: z.number().nonnegative(),
  error_status: z.number().int().nullable(),
  error: z.enum([
    "authentication_failed",
    "rate_limit",
    "overloaded",
    "server_error",
    "invalid_request",
    "model_not_found",
    "unknown",
  ]),
  error_message: z.string(),
  parent_tool_use_id: z.string().min(1).optional(),
  ...line,
});

export const CompactBoundarySchema = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("compact_boundary"),
  compact_metadata: z.strictObject({
    trigger: z.enum(["auto", "manual"]),
    pre_tokens: z.number().int().nonnegative(),
    post_tokens: z.number().int().nonnegative(),
  }),
  trigger: z.enum(["auto", "manual", "overflow"]),
  pre_tokens: z.number().int().nonnegative(),
  post_tokens: z.number().int().nonnegative(),
  ...line,
});

/** Validates a whole stream-json transcript: init first, result last and only once, known lines between. */
export function parseStreamJson(lines: Record<string, unknown>[]) {
  if (lines.length < 2)
    throw new Error(`stream-json: expected at least init and result, got ${lines.length} lines`);
  const init = InitSchema.parse(lines[0]);
  const result = ResultSchema.parse(lines[lines.length - 1]);
  const middle = lines.slice(1, -1).map((line) => {
    switch (line.type) {
      case "assistant":
        return AssistantSchema.parse(line);
      case "user":
        return UserSchema.parse(line);
      case "stream_event":
        return StreamEventSchema.parse(line);
      case "system":
        return line.subtype === "compact_boundary"
          ? CompactBoundarySchema.parse(line)
          : ApiRetrySchema.parse(line);
      default:
        throw new Error(`stream-json: unexpected line type ${String(line.type)}`);
    }
  });
  for (const line of middle) {
    if ("session_id" in line && line.session_id !== init.session_id)
      throw new Error("stream-json: session_id changed");
  }
  if (result.session_id !== init.session_id)
    throw new Error("stream-json: result session_id differs from init");
  return { init, middle, result };
}
