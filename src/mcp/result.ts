/**
 * An MCP tool result as the text the model reads: text parts joined by newlines; `structuredContent`
 * as JSON (left out when the text already says the same, see textCovers); images, audio and resources as one-line notes with their type and size, since ion passes
 * tool results to the model as text. `isError` makes the outcome an error. The text is capped like a
 * built-in tool's output.
 */
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { truncateHead } from "../tools/limits.ts";
import type { ToolOutcome } from "../tools/types.ts";
import { count } from "../util/numbers.ts";

/** The cap on what one MCP call returns to the model: the same as `bash`'s output. */
export const MCP_MAX_OUTPUT_CHARS = 30_000;

/** Bytes held by base64 text, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function sizeText(bytes: number): string {
  return `${count(bytes)} bytes`;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${sizeText(base64Bytes(block.data))}]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${sizeText(base64Bytes(block.data))}]`;
    case "resource": {
      const resource = block.resource;
      const type = resource.mimeType ?? "unknown type";
      const size =
        "text" in resource && typeof resource.text === "string"
          ? `${count(resource.text.length)} characters of text`
          : "blob" in resource && typeof resource.blob === "string"
            ? sizeText(base64Bytes(resource.blob))
            : "empty";
      return `[resource: ${resource.uri}, ${type}, ${size}]`;
    }
    case "resource_link": {
      const details = [block.mimeType, block.size === undefined ? undefined : sizeText(block.size)].filter(
        (part): part is string => part !== undefined,
      );
      return `[resource link: ${block.uri}${details.length > 0 ? `, ${details.join(", ")}` : ""}]`;
    }
  }
}

/** The strings, numbers and booleans inside a JSON value, up to `limit` of them (undefined past it). */
function leaves(value: unknown, limit: number, into: string[] = []): string[] | undefined {
  if (value === null || typeof value !== "object") {
    if (value !== null && value !== undefined && value !== "") into.push(String(value));
    return into.length > limit ? undefined : into;
  }
  for (const item of Array.isArray(value) ? value : Object.values(value))
    if (leaves(item, limit, into) === undefined) return undefined;
  return into;
}

const MAX_LEAVES_CHECKED = 1000;

/**
 * True when the text parts already say what the structured content holds: one of them is its JSON
 * (what the MCP spec asks servers to send), or every value in it appears in the text (a server that
 * wraps its text as `{"content": text}`).
 */
function textCovers(texts: readonly string[], structured: unknown): boolean {
  for (const text of texts) {
    const trimmed = text.trim();
    if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) continue;
    try {
      if (Bun.deepEquals(JSON.parse(trimmed), structured)) return true;
    } catch {
      // not JSON: this part is prose, keep looking
    }
  }
  const values = leaves(structured, MAX_LEAVES_CHECKED);
  const joined = texts.join("\n");
  return values !== undefined && values.length > 0 && values.every((value) => joined.includes(value));
}

/** The outcome of a call that answered; `result` as the SDK returns it (current or 2024-10-07 shape). */
export function outcomeOfResult(result: CallToolResult | { toolResult: unknown }): ToolOutcome {
  if ("toolResult" in result) {
    // The protocol's first version returned one opaque value.
    return {
      content: truncateHead(JSON.stringify(result.toolResult) ?? "", MCP_MAX_OUTPUT_CHARS),
      is_error: false,
    };
  }
  const blocks = result.content ?? [];
  const parts = blocks.map(blockText);
  const texts = blocks.flatMap((block) => (block.type === "text" ? [block.text] : []));
  if (result.structuredContent !== undefined && !textCovers(texts, result.structuredContent))
    parts.push(JSON.stringify(result.structuredContent));
  const content = parts.join("\n");
  return {
    content: truncateHead(content === "" ? "(the tool returned no content)" : content, MCP_MAX_OUTPUT_CHARS),
    is_error: result.isError === true,
  };
}
