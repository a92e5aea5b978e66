import { oneLine } from "../errors.ts";
import type {
  AssistantMessage,
  Message,
  ProviderError,
  ProviderErrorKind,
  StopReason,
  Usage,
  UserMessage,
} from "../providers/types.ts";
import type { SandboxReport } from "../sandbox/types.ts";
import type { ChildModel, ToolMetadata } from "../tools/types.ts";
import { redactText } from "../util/secrets.ts";

/**
 * The one event stream every front end consumes: `run -o text|json|stream-json` and `chat` are
 * renderers of these events, none has a loop of its own.
 */
/** What started a compaction: the threshold before a request, `/compact`, or a context_overflow error. */
export type CompactTrigger = "auto" | "manual" | "overflow";

export type ResultSubtype =
  | "success"
  | "error_max_turns"
  | "error_max_budget_usd"
  | "error_during_execution"
  | "error_interrupted";

/**
 * Why a run failed, for programs (`error_kind`): the provider's kinds, as `api_retry` lines carry
 * them, and ion's own for what is not the provider's — "usage" (a flag or the prompt), "config",
 * "io" (a file, stdin or the session could not be read or written), "tool" (tool infrastructure),
 * "interrupted", "max_turns", "budget" (--max-budget-usd) and "internal" (a bug).
 */
export type ErrorKind =
  | Exclude<ProviderErrorKind, "aborted">
  | "usage"
  | "config"
  | "io"
  | "tool"
  | "interrupted"
  | "max_turns"
  | "budget"
  | "internal";

export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

/** Claude Code's per-model usage record (`modelUsage` in a result), with ion's honest nulls for unknowns. */
export interface ModelUsageEntry {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  /** null when the model's prices are unknown (never a guessed 0). */
  costUSD: number | null;
  contextWindow: number | null;
  maxOutputTokens: number | null;
  /** The provider that served the model (ion's id). */
  provider: string;
}

/** One model's `modelUsage` entry: its tokens, their price, and the model's limits. */
export function modelUsageEntry(
  usage: Usage,
  costUSD: number | null,
  model: Omit<ChildModel, "model">,
): ModelUsageEntry {
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadInputTokens: usage.cache_read_input_tokens,
    cacheCreationInputTokens: usage.cache_creation_input_tokens,
    webSearchRequests: 0,
    costUSD,
    contextWindow: model.contextWindow ?? null,
    maxOutputTokens: model.maxOutputTokens ?? null,
    provider: model.provider,
  };
}

const SCHEMA_VERSION = 2;

export interface RunResult {
  type: "result";
  schema_version: typeof SCHEMA_VERSION;
  subtype: ResultSubtype;
  is_error: boolean;
  /** The final assistant text (of the last model step that produced text). */
  result: string;
  /** A session `ion sessions show` can open; null when a failure saved nothing. */
  session_id: string | null;
  provider: string;
  model: string;
  num_turns: number;
  duration_ms: number;
  duration_api_ms: number;
  usage: Usage;
  total_cost_usd: number | null;
  permission_denials: PermissionDenial[];
  errors: string[];
  /** A failed result's kind (absent on success). */
  error_kind?: ErrorKind;
  /** The HTTP status of the provider's failed reply, when there was one. */
  api_error_status?: number;
  /** The last model step's stop reason (null when it was cut short or there was none). */
  stop_reason: StopReason | null;
  /** Usage per model id, as Claude Code reports it. */
  modelUsage: Record<string, ModelUsageEntry>;
  /** With `--json-schema`: the final answer parsed, valid against the schema. */
  structured_output?: unknown;
  /** Where `bash` commands ran: the mechanism (`none`: nothing enforced), mode and network. */
  sandbox?: SandboxReport;
}

