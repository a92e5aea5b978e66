/**
 * A strict Mistral endpoint for the fake LLM: each /v1/chat/completions request is checked the way the
 * real API checks it, and answered with Mistral's error body when a rule is broken, else with the
 * scripted reply. The rules are those of Mistral's request validator (mistral-common,
 * `src/mistral_common/protocol/instruct/validator.py`, `MistralRequestValidatorV3`, serving mode):
 *
 * - "Validates the order of the messages": after `tool` only `assistant` or `tool`; after `user` no
 *   `tool`; after `system` no `tool`. The API answers (datapizza-labs/datapizza-ai#98, BerriAI/litellm#17761):
 *   `{"object":"error","message":"Unexpected role 'user' after role 'tool'","type":"invalid_request_message_order","param":null,"code":"3230"}`
 * - Tool call ids, on an assistant's tool_calls and a tool message's tool_call_id, must match
 *   `^[a-zA-Z0-9]{9}$`. The API answers (karthink/gptel#1203, openclaw/openclaw#57672):
 *   `{"object":"error","message":"Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`
 * - "That the number of tool calls and tool messages are the same": "Not the same number of function
 *   calls and responses" (mistralai/client-ts#106, with `"type":"invalid_request_error"`).
 * - A tool message answers a call of the assistant message before it. (The validator counts; the API
 *   pairs by id. No captured body exists for a mismatch: that message is illustrative.)
 * - An assistant message has content or tool calls ("Assistant message must have either content or
 *   tool_calls, but not none."), and the last message is a user or tool message ("Expected last role
 *   User or Tool (or Assistant with prefix True) for serving but got assistant").
 *
 * - Thinking (Mistral, "Reasoning"): `prompt_mode: "reasoning"` only on Magistral models (else
 *   earendil-works/pi#3096: "Reasoning prompt mode is not enabled for this model", code 3051);
 *   `reasoning_effort` only on the adjustable models (Mistral Small 4, Medium 3.5) and only "none" or
 *   "high" (architects-toolkit/SmartHopper#647: "reasoning_effort='medium' is not supported for this
 *   model. Must be one of …"); other models refuse the field (NousResearch/hermes-agent#11243; no
 *   captured body: that message is illustrative).
 *
 * A request without a bearer key gets the real 401 (../shared/fixtures/errors/mistral-401-unauthorized.json).
 */
import type { FakeResponse, RecordedRequest } from "./fake-llm.ts";
import { fixtureText } from "./fake-llm.ts";
import { jsonReply, type ScriptedReply, streamReply } from "./wire-scripts.ts";

interface WireToolCall {
  id?: unknown;
  function?: { name?: unknown };
}
interface WireMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: WireToolCall[] | null;
  tool_call_id?: unknown;
  prefix?: unknown;
}

/** A rule the request broke, as Mistral reports it. */
export interface MistralRejection {
  message: string;
  type: string;
  code: string | null;
}

const ID = /^[a-zA-Z0-9]{9}$/;
const ORDER = "invalid_request_message_order";

function idRejection(id: unknown): MistralRejection | undefined {
  if (typeof id === "string" && ID.test(id)) return undefined;
  const message = `Tool call id was ${String(id)} but must be a-z, A-Z, 0-9, with a length of 9.`;
  return { message, type: "invalid_function_call", code: "3280" };
}

const ARGS = "invalid_request_invalid_args";
/** The models of the strict endpoint that take `reasoning_effort`. */
const ADJUSTABLE_REASONING = ["mistral-small-latest", "mistral-small-2603", "mistral-medium-3-5"];

function thinkingRejection(body: { model?: unknown; prompt_mode?: unknown; reasoning_effort?: unknown }) {
  const model = String(body.model);
  if (body.prompt_mode != null && !/magistral/.test(model)) {
    return { message: "Reasoning prompt mode is not enabled for this model", type: ARGS, code: "3051" };
  }
  const effort = body.reasoning_effort;
  if (effort == null) return undefined;
  if (!ADJUSTABLE_REASONING.includes(model)) {
    return { message: "reasoning_effort is not supported for this model", type: ARGS, code: "3051" };
  }
  if (effort === "none" || effort === "high") return undefined;
  const message = `reasoning_effort='${String(effort)}' is not supported for this model. Must be one of (<ReasoningEffort.none: 'none'>, <ReasoningEffort.high: 'high'>)`;
  return { message, type: ARGS, code: "3051" };
}

