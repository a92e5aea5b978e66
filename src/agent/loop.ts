import type {
  AssistantBlock,
  AssistantMessage,
  Message,
  ModelCapabilities,
  ProviderError,
  ResolvedProvider,
  ResponseSchema,
  StopReason,
  StreamFn,
  TextBlock,
  ThinkingLevel,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from "../providers/types.ts";
import { addUsage, emptyUsage } from "../providers/types.ts";
import { currentTools, type ToolSource } from "../tools/registry.ts";
import type { ApproveFn, ToolOutcome } from "../tools/types.ts";
import { overBudget } from "./budget.ts";
import { ChildSpending } from "./child-usage.ts";
import { boundaryEvent, compactMessages } from "./compact.ts";
import {
  type AgentEvent,
  buildResult,
  type CompactTrigger,
  type ErrorKind,
  type PermissionDenial,
  type ResultSubtype,
} from "./events.ts";
import type { AuthorizeFn } from "./permissions.ts";
import { contextEstimate } from "./tokens.ts";
import { runToolBatch } from "./tool-batch.ts";

export interface AgentInput {
  sessionId: string;
  cwd: string;
  provider: ResolvedProvider;
  model: string;
  system: string;
  /** Prior conversation plus the new user message; the loop appends to a copy. */
  messages: Message[];
  thinking: ThinkingLevel;
  /** What the model catalogue knows of the model, passed to the wire (per-model rules). */
  modelInfo?: ModelCapabilities;
  /** The tools offered: a fixed list, or the session's registry asked before every request. */
  tools: ToolSource;
  permissionMode: "read" | "ask" | "auto";
  /** Directories outside cwd that file tools may reach (config `workspace.allow`). */
  workspaceAllow?: string[];
  maxTurns: number;
  signal: AbortSignal;
  /** Names of the skills the model can read (stream-json's `init.skills`). */
  skills?: string[];
  /** Slash commands of the front end (stream-json's `init.slash_commands`). */
  slashCommands?: string[];
  /** Mode ask with file edits allowed (Claude Code's acceptEdits), for `init`. */
  acceptEdits?: boolean;
  /**
   * The model's context window in tokens (config `context_window` › the provider's default). Undefined
   * means unknown: no automatic compaction, only after a context_overflow error.
   */
  contextWindow?: number;
  /** Prices a usage in US dollars; null when the model's prices are unknown (never a guessed 0). */
  price?: (usage: Usage) => number | null;
  /** Share of the window at which the view is compacted before a request (default 0.8). */
  compactThreshold?: number;
  /** The model's output limit in tokens, when known (for `modelUsage`). */
  maxOutputTokens?: number | undefined;
  /** `--max-budget-usd`: no further request once the run's cost (by `price`) has passed it. */
  maxBudgetUsd?: number | undefined;
  /** `--json-schema`: sent with every request of the loop (not with compaction summaries). */
  responseSchema?: ResponseSchema | undefined;
}

export const DEFAULT_COMPACT_THRESHOLD = 0.8;

/**
 * What the loop is given rather than knows: the stream, and the seams extensions plug into (hooks,
 * memory, plan) without the loop's body knowing they exist.
 */
export interface AgentDeps {
  stream: StreamFn;
  /**
   * Decides every call of a known tool with valid arguments: may allow it (optionally with rewritten
   * input) or deny it with the reason the model is told. Default: the permission mode, asking `approve`
   * in mode `ask`.
   */
  authorize?: AuthorizeFn;
  /** Asked by the default `authorize` for write/execute tools in mode `ask`; absent means deny. */
  approve?: ApproveFn;
  /** After a tool ran (or was refused): may replace or annotate the outcome the model gets. */
  afterTool?: (call: ToolUseBlock, outcome: ToolOutcome) => Promise<ToolOutcome>;
  /**
   * When the model has stopped (no tool calls): text returned here is sent to the model as a user
   * message and the loop goes on (a Stop hook that blocks); undefined lets it stop.
   */
  beforeStop?: (finalText: string) => Promise<string | undefined>;
  /** Before the view is compacted; may add what the summary should focus on. */
  beforeCompact?: (trigger: CompactTrigger) => Promise<string | undefined>;
  /**
   * Context for the next request only (memory recall, the plan): text blocks added after the
   * conversation in that request, never saved as part of it.
   */
  contextBlocks?: (messages: readonly Message[]) => Promise<TextBlock[]>;
  now?: () => number;
  log?: (line: string) => void;
}

interface StepOutcome {
  message: AssistantMessage;
  stopReason: StopReason | null;
  usage: Usage;
  error?: ProviderError;
  /** Tool calls whose arguments did not parse, by call id: answered with the parse error, never run. */
  parseErrors: Map<string, string>;
}

/** Streams one model request, forwarding deltas and assembling the assistant message in arrival order. */
async function* runStep(
  input: AgentInput,
  view: Message[],
  deps: AgentDeps,
): AsyncGenerator<AgentEvent, StepOutcome> {
  const blocks: AssistantBlock[] = [];
  let usage = emptyUsage();
  let stopReason: StopReason | null = null;
  let error: ProviderError | undefined;
  const parseErrors = new Map<string, string>();
  const last = () => blocks[blocks.length - 1];

  try {
    const messages = deps.contextBlocks ? withContext(view, await deps.contextBlocks(view)) : view;
    const stream = deps.stream({
      provider: input.provider,
      model: input.model,
      system: input.system,
      messages,
      tools: currentTools(input.tools).map((t) => t.spec),
      thinking: input.thinking,
      ...(input.modelInfo ? { modelInfo: input.modelInfo } : {}),
      ...(input.responseSchema ? { responseSchema: input.responseSchema } : {}),
      signal: input.signal,
      ...(deps.log ? { log: deps.log } : {}),
    });
    for await (const event of stream) {
      switch (event.type) {
        case "text_delta": {
          const block = last();
          if (block?.type === "text") block.text += event.text;
          else blocks.push({ type: "text", text: event.text });
          yield { type: "text_delta", text: event.text };
          break;
        }
        case "thinking_delta": {
          const block = last();
          if (block?.type === "thinking") block.thinking += event.text;
          else blocks.push({ type: "thinking", thinking: event.text });
          yield { type: "thinking_delta", text: event.text };
          break;
        }
        case "thinking_signature": {
          const block = [...blocks].reverse().find((b) => b.type === "thinking");
          if (block?.type === "thinking") block.signature = event.signature;
          break;
        }
        case "thinking_opaque": {
          let block = last();
          if (event.newBlock || block?.type !== "thinking") {
            block = { type: "thinking", thinking: "" };
            blocks.push(block);
          }
          if (block.type === "thinking") {
            const fields = { ...block.opaque?.fields, ...event.fields };
            block.opaque = { provider: input.provider.id, wire: input.provider.wire, fields };
          }
          break;
        }
        case "tool_call_start":
          yield { type: "tool_use_start", index: event.index, id: event.id, name: event.name };
          break;
        case "tool_call_delta":
          yield { type: "tool_use_delta", index: event.index, partial_json: event.arguments_delta };
          break;
        case "tool_call":
          blocks.push({
            type: "tool_use",
            id: event.id,
            name: event.name,
            input: event.input,
            ...(event.opaque
              ? { opaque: { provider: input.provider.id, wire: input.provider.wire, fields: event.opaque } }
              : {}),
          });
          if (event.parse_error !== undefined) parseErrors.set(event.id, event.parse_error);
          break;
        case "usage":
          usage = event.usage;
          break;
        case "notice":
          yield { type: "notice", text: event.text };
          break;
        case "retry":
          yield {
            type: "api_retry",
            attempt: event.attempt,
            max_retries: event.max_retries,
            delay_ms: event.delay_ms,
            error: event.error,
          };
          break;
        case "done":
          stopReason = event.stop_reason;
          usage = event.usage;
          break;
        case "error":
          error = event.error;
          if (event.usage) usage = event.usage;
          break;
        default:
          break;
      }
    }
  } catch (err) {
    // A stream must end with an `error` event rather than throw; if one throws anyway (a bug in an
    // adapter), the run still ends with a result instead of an unhandled rejection.
    const detail = err instanceof Error ? err.message : String(err);
    error = input.signal.aborted
      ? { kind: "aborted", message: `request to ${input.provider.id} was cancelled` }
      : { kind: "stream_dropped", message: `request to ${input.provider.id} failed: ${detail}` };
  }
  return {
    message: { role: "assistant", content: blocks },
    stopReason,
    usage,
    parseErrors,
    ...(error ? { error } : {}),
  };
}

/** The request's messages with extra context after the conversation: in its last user message, or a new one. */
export function withContext(messages: Message[], blocks: TextBlock[]): Message[] {
  if (blocks.length === 0) return messages;
  const last = messages[messages.length - 1];
  if (last?.role === "user")
    return [...messages.slice(0, -1), { role: "user", content: [...last.content, ...blocks] }];
  return [...messages, { role: "user", content: blocks }];
}

function textOf(message: AssistantMessage): string {
  return message.content
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");
}

/**
 * The agent loop: send context → stream → run tool calls → append results → repeat, until the model
 * stops, --max-turns is reached or the signal fires. Always ends with exactly one `result` event.
 */
export async function* runAgent(input: AgentInput, deps: AgentDeps): AsyncGenerator<AgentEvent> {
  const now = deps.now ?? Date.now;
  const started = now();
  const messages = [...input.messages];
  const denials: PermissionDenial[] = [];
  const errors: string[] = [];
  let usage = emptyUsage();
  let apiMs = 0;
  let turns = 0;
  let finalText = "";
  let lastStop: StopReason | null = null;
  let subtype: ResultSubtype = "success";
  let failure: { kind: ErrorKind; status: number | undefined } | undefined;
  const toolSpecs = () => currentTools(input.tools).map((t) => t.spec);
  /** What child agents (run by tool calls) reported spending: part of the result and the budget. */
  const children = new ChildSpending();
  /** Usage of the last completed request, and the view's length right after its answer was appended. */
  let lastUsage: Usage | undefined;
  let usageAt = 0;
  const estimate = () =>
    contextEstimate(lastUsage, messages.slice(usageAt), {
      messages,
      system: input.system,
      tools: toolSpecs(),
    });

  /**
   * Replaces the view with a summary + its newest part. Summary requests are not turns (num_turns
   * counts the loop's own requests), but they cost money: their usage and time are added to the run's.
   * An interrupted compaction is not applied (returns false): the run ends, and the next one compacts
   * afresh rather than persisting a fallback that dropped messages only because of the interrupt.
   */
  async function* compact(trigger: CompactTrigger): AsyncGenerator<AgentEvent, boolean> {
    // With no model reply yet there is nothing older to summarise: only the user's own request,
    // which must reach the model whole. An overflow then is reported as it is.
    if (!messages.some((m) => m.role === "assistant")) return false;
    const focus = await deps.beforeCompact?.(trigger);
    const started = now();
    const compacted = await compactMessages({
      ...(focus ? { focus } : {}),
      messages,
      system: input.system,
      provider: input.provider,
      model: input.model,
      stream: deps.stream,
      signal: input.signal,
      window: input.contextWindow,
      trigger,
      tools: toolSpecs(),
      tokensBefore: estimate(),
      ...(deps.log ? { log: deps.log } : {}),
    });
    apiMs += now() - started;
    usage = addUsage(usage, compacted.usage);
    if (input.signal.aborted) return false;
    const boundary = boundaryEvent(trigger, compacted, messages);
    messages.splice(0, messages.length, ...compacted.messages);
    // The last request's usage measured the old view; until the next one, estimate the new view.
    lastUsage = undefined;
    usageAt = 0;
    yield boundary;
    return true;
  }

  async function* timedStep(): AsyncGenerator<AgentEvent, StepOutcome> {
    const stepStart = now();
    const step = yield* runStep(input, messages, deps);
    apiMs += now() - stepStart;
    usage = addUsage(usage, step.usage);
    return step;
  }

  yield {
    type: "init",
    session_id: input.sessionId,
    cwd: input.cwd,
    provider: input.provider.id,
    model: input.model,
    tools: currentTools(input.tools).map((t) => t.spec.name),
    mcp_servers: [],
    skills: input.skills ?? [],
    permission_mode: input.permissionMode,
    slash_commands: input.slashCommands ?? [],
    ...(input.acceptEdits ? { accept_edits: true } : {}),
    key_source: input.provider.keySource.replace(/^env /, ""),
    context_window: input.contextWindow ?? null,
  };

  for (;;) {
    if (input.signal.aborted) {
      subtype = "error_interrupted";
      errors.push("interrupted");
      break;
    }
    if (turns >= input.maxTurns) {
      subtype = "error_max_turns";
      errors.push(`reached the limit of ${input.maxTurns} model requests (--max-turns)`);
      break;
    }
    // Only once the view holds an answer: a first prompt is never summarised before the model saw it
    // (if it alone overflows, the overflow path below handles it).
    const window = input.contextWindow;
    if (
      window !== undefined &&
      messages.some((m) => m.role === "assistant") &&
      estimate() >= (input.compactThreshold ?? DEFAULT_COMPACT_THRESHOLD) * window
    ) {
      if (!(yield* compact("auto"))) continue; // interrupted: the check at the top ends the run
    }
    turns++;
    let step = yield* timedStep();
    // The prompt did not fit: compact once and retry the same request once (not a new turn); a second
    // overflow is an ordinary error.
    if (step.error?.kind === "context_overflow" && !input.signal.aborted && (yield* compact("overflow")))
      step = yield* timedStep();
    const text = textOf(step.message);
    if (text) finalText = text;
    lastStop = step.error || input.signal.aborted ? null : step.stopReason;

    if (step.error || input.signal.aborted) {
      if (step.message.content.length > 0) {
        // What was said before the failure is kept (and saved): the step is reported with no stop reason.
        messages.push(step.message);
        yield { type: "assistant", message: step.message, stop_reason: null, usage: step.usage };
      }
      if (input.signal.aborted || step.error?.kind === "aborted") {
        subtype = "error_interrupted";
        errors.push("interrupted");
      } else {
        subtype = "error_during_execution";
        errors.push(step.error?.message ?? "the model request failed");
        // Machine-readable: the provider's kind and HTTP status, so a script need not parse the line.
        if (step.error) failure = { kind: step.error.kind, status: step.error.status };
      }
      break;
    }

    messages.push(step.message);
    lastUsage = step.usage;
    usageAt = messages.length;
    yield { type: "assistant", message: step.message, stop_reason: step.stopReason, usage: step.usage };

    const calls = step.message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
    // Checked only when another request would follow: an answer already given stays a success.
    const spentTooMuch = () => overBudget(children.plus(input.price?.(usage) ?? null), input.maxBudgetUsd);
    if (calls.length === 0) {
      const more = await deps.beforeStop?.(finalText);
      if (more === undefined || input.signal.aborted) break;
      const over = spentTooMuch();
      if (over) {
        subtype = "error_max_budget_usd";
        errors.push(over);
        break;
      }
      const nudge: Message = { role: "user", content: [{ type: "text", text: more }] };
      messages.push(nudge);
      yield { type: "user_message", message: nudge };
      continue;
    }
    const over = spentTooMuch();
    if (over) {
      // The calls are not run: their results could never be sent.
      subtype = "error_max_budget_usd";
      errors.push(over);
      break;
    }

    const results: ToolResultBlock[] = yield* runToolBatch(
      calls,
      input,
      deps,
      denials,
      step.parseErrors,
      children,
    );
    const resultMessage: Message = { role: "user", content: results };
    messages.push(resultMessage);
    yield { type: "tool_results", message: resultMessage };
  }

  const cost = input.price ? input.price(usage) : null;
  const own = buildResult({
    subtype,
    result: finalText,
    session_id: input.sessionId,
    provider: input.provider.id,
    model: input.model,
    num_turns: turns,
    duration_ms: now() - started,
    duration_api_ms: apiMs,
    usage,
    total_cost_usd: cost,
    permission_denials: denials,
    errors,
    ...(failure ? { error_kind: failure.kind } : {}),
    ...(failure?.status !== undefined ? { api_error_status: failure.status } : {}),
    stop_reason: lastStop,
    modelUsage: {
      [input.model]: {
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        cacheReadInputTokens: usage.cache_read_input_tokens,
        cacheCreationInputTokens: usage.cache_creation_input_tokens,
        webSearchRequests: 0,
        costUSD: cost,
        contextWindow: input.contextWindow ?? null,
        maxOutputTokens: input.maxOutputTokens ?? null,
        provider: input.provider.id,
      },
    },
  });
  // What child agents spent, on top of the run's own (the same result when they reported nothing).
  yield { type: "result", result: children.addTo(own) };
}
