/**
 * A consumer of Claude Code's stream-json written the way such programs are written: typed against the
 * Claude Agent SDK's `SDKMessage`, switching on `type`/`subtype`, reading partial events by
 * `event.type`. The compatibility tests run it over ion's real output.
 */
import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";

export interface Digest {
  sessionIds: Set<string>;
  model: string | undefined;
  tools: string[];
  permissionMode: string | undefined;
  assistantText: string;
  messageIds: string[];
  toolCalls: { id: string; name: string; input: unknown }[];
  toolResults: { toolUseId: string; isError: boolean }[];
  partialText: string;
  partialThinking: string;
  partialToolJson: Map<string, string>;
  streamEvents: string[];
  compactions: { trigger: string; preTokens: number }[];
  result:
    | {
        subtype: string;
        isError: boolean;
        text: string | undefined;
        errors: string[];
        costUSD: number | null;
        inputTokens: number;
        outputTokens: number;
        models: { model: string; inputTokens: number; outputTokens: number; costUSD: number | null }[];
        denials: string[];
        stopReason: string | null;
        turns: number;
      }
    | undefined;
}

export function digest(messages: SDKMessage[]): Digest {
  const d: Digest = {
    sessionIds: new Set(),
    model: undefined,
    tools: [],
    permissionMode: undefined,
    assistantText: "",
    messageIds: [],
    toolCalls: [],
    toolResults: [],
    partialText: "",
    partialThinking: "",
    partialToolJson: new Map(),
    streamEvents: [],
    compactions: [],
    result: undefined,
  };
  const blockTool = new Map<number, string>();
  for (const m of messages) {
    const sessionId = "session_id" in m ? m.session_id : undefined;
    if (sessionId) d.sessionIds.add(sessionId);
    switch (m.type) {
      case "system":
        if (m.subtype === "init") {
          d.model = m.model;
          d.tools = m.tools;
          d.permissionMode = m.permissionMode;
        } else if (m.subtype === "compact_boundary") {
          d.compactions.push({
            trigger: m.compact_metadata.trigger,
            preTokens: m.compact_metadata.pre_tokens,
          });
        }
        break;
      case "assistant":
        d.messageIds.push(m.message.id);
        for (const block of m.message.content) {
          if (block.type === "text") d.assistantText += block.text;
          else if (block.type === "tool_use")
            d.toolCalls.push({ id: block.id, name: block.name, input: block.input });
        }
        break;
      case "user": {
        const content = m.message.content;
        if (typeof content === "string") break;
        for (const block of content)
          if (block.type === "tool_result")
            d.toolResults.push({ toolUseId: block.tool_use_id, isError: block.is_error === true });
        break;
      }
      case "stream_event": {
        const event = m.event;
        d.streamEvents.push(event.type);
        if (event.type === "content_block_start" && event.content_block.type === "tool_use")
          blockTool.set(event.index, event.content_block.id);
        if (event.type === "content_block_delta") {
          if (event.delta.type === "text_delta") d.partialText += event.delta.text;
          else if (event.delta.type === "thinking_delta") d.partialThinking += event.delta.thinking;
          else if (event.delta.type === "input_json_delta") {
            const id = blockTool.get(event.index) ?? "?";
            d.partialToolJson.set(id, (d.partialToolJson.get(id) ?? "") + event.delta.partial_json);
          }
        }
        break;
      }
      case "result":
        d.result = {
          subtype: m.subtype,
          isError: m.is_error,
          text: m.subtype === "success" ? m.result : undefined,
          errors: m.subtype === "success" ? [] : m.errors,
          // The SDK types it as a number; a careful consumer still checks (ion sends null for an unknown price).
          costUSD: typeof m.total_cost_usd === "number" ? m.total_cost_usd : null,
          inputTokens: m.usage.input_tokens,
          outputTokens: m.usage.output_tokens,
          models: Object.entries(m.modelUsage).map(([model, u]) => ({
            model,
            inputTokens: u.inputTokens,
            outputTokens: u.outputTokens,
            costUSD: typeof u.costUSD === "number" ? u.costUSD : null,
          })),
          denials: m.permission_denials.map((p) => p.tool_name),
          stopReason: m.stop_reason,
          turns: m.num_turns,
        };
        break;
      default:
        break;
    }
  }
  return d;
}