/** The first rule `body` breaks, or undefined when Mistral would accept it. */
export function checkMistralRequest(body: unknown): MistralRejection | undefined {
  const thinking = thinkingRejection((body ?? {}) as Record<string, unknown>);
  if (thinking) return thinking;
  const messages = (body as { messages?: WireMessage[] } | undefined)?.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    return { message: "Conversation must have at least one message", type: ORDER, code: "3230" };
  }
  const after: Record<string, string[]> = {
    system: ["user", "assistant", "system"],
    user: ["assistant", "system", "user"],
    assistant: ["assistant", "user", "tool"],
    tool: ["assistant", "tool"],
  };
  let previous: string | undefined;
  let open: string[] = [];
  for (const message of messages) {
    const role = String(message.role);
    if (previous !== undefined && !after[previous]?.includes(role)) {
      return { message: `Unexpected role '${role}' after role '${previous}'`, type: ORDER, code: "3230" };
    }
    if (role === "assistant") {
      const calls = message.tool_calls ?? [];
      if (open.length > 0) return countRejection();
      if (!message.content && calls.length === 0) {
        const text = "Assistant message must have either content or tool_calls, but not none.";
        return { message: text, type: "invalid_request_error", code: null };
      }
      for (const call of calls) {
        const bad = idRejection(call.id);
        if (bad) return bad;
      }
      open = calls.map((call) => String(call.id));
    } else if (role === "tool") {
      const bad = idRejection(message.tool_call_id);
      if (bad) return bad;
      const at = open.indexOf(String(message.tool_call_id));
      if (at < 0) {
        const text = `Tool call id ${String(message.tool_call_id)} does not answer a call of the previous assistant message.`;
        return { message: text, type: "invalid_function_call", code: "3280" };
      }
      open.splice(at, 1);
    }
    previous = role;
  }
  if (open.length > 0) return countRejection();
  const last = messages.at(-1)!;
  if (last.role !== "user" && last.role !== "tool" && !(last.role === "assistant" && last.prefix === true)) {
    const text = `Expected last role User or Tool (or Assistant with prefix True) for serving but got ${String(last.role)}`;
    return { message: text, type: ORDER, code: "3230" };
  }
  return undefined;
}

function countRejection(): MistralRejection {
  return {
    message: "Not the same number of function calls and responses",
    type: "invalid_request_error",
    code: null,
  };
}

/**
 * A `FakeResponse.respond` for the Mistral wire: Mistral's error for a request it would reject (each
 * rejection's message is also pushed onto `rejected`), else `reply` streamed or as JSON.
 */
export function respond(
  reply: ScriptedReply,
  rejected: string[] = [],
): (request: RecordedRequest) => Promise<FakeResponse> {
  return async (request) => {
    if (!/^Bearer \S+/.test(request.headers.authorization ?? "")) {
      rejected.push("Unauthorized");
      const body = await fixtureText("errors/mistral-401-unauthorized.json");
      return { status: 401, headers: { "content-type": "application/json" }, body };
    }
    const rejection = checkMistralRequest(request.body);
    if (rejection) {
      rejected.push(rejection.message);
      const { message, type, code } = rejection;
      const body = JSON.stringify({ object: "error", message, type, param: null, code });
      return { status: 400, headers: { "content-type": "application/json" }, body };
    }
    const stream = (request.body as { stream?: unknown }).stream === true;
    return stream ? streamReply("mistral", reply) : jsonReply("mistral", reply);
  };
}

/** `reply` queued behind the strict checks, for the Mistral chat endpoint. */
export function strictMistralReply(reply: ScriptedReply, rejected: string[] = []): FakeResponse {
  return { pathSuffix: "/chat/completions", respond: respond(reply, rejected) };
}
