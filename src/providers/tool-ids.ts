/**
 * Tool-call ids in the form each wire's provider accepts. A session can hold ids another provider made
 * (the model was switched: `toolu_…`, `call_…`, `functions.read:0`, `chatcmpl-tool-<uuid>`); a wire
 * that cannot send them as they are maps each to one of its own format, derived from the original by
 * hash. The same history then always gives the same request — a byte-identical prefix, for prompt
 * caching — and a call and its result stay paired. Only the request changes; the session keeps the ids
 * it was given.
 */
import { createHash } from "node:crypto";
import type { Message } from "./types.ts";

export interface ToolIdFormat {
  /** Ids the provider accepts as they are. */
  accepts: RegExp;
  /** The characters and length of an id made for one it does not accept. */
  alphabet: string;
  length: number;
}

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Mistral: `^[a-zA-Z0-9]{9}$`, for the calls of an assistant message and a tool message's tool_call_id. */
export const MISTRAL_TOOL_IDS: ToolIdFormat = {
  accepts: /^[a-zA-Z0-9]{9}$/,
  alphabet: ALPHANUMERIC,
  length: 9,
};

/** OpenAI: any string of 1 to 40 characters (see `refusedToolIds` in openai-request.ts). */
export const OPENAI_TOOL_IDS: ToolIdFormat = {
  accepts: /^[\s\S]{1,40}$/,
  alphabet: ALPHANUMERIC,
  length: 24,
};

/** Anthropic: a tool_use id (and a tool_result's tool_use_id) must match `^[a-zA-Z0-9_-]+$`. */
export const ANTHROPIC_TOOL_IDS: ToolIdFormat = {
  accepts: /^[a-zA-Z0-9_-]+$/,
  alphabet: ALPHANUMERIC,
  length: 24,
};

/**
 * Every tool-call id of `messages` in `format`, looked up by the returned function (an id the history
 * does not hold is mapped on first lookup). Ids are claimed in order of appearance: an accepted id stays
 * as it is, another gets its hash; an id already taken by an earlier one is hashed again with a counter.
 * Earlier ids therefore never change as the history grows.
 */
export function toolIdMap(messages: readonly Message[], format: ToolIdFormat): (id: string) => string {
  const mapped = new Map<string, string>();
  const taken = new Set<string>();
  const claim = (id: string): string => {
    const known = mapped.get(id);
    if (known !== undefined) return known;
    let made = format.accepts.test(id) ? id : madeId(id, 0, format);
    for (let attempt = 1; taken.has(made); attempt++) made = madeId(id, attempt, format);
    mapped.set(id, made);
    taken.add(made);
    return made;
  };
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === "tool_use") claim(block.id);
      else if (block.type === "tool_result") claim(block.tool_use_id);
    }
  }
  return claim;
}

/** `format.length` characters of `format.alphabet` drawn from SHA-256 of the id (and the attempt). */
function madeId(id: string, attempt: number, format: ToolIdFormat): string {
  let out = "";
  for (let block = 0; out.length < format.length; block++) {
    const digest = createHash("sha256").update(`${attempt}:${block}:${id}`).digest();
    for (const byte of digest) {
      if (out.length === format.length) break;
      out += format.alphabet[byte % format.alphabet.length];
    }
  }
  return out;
}
