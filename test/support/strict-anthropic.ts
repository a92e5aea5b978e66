/**
 * A strict Anthropic Messages endpoint for the fake LLM: every request is checked against the thinking
 * rules the real API enforces, and one that breaks a rule gets the real 400 (the error envelope of
 * ../shared/fixtures/errors with the API's own message for that rule); a valid one gets the next
 * scripted reply, streamed in the wire's framing. Replies may carry Claude 3.7's redacted_thinking
 * blocks. The endpoint remembers the reasoning it sent with each tool call, so a tool loop that does not
 * send that reasoning back unchanged is refused as the API refuses it.
 *
 * The rules, from Anthropic's "Troubleshooting thinking" page: "Extended thinking (thinking.type:
 * "enabled" with budget_tokens) is deprecated on Claude Opus 4.6 and Claude Sonnet 4.6 (it still works
 * there). Claude Opus 4.7, Claude Opus 4.8, Claude Sonnet 5, Claude Fable 5, and Claude Mythos 5 do not
 * support it and reject requests that use it, returning a 400 error. On earlier models, including Claude
 * Sonnet 4.5, Claude Opus 4.5, and Claude Haiku 4.5, extended thinking is the only thinking mode." And
 * from the extended-thinking docs: "Occasionally Claude's internal reasoning will be flagged by our
 * safety systems. When this occurs, we encrypt some or all of the thinking block and return it to you as
 * a redacted_thinking block. redacted_thinking blocks are decrypted when passed back to the API".
 */
import type { FakeLLM, FakeResponse, RecordedRequest } from "./fake-llm.ts";
import { fixtureText } from "./fake-llm.ts";
import { type ScriptedReply, streamReply } from "./wire-scripts.ts";

/** Models that take only `thinking: {type: "adaptive"}` (ids by prefix, so `claude-sonnet-5-5` too). */
const ADAPTIVE_ONLY = [
  "claude-opus-4-7",
  "claude-opus-4-8",
  "claude-opus-5",
  "claude-sonnet-5",
  "claude-fable-5",
  "claude-mythos-5",
];
/** Models that take only `thinking: {type: "enabled", budget_tokens}`. */
const BUDGET_ONLY = [
  "claude-3-7-sonnet",
  "claude-sonnet-4-5",
  "claude-opus-4-5",
  "claude-haiku-4-5",
  "claude-opus-4-1",
  "claude-opus-4-0",
  "claude-sonnet-4-0",
  "claude-opus-4-2025",
  "claude-sonnet-4-2025",
];

/** The API's messages, word for word (quoted from its 400 answers in public bug reports). */
export const MESSAGES = {
  enabledRejected:
    '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
  adaptiveRejected: "adaptive thinking is not supported on this model",
  budgetTooSmall: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
  maxTokens:
    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
  expectedThinking: (at: string, found: string) =>
    `${at}.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  invalidSignature: (at: string) => `${at}: Invalid \`signature\` in \`thinking\` block`,
};

export interface StrictReply extends ScriptedReply {
  /** Encrypted `data` of redacted_thinking blocks sent before any thinking, text or tool call. */
  redacted?: string[];
}

type Block = { type: string; [key: string]: unknown };
type Wire = { role: string; content: string | Block[] };
interface Body {
  model: string;
  max_tokens: number;
  stream?: boolean;
  thinking?: { type: string; budget_tokens?: number };
  messages: Wire[];
}

export interface StrictAnthropic {
  /** For `FakeResponse.respond`: the 400 for a broken rule, else the next queued reply. */
  respond(request: RecordedRequest): Promise<FakeResponse>;
  /** Queue the model's next reply. */
  reply(reply: StrictReply): void;
  /** Each request's verdict in arrival order: null when valid, else the message of its 400. */
  verdicts: (string | null)[];
}

const starts = (model: string, prefixes: string[]) => prefixes.some((p) => model.startsWith(p));

/** The reasoning blocks the endpoint sent, as the API requires them back. */
function sameBlock(sent: Block | undefined, issued: Block): boolean {
  if (!sent || sent.type !== issued.type) return false;
  return issued.type === "redacted_thinking"
    ? sent.data === issued.data
    : sent.signature === issued.signature;
}

/** Model id prefixes to add to the endpoint's rules, e.g. a model newer than ion's own table. */
export interface StrictOptions {
  adaptiveOnly?: string[];
  budgetOnly?: string[];
}

function thinkingRule(body: Body, options: StrictOptions): string | undefined {
  const type = body.thinking?.type;
  const adaptiveOnly = [...ADAPTIVE_ONLY, ...(options.adaptiveOnly ?? [])];
  const budgetOnly = [...BUDGET_ONLY, ...(options.budgetOnly ?? [])];
  if (type === "enabled" && starts(body.model, adaptiveOnly)) return MESSAGES.enabledRejected;
  if (type === "adaptive" && starts(body.model, budgetOnly)) return MESSAGES.adaptiveRejected;
  if (type === "enabled") {
    const budget = body.thinking?.budget_tokens ?? 0;
    if (budget < 1024) return MESSAGES.budgetTooSmall;
    if (body.max_tokens <= budget) return MESSAGES.maxTokens;
  }
  return undefined;
}

