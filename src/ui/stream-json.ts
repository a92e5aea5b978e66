import type { AgentEvent } from "../agent/events.ts";
import { REDACTED_DATA } from "../providers/anthropic-messages.ts";
import type { AssistantBlock, ProviderErrorKind, StopReason, Usage } from "../providers/types.ts";
import { jsonLine, type Renderer, type RenderOptions } from "./renderer.ts";

/**
 * `-o stream-json`, schema 2: SPEC §6's JSON Lines, shaped so that programs typed against the Claude
 * Agent SDK's `SDKMessage` read them unchanged. Every line has a `uuid` (UUIDv7) and `session_id`;
 * assistant messages are whole Messages API messages; with `--partial` the `stream_event` lines carry
 * Anthropic's raw stream events, derived here from ion's events on every wire. The result is last.
 */

/** Claude's permission modes for ion's (init.permissionMode beside ion's own permission_mode). */
const CLAUDE_MODE: Record<string, string> = { read: "plan", ask: "default", auto: "bypassPermissions" };

/** Claude's api_retry error categories for ion's provider error kinds. */
const RETRY_ERROR: Record<ProviderErrorKind, string> = {
  auth: "authentication_failed",
  rate_limit: "rate_limit",
  overloaded: "overloaded",
  server: "server_error",
  context_overflow: "invalid_request",
  model_not_found: "model_not_found",
  bad_request: "invalid_request",
  network: "unknown",
  stream_dropped: "unknown",
  idle_timeout: "unknown",
  aborted: "unknown",
};

const ZERO_USAGE: Usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

/**
 * A Messages API usage object: ion's four counts, and null for what the Messages API reports and ion's
 * wires do not (null is the API's own "not reported").
 */
function messageUsage(usage: Usage) {
  return {
    ...usage,
    cache_creation: null,
    fallback_credit: null,
    inference_geo: null,
    iterations: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: null,
    speed: null,
  };
}

/** A Messages API message's fields for features ion does not use (containers, context management). */
const NO_EXTRAS = { container: null, context_management: null, diagnostics: null, stop_details: null };

/** `msg_` and 24 hex digits of a UUIDv7: ion's id for a model step (its wires do not all give one). */
function messageId(): string {
  return `msg_${Bun.randomUUIDv7().replaceAll("-", "").slice(0, 24)}`;
}

/**
 * A content block as Claude Code prints it: provider-specific fields stay out, and Anthropic's redacted
 * thinking (kept by ion as a thinking block's opaque field) is a `redacted_thinking` block again.
 */
function claudeBlock(block: AssistantBlock): Record<string, unknown> {
  if (block.type === "text") return { ...block, citations: null };
  const { opaque, ...rest } = block;
  const data = block.type === "thinking" ? opaque?.fields[REDACTED_DATA] : undefined;
  return typeof data === "string" ? { type: "redacted_thinking", data } : rest;
}

type RawEvent = Record<string, unknown> & { type: string };

/**
 * Anthropic's raw stream events for one model step at a time, from text, thinking and tool-call
 * deltas: message_start, content_block_start/delta/stop (with `index`), message_delta, message_stop.
 */
class PartialStream {
  id = messageId();
  private open = false;
  private index = -1;
  /** The kind of the text or thinking block being streamed, if one is open. */
  private current: "text" | "thinking" | undefined;
  private readonly toolBlocks = new Map<number, number>();
  private readonly startedTools = new Set<string>();
  private readonly openBlocks: number[] = [];

  constructor(
    private readonly model: () => string,
    private readonly emit: (event: RawEvent) => void,
  ) {}

  text(kind: "text" | "thinking", text: string): void {
    this.start();
    if (this.current !== kind) {
      this.closeCurrent();
      this.current = kind;
      this.block(
        kind === "text"
          ? { type: "text", text: "", citations: null }
          : { type: "thinking", thinking: "", signature: "" },
      );
    }
    const delta = kind === "text" ? { type: "text_delta", text } : { type: "thinking_delta", thinking: text };
    this.emit({ type: "content_block_delta", index: this.index, delta });
  }

  toolStart(toolIndex: number, id: string, name: string): void {
    this.start();
    this.closeCurrent();
    this.startedTools.add(id);
    this.toolBlocks.set(toolIndex, this.block({ type: "tool_use", id, name, input: {} }));
  }

  toolDelta(toolIndex: number, json: string): void {
    const index = this.toolBlocks.get(toolIndex);
    if (index === undefined || json === "") return;
    this.emit({
      type: "content_block_delta",
      index,
      delta: { type: "input_json_delta", partial_json: json },
    });
  }

  /** The step is complete: calls that arrived whole are streamed in one piece, then every block ends. */
  finish(
    content: readonly { type: string; id?: string; name?: string; input?: unknown }[],
    stop: StopReason | null,
    usage: Usage,
  ): void {
    this.start();
    for (const block of content) {
      if (block.type !== "tool_use" || block.id === undefined || this.startedTools.has(block.id)) continue;
      this.closeCurrent();
      const index = this.block({ type: "tool_use", id: block.id, name: block.name, input: {} });
      const json = JSON.stringify(block.input ?? {});
      this.emit({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: json },
      });
    }
    for (const index of this.openBlocks.splice(0)) this.emit({ type: "content_block_stop", index });
    this.emit({
      type: "message_delta",
      context_management: null,
      delta: { stop_reason: stop, stop_sequence: null, container: null, stop_details: null },
      usage: {
        ...usage,
        fallback_credit: null,
        iterations: null,
        output_tokens_details: null,
        server_tool_use: null,
      },
    });
    this.emit({ type: "message_stop" });
  }

  /** Ready for the next step (a new message id). */
  reset(): void {
    this.id = messageId();
    this.open = false;
    this.index = -1;
    this.current = undefined;
    this.toolBlocks.clear();
    this.startedTools.clear();
  }

  private start(): void {
    if (this.open) return;
    this.open = true;
    this.emit({
      type: "message_start",
      message: {
        id: this.id,
        type: "message",
        role: "assistant",
        model: this.model(),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: messageUsage(ZERO_USAGE),
        ...NO_EXTRAS,
      },
    });
  }

  private block(contentBlock: Record<string, unknown>): number {
    this.index++;
    this.openBlocks.push(this.index);
    this.emit({ type: "content_block_start", index: this.index, content_block: contentBlock });
    return this.index;
  }

  private closeCurrent(): void {
    if (this.current === undefined) return;
    this.current = undefined;
    const at = this.openBlocks.indexOf(this.index);
    if (at >= 0) this.openBlocks.splice(at, 1);
    this.emit({ type: "content_block_stop", index: this.index });
  }
}