type UnmarkedEvent =
  | {
      type: "init";
      session_id: string;
      cwd: string;
      provider: string;
      model: string;
      tools: string[];
      /** Extension servers and whether each is connected. */
      mcp_servers: { name: string; status: string }[];
      skills: string[];
      permission_mode: string;
      /** Slash commands the front end understands (none in `ion run`). */
      slash_commands: string[];
      /** Mode ask, but file edits run without asking (Claude Code's acceptEdits). */
      accept_edits?: boolean;
      /** Where the provider key came from, never the key: an env var's name, "keys.json", "config" or "none". */
      key_source: string;
      /** Where `bash` commands run (`type: "none"` when nothing enforces it). */
      sandbox?: SandboxReport;
      /** Tokens the model can take, when known (for the status line; not part of stream-json's init). */
      context_window: number | null;
    }
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  /** A tool call began streaming (`index` tells parallel calls apart within a step). */
  | { type: "tool_use_start"; index: number; id: string; name: string }
  /** A piece of a streaming tool call's JSON arguments. */
  | { type: "tool_use_delta"; index: number; partial_json: string }
  /** One complete model step: the assistant message with its stop reason and that step's usage. */
  | { type: "assistant"; message: AssistantMessage; stop_reason: StopReason | null; usage: Usage }
  | { type: "tool_start"; id: string; name: string; input: Record<string, unknown> }
  /**
   * A running tool's progress, for a live status line: its latest output line (raw, not yet safe for
   * a terminal). Only for the terminal: not saved, not sent to the model, not in JSON output.
   */
  | { type: "tool_progress"; id: string; name: string; elapsed_ms: number; output_tail?: string }
  | {
      type: "tool_end";
      id: string;
      name: string;
      is_error: boolean;
      content: string;
      duration_ms: number;
      /** For front ends: an edit's diff, a command's exit status, a title. */
      metadata?: ToolMetadata;
    }
  /** The results of one tool batch, sent back to the model as a user message. */
  | { type: "tool_results"; message: UserMessage }
  /** A user message the loop added itself (a `beforeStop` seam asked the model to go on). */
  | { type: "user_message"; message: UserMessage }
  | { type: "api_retry"; attempt: number; max_retries: number; delay_ms: number; error: ProviderError }
  /** A provider's note about how a request was adapted (a thinking level ignored or mapped). */
  | { type: "notice"; text: string }
  /**
   * The model's view was compacted: from here on it is a summary plus the view before from `first_kept`
   * on (`kept` messages; none when undefined). The session records this as a compaction entry naming
   * that message's entry; the originals stay in the session file.
   * Token counts are estimates; `method` is "dropped" when summarising failed and the older part was
   * dropped instead (then `summary` says so).
   */
  | {
      type: "compact_boundary";
      trigger: CompactTrigger;
      pre_tokens: number;
      post_tokens: number;
      summary: string;
      kept: number;
      /** The first message of the old view that is kept (the same object the loop was given or reported). */
      first_kept?: Message | undefined;
      method: "summary" | "dropped";
    }
  /** Memories recalled into this turn's context (one "memory context" message): how many, their tokens. */
  | { type: "memory_recall"; count: number; tokens: number }
  | { type: "result"; result: RunResult };

/**
 * Every event a front end gets. All but `result` may be a child agent's (a subagent run by a tool
 * call): then `parent_tool_use_id` is that call's id, as Claude Code's stream-json marks a subagent's lines.
 */
export type AgentEvent =
  | (Exclude<UnmarkedEvent, { type: "result" }> & { parent_tool_use_id?: string })
  | Extract<UnmarkedEvent, { type: "result" }>;

/** The kind a failure has when its maker named none: what its subtype says. */
function defaultKind(subtype: ResultSubtype): ErrorKind {
  if (subtype === "error_interrupted") return "interrupted";
  if (subtype === "error_max_turns") return "max_turns";
  if (subtype === "error_max_budget_usd") return "budget";
  return "internal";
}

type ResultFields = Omit<RunResult, "type" | "schema_version" | "is_error">;

/**
 * The result object; `is_error` follows from the subtype, so no caller can make them disagree, and
 * only a failure carries `error_kind` (and `api_error_status`).
 */
export function buildResult(fields: ResultFields): RunResult {
  const { subtype, error_kind: kind, api_error_status: status, ...rest } = fields;
  const failed = subtype !== "success";
  // Field order as SPEC §6 lists it: subtype, is_error, then the rest.
  return {
    type: "result",
    schema_version: SCHEMA_VERSION,
    subtype,
    is_error: failed,
    ...rest,
    // What a program reads and the session file keeps: one line each, no key or URL credentials.
    errors: rest.errors.map((error) => oneLine(redactText(error))),
    ...(failed ? { error_kind: kind ?? defaultKind(subtype) } : {}),
    ...(failed && status !== undefined ? { api_error_status: status } : {}),
  };
}

/**
 * The same result turned into a failure: what ran is still counted, the errors say what went wrong
 * (by default a session save that failed: "io").
 */
export function failedResult(result: RunResult, errors: string[], kind: ErrorKind = "io"): RunResult {
  const {
    type: _type,
    schema_version: _version,
    is_error: _isError,
    api_error_status: _status,
    ...fields
  } = result;
  return buildResult({ ...fields, subtype: "error_during_execution", errors, error_kind: kind });
}