export function strictAnthropic(options: StrictOptions = {}): StrictAnthropic {
  const queue: StrictReply[] = [];
  const verdicts: (string | null)[] = [];
  const signatures = new Set<string>();
  /** The reasoning each reply with tool calls began with, by tool call id. */
  const reasoningOf = new Map<string, Block[]>();
  let count = 0;

  /** Reasoning blocks must be ones this endpoint issued, and a tool loop must send its turn's back. */
  const historyRule = (body: Body): string | undefined => {
    const messages = body.messages;
    for (const [i, message] of messages.entries()) {
      if (typeof message.content === "string") continue;
      for (const [j, block] of message.content.entries()) {
        if (block.type === "thinking" && !signatures.has(String(block.signature))) {
          return MESSAGES.invalidSignature(`messages.${i}.content.${j}`);
        }
      }
    }
    const last = messages.at(-1);
    const results = Array.isArray(last?.content) ? last.content.filter((b) => b.type === "tool_result") : [];
    const at = messages.length - 2;
    const turn = messages[at];
    if (!body.thinking || results.length === 0 || !turn || !Array.isArray(turn.content)) return undefined;
    const call = turn.content.find((b) => b.type === "tool_use");
    const issued = call ? reasoningOf.get(String(call.id)) : undefined;
    const first = turn.content[0];
    const needed = body.thinking.type === "enabled" || (issued?.length ?? 0) > 0;
    if (needed && first?.type !== "thinking" && first?.type !== "redacted_thinking") {
      return MESSAGES.expectedThinking(`messages.${at}.content.0`, String(first?.type));
    }
    const broken = (issued ?? []).findIndex((block, k) => !sameBlock(turn.content[k] as Block, block));
    return broken < 0 ? undefined : MESSAGES.invalidSignature(`messages.${at}.content.${broken}`);
  };

  const answer = (reply: StrictReply): FakeResponse => {
    count++;
    const signature = reply.signature ?? Buffer.from(`strict-signature-${count}`).toString("base64");
    const calls = (reply.toolCalls ?? []).map((c, k) => ({
      ...c,
      id: c.id ?? `toolu_01Strict${count}x${k}`,
    }));
    const redacted = reply.redacted ?? [];
    const issued: Block[] = redacted.map((data) => ({ type: "redacted_thinking", data }));
    if (reply.thinking) {
      signatures.add(signature);
      issued.push({ type: "thinking", signature });
    }
    for (const call of calls) reasoningOf.set(call.id, issued);
    const { redacted: _, ...scripted } = reply;
    const response = streamReply("anthropic", { ...scripted, signature, toolCalls: calls });
    const [start = "", ...rest] = response.chunks ?? [];
    // The redacted blocks come first; every later block moves along by as many indexes.
    const shifted = rest.map((c) =>
      c.replace(/"index":(\d+)/, (_m, n) => `"index":${Number(n) + redacted.length}`),
    );
    const frames = redacted.flatMap((data, index) => [
      `event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index, content_block: { type: "redacted_thinking", data } })}\n\n`,
      `event: content_block_stop\ndata: ${JSON.stringify({ type: "content_block_stop", index })}\n\n`,
    ]);
    return { ...response, chunks: [start, ...frames, ...shifted] };
  };

  const respond = async (request: RecordedRequest): Promise<FakeResponse> => {
    const body = request.body as Body;
    const broken = thinkingRule(body, options) ?? historyRule(body);
    verdicts.push(broken ?? null);
    if (broken) return rejection(broken);
    const reply = queue.shift();
    if (!reply) throw new Error("strict anthropic endpoint: no reply queued for a valid request");
    return answer(reply);
  };

  return { respond, reply: (r) => queue.push(r), verdicts };
}

/** The API's 400 envelope (from the recorded error fixture) around `message`. */
async function rejection(message: string): Promise<FakeResponse> {
  const envelope = JSON.parse(await fixtureText("errors/anthropic-400-prompt-too-long.json")) as {
    error: { type: string; message: string };
    request_id: string;
  };
  envelope.error.message = message;
  envelope.request_id = `req_011Strict${Date.now().toString(36)}`;
  return { status: 400, headers: { "content-type": "application/json" }, body: JSON.stringify(envelope) };
}

/** Queue `count` requests' worth of strict answers on the fake server's messages endpoint. */
export function serveStrict(server: FakeLLM, strict: StrictAnthropic, count: number): void {
  for (let i = 0; i < count; i++) server.enqueue({ respond: strict.respond, pathSuffix: "/messages" });
}