/**
 * `-o stream-json`: JSON Lines in the order of SPEC §6, the result always last.
 *
 * A child agent's events (a subagent run by a tool call) come out as Claude Code prints a subagent's:
 * its assistant, user and stream_event lines carry `parent_tool_use_id` (the call's id) and the
 * session's own `session_id`. Its `init` is not printed — a consumer takes the one system/init line as
 * the session's — but names the model on its assistant lines; its compactions stay its own.
 */
export function streamJsonRenderer(options: RenderOptions): Renderer {
  let sessionId = "";
  let model = "";
  /** The model of each child agent, by its parent call's id (from the child's init). */
  const childModels = new Map<string, string>();
  /** The model an agent's lines name: the session's, or a child's own once its init told it. */
  const modelOf = (parent: string | null) => (parent === null ? model : (childModels.get(parent) ?? model));
  const write = (line: Record<string, unknown>) =>
    options.stdout.write(
      // A result's own session_id wins, null included (a failure that saved nothing).
      jsonLine({
        ...line,
        uuid: Bun.randomUUIDv7(),
        session_id: "session_id" in line ? line.session_id : sessionId,
      }),
    );
  /** One partial stream per agent: a child's steps run while its parent's call waits. */
  const partials = new Map<string | null, PartialStream>();
  const partialOf = (parent: string | null): PartialStream => {
    let partial = partials.get(parent);
    if (!partial) {
      partial = new PartialStream(
        () => modelOf(parent),
        (event) => {
          if (options.partial) write({ type: "stream_event", event, parent_tool_use_id: parent });
        },
      );
      partials.set(parent, partial);
    }
    return partial;
  };

  const handle = (event: AgentEvent) => {
    const parent = event.type === "result" ? null : (event.parent_tool_use_id ?? null);
    const top = { parent_tool_use_id: parent };
    const partial = partialOf(parent);
    if (parent !== null && event.type === "init") {
      childModels.set(parent, event.model);
      return;
    }
    switch (event.type) {
      case "init": {
        sessionId = event.session_id;
        model = event.model;
        const {
          type: _type,
          context_window: _window,
          key_source: keySource,
          accept_edits: acceptEdits,
          mcp_servers,
          ...init
        } = event;
        write({
          type: "system",
          subtype: "init",
          schema_version: 2,
          ...init,
          mcp_servers: mcp_servers.map((server) => ({ name: server.name, status: server.status })),
          permissionMode: acceptEdits ? "acceptEdits" : (CLAUDE_MODE[event.permission_mode] ?? "default"),
          apiKeySource: keySource,
          output_style: "default",
          plugins: [],
        });
        return;
      }
      case "text_delta":
      case "thinking_delta":
        partial.text(event.type === "text_delta" ? "text" : "thinking", event.text);
        return;
      case "tool_use_start":
        partial.toolStart(event.index, event.id, event.name);
        return;
      case "tool_use_delta":
        partial.toolDelta(event.index, event.partial_json);
        return;
      case "assistant": {
        partial.finish(event.message.content, event.stop_reason, event.usage);
        write({
          type: "assistant",
          message: {
            id: partial.id,
            type: "message",
            role: "assistant",
            model: modelOf(parent),
            // Thinking keeps its signature: a consumer replaying the conversation to Anthropic needs it.
            content: event.message.content.map(claudeBlock),
            stop_reason: event.stop_reason,
            stop_sequence: null,
            usage: messageUsage(event.usage),
            ...NO_EXTRAS,
          },
          ...top,
        });
        partial.reset();
        return;
      }
      case "tool_results":
      case "user_message":
        write({ type: "user", message: event.message, ...top });
        return;
      case "api_retry":
        write({
          type: "system",
          subtype: "api_retry",
          attempt: event.attempt,
          max_retries: event.max_retries,
          retry_delay_ms: event.delay_ms,
          error_status: event.error.status ?? null,
          error: RETRY_ERROR[event.error.kind],
          error_message: event.error.message,
          ...(parent === null ? {} : top),
        });
        return;
      case "compact_boundary":
        if (parent !== null) return;
        // The summary stays out of stdout: it is model-written context, not output (the session keeps it).
        write({
          type: "system",
          subtype: "compact_boundary",
          compact_metadata: {
            trigger: event.trigger === "manual" ? "manual" : "auto",
            pre_tokens: event.pre_tokens,
            post_tokens: event.post_tokens,
          },
          trigger: event.trigger,
          pre_tokens: event.pre_tokens,
          post_tokens: event.post_tokens,
        });
        return;
      case "memory_recall":
        if (parent !== null) return;
        write({ type: "system", subtype: "memory_recall", count: event.count, tokens: event.tokens });
        return;
      case "result":
        write({ ...event.result });
        return;
      default:
        return;
    }
  };
  return { onEvent: handle, close() {} };
}
