/**
 * The output contract of SPEC §6 as zod schemas, strict so that a renamed or extra field fails a test.
 */
import { z } from "zod";

const usage = z.strictObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
});

export const ResultSchema = z.strictObject({
  type: z.literal("result"),
  schema_version: z.literal(1),
  subtype: z.enum(["success", "error_max_turns", "error_during_execution", "error_interrupted"]),
  is_error: z.boolean(),
  result: z.string(),
  session_id: z.string().min(1),
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
  errors: z.array(z.string()),
});

export const InitSchema = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("init"),
  schema_version: z.literal(1),
  session_id: z.string().min(1),
  cwd: z.string(),
  provider: z.string(),
  model: z.string(),
  tools: z.array(z.string()),
  mcp_servers: z.array(z.unknown()),
  skills: z.array(z.unknown()),
  permission_mode: z.enum(["read", "ask", "auto"]),
});

const assistantBlock = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text"), text: z.string() }),
  z.strictObject({ type: z.literal("thinking"), thinking: z.string() }),
  z.strictObject({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
]);

export const AssistantSchema = z.strictObject({
  type: z.literal("assistant"),
  session_id: z.string().min(1),
  message: z.strictObject({
    role: z.literal("assistant"),
    content: z.array(assistantBlock),
    stop_reason: z.enum(["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal"]).nullable(),
    usage,
  }),
});

export const UserSchema = z.strictObject({
  type: z.literal("user"),
  session_id: z.string().min(1),
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
});

export const StreamEventSchema = z.strictObject({
  type: z.literal("stream_event"),
  session_id: z.string().min(1),
  event: z.strictObject({ type: z.enum(["text_delta", "thinking_delta"]), text: z.string() }),
});

export const ApiRetrySchema = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("api_retry"),
  session_id: z.string().min(1),
  attempt: z.number().int().positive(),
  max_retries: z.number().int().positive(),
  retry_delay_ms: z.number().nonnegative(),
  error_status: z.number().int().nullable(),
  error: z.string(),
});

export const CompactBoundarySchema = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("compact_boundary"),
  session_id: z.string().min(1),
  trigger: z.enum(["auto", "manual", "overflow"]),
  pre_tokens: z.number().int().nonnegative(),
  post_tokens: z.number().int().nonnegative(),
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
