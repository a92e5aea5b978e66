/**
 * A tool call's arguments as every wire reports them on its `tool_call` event. OpenAI, Anthropic and
 * Mistral stream the arguments as JSON text in pieces (the wire joins them); Ollama sends an object,
 * or JSON text from some builds and proxies. Arguments that do not parse are not guessed at: the call
 * gets `{}` and a `parse_error` the model is shown (tool-batch.ts answers the call with it instead of
 * running the tool), quoting the start of what the model sent so that it can see its mistake.
 */
import { messageOf } from "../util/error-text.ts";

export interface ToolArguments {
  input: Record<string, unknown>;
  parse_error?: string;
}

/** How much of arguments that did not parse the error quotes. */
const QUOTED_CHARS = 200;

/** Arguments streamed as JSON text. None at all (or only blanks) is a call without arguments: `{}`. */
export function parseToolArguments(text: string): ToolArguments {
  if (text.trim() === "") return { input: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { input: {}, parse_error: `not valid JSON (${messageOf(err)}): ${quote(text)}` };
  }
  return objectArguments(value, text);
}

/** Arguments sent as an object, or as JSON text (Ollama); none at all is `{}`. */
export function toolArgumentsOf(value: unknown): ToolArguments {
  if (value === undefined || value === null) return { input: {} };
  if (typeof value === "string") return parseToolArguments(value);
  return objectArguments(value, JSON.stringify(value));
}

function objectArguments(value: unknown, text: string): ToolArguments {
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    return { input: value as Record<string, unknown> };
  return { input: {}, parse_error: `not a JSON object: ${quote(text)}` };
}

function quote(text: string): string {
  return text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
}
