import { Eta } from "eta";
import compactTemplate from "../../templates/compact.eta" with { type: "text" };
import { summaryMessage } from "../history/view.ts";
import { imageLabel } from "../providers/image.ts";
import type {
  Message,
  ProviderError,
  ResolvedProvider,
  StreamFn,
  ToolSpec,
  Usage,
} from "../providers/types.ts";
import { addUsage, emptyUsage } from "../providers/types.ts";
import { messageOf } from "../util/error-text.ts";
import type { AgentEvent, CompactTrigger } from "./events.ts";
import { estimateTokens, messageChars, tokensOfChars } from "./tokens.ts";

/**
 * Compaction (SPEC R-COMPACT): the older part of the model's view is replaced by a summary the model
 * writes from `templates/compact.eta`; the newest ~50 % stays verbatim. Only the view changes: the
 * caller records a compaction entry and the originals stay in the session file.
 */

/** Share of the view's tokens kept verbatim, and the range a cut at a real prompt may land in. */
const KEEP_TARGET = 0.5;
const KEEP_MIN = 0.2;
const KEEP_MAX = 0.65;
/** Above this share of the window, the older part is summarised in chunks from the start. */
const SINGLE_REQUEST_MAX = 0.7;
/** Largest share of the window one chunk may fill (room for the previous summary and the answer). */
const CHUNK_MAX = 0.5;
/** Caps in characters when serialising for the summariser: details of old outputs matter little. */
const MAX_TEXT_CHARS = 8000;
const MAX_TOOL_INPUT_CHARS = 1000;
const MAX_TOOL_RESULT_CHARS = 2000;

const SUMMARY_SYSTEM =
  "You summarise conversations between a user and a coding assistant faithfully and concisely.";

export interface CompactInput {
  /** The model's view to compact (possibly starting with an earlier summary). Not mutated. */
  messages: readonly Message[];
  system: string;
  provider: ResolvedProvider;
  model: string;
  stream: StreamFn;
  signal: AbortSignal;
  /** The context window in tokens; undefined when unknown. */
  window: number | undefined;
  trigger: CompactTrigger;
  /** `/compact FOCUS`: what the summary should concentrate on. */
  focus?: string;
  /** Sources of context messages left out of the summary (they come back by themselves: recalled memories). */
  droppedContext?: ReadonlySet<string> | undefined;
  /** The tools sent with agent requests: counted in the token estimates, never sent to the summariser. */
  tools?: readonly ToolSpec[];
  /** The caller's better estimate of the view's size (e.g. from provider usage); default chars/4. */
  tokensBefore?: number;
  log?: (line: string) => void;
}

/**
 * The event that reports a compaction of `messages` (the view before it): the loop's automatic ones and
 * `/compact` alike. `first_kept` is the kept message itself, so the session can name its entry.
 */
export function boundaryEvent(
  trigger: CompactTrigger,
  compacted: CompactResult,
  messages: readonly Message[],
): Extract<AgentEvent, { type: "compact_boundary" }> {
  return {
    type: "compact_boundary",
    trigger,
    pre_tokens: compacted.tokensBefore,
    post_tokens: compacted.tokensAfter,
    summary: compacted.summary,
    kept: compacted.kept,
    first_kept: compacted.kept > 0 ? messages[messages.length - compacted.kept] : undefined,
    method: compacted.method,
  };
}

export interface CompactResult {
  /** The new view: the summary message, then the kept messages. */
  messages: Message[];
  summary: string;
  /** How many of the original messages (from the end) were kept. */
  kept: number;
  tokensBefore: number;
  tokensAfter: number;
  /** "dropped" when summarising failed and the older messages were dropped instead. */
  method: "summary" | "dropped";
  /** Of the summary request(s), failed ones included: they cost money too. */
  usage: Usage;
}

// Plain text out: the prompt is not HTML, so nothing is escaped.
const eta = new Eta({ autoEscape: false, autoTrim: false });

const SUMMARY_PREFIX = "<conversation_summary>";

/** Whether a message is a compaction summary as `summaryMessage` builds it. */
export function isSummaryMessage(message: Message): boolean {
  const first = message.content[0];
  return (
    message.role === "user" &&
    message.content.length === 1 &&
    first?.type === "text" &&
    first.text.startsWith(SUMMARY_PREFIX)
  );
}

/** A message ion or an extension put before a prompt (memory, a hook's context): not the user's words. */
function isContextMessage(message: Message | undefined): boolean {
  return message?.role === "user" && message.context !== undefined;
}

/** A user message that starts a turn: no tool results, not a summary. Its context messages count too. */
function isPrompt(message: Message): boolean {
  return !message.content.some((b) => b.type === "tool_result") && !isSummaryMessage(message);
}

/** The summary inside a summary message (the whole text if it does not have the expected shape). */
function summaryText(message: Message): string {
  const first = message.content[0];
  const text = first?.type === "text" ? first.text : "";
  return text.match(/^<conversation_summary>\n[^\n]*\n\n([\s\S]*)\n<\/conversation_summary>$/)?.[1] ?? text;
}

/** Keeps the head and the tail of a long text, saying how much was left out between them. */
export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max * 0.7);
  const tail = max - head;
  return `${text.slice(0, head)}\n… [${text.length - head - tail} characters omitted] …\n${text.slice(text.length - tail)}`;
}

/**
 * Where to cut the view: the index of the first kept message. The kept part never holds a tool result
 * whose call is in the older part. Preferred is a real prompt (a user message without tool results;
 * for a prompt with per-turn context, the first of its context messages, so they stay together)
 * keeping 20–65 % of the tokens, then an assistant message in that range, nearest to 50 % first;
 * failing both, the valid cut nearest to 50 % that keeps at most 65 % — at worst `messages.length`
 * (summarise everything). Returns 0 only for an empty view.
 */
export function findCut(messages: readonly Message[]): number {
  const n = messages.length;
  if (n === 0) return 0;
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + tokensOfChars(messageChars(messages[i]!));
  const total = suffix[0]!;
  const keptShare = (i: number) => (total === 0 ? (n - i) / n : suffix[i]! / total);

  // A cut i splits a call at u from its result at r exactly when u < i <= r: mark those i.
  const calledAt = new Map<string, number>();
  messages.forEach((m, i) => {
    for (const b of m.content) if (b.type === "tool_use") calledAt.set(b.id, i);
  });
  const delta = new Array<number>(n + 2).fill(0);
  messages.forEach((m, r) => {
    for (const b of m.content) {
      if (b.type !== "tool_result") continue;
      const u = calledAt.get(b.tool_use_id);
      if (u === undefined || u >= r) continue;
      delta[u + 1]!++;
      delta[r + 1]!--;
    }
  });
  const prompts: number[] = [];
  const assistants: number[] = [];
  const valid: number[] = [];
  let splits = 0;
  for (let i = 1; i <= n; i++) {
    splits += delta[i]!;
    if (splits > 0) continue;
    valid.push(i);
    const m = messages[i];
    if (!m) continue;
    if (m.role === "assistant") assistants.push(i);
    else if (isPrompt(m) && !isContextMessage(messages[i - 1])) prompts.push(i);
  }
  const nearest = (cuts: number[], min: number) => {
    let best: number | undefined;
    for (const i of cuts) {
      const share = keptShare(i);
      if (share < min || share > KEEP_MAX) continue;
      // Ties go to the later cut: compacting more rather than less.
      if (best === undefined || Math.abs(share - KEEP_TARGET) <= Math.abs(keptShare(best) - KEEP_TARGET))
        best = i;
    }
    return best;
  };
  return nearest(prompts, KEEP_MIN) ?? nearest(assistants, KEEP_MIN) ?? nearest(valid, 0) ?? n;
}

/** The older messages as readable text for the summariser, one string per message. */
export function serializeMessages(messages: readonly Message[]): string[] {
  const toolNames = new Map<string, string>();
  for (const m of messages) for (const b of m.content) if (b.type === "tool_use") toolNames.set(b.id, b.name);
  const out: string[] = [];
  for (const m of messages) {
    if (isSummaryMessage(m)) {
      out.push(`[Summary of the conversation before this point]\n${summaryText(m)}`);
      continue;
    }
    const parts: string[] = [];
    // A context message (memory, a hook's context) is labelled by its source: not the user's words.
    const context = m.role === "user" ? m.context : undefined;
    const who = context ? `Context from ${context.source}` : m.role === "user" ? "User" : "Assistant";
    for (const b of m.content) {
      switch (b.type) {
        case "text":
          if (b.text.trim()) parts.push(`[${who}]\n${truncateMiddle(b.text, MAX_TEXT_CHARS)}`);
          break;
        case "thinking":
          break; // private reasoning; what came of it is in the text and the tool calls
        case "image":
          // The summariser gets text only.
          parts.push(`[${context ? `${who}: an image` : "User attached an image"}] ${imageLabel(b)}`);
          break;
        case "tool_use":
          parts.push(
            `[Tool call: ${b.name}] ${truncateMiddle(JSON.stringify(b.input), MAX_TOOL_INPUT_CHARS)}`,
          );
          break;
        case "tool_result": {
          const name = toolNames.get(b.tool_use_id) ?? "tool";
          parts.push(
            `[Tool result: ${name}${b.is_error ? " (error)" : ""}]\n${truncateMiddle(b.content, MAX_TOOL_RESULT_CHARS)}`,
          );
          break;
        }
      }
    }
    if (parts.length > 0) out.push(parts.join("\n\n"));
  }
  return out;
}

/**
 * Splits serialised messages into about `count` chunks of similar size, none above `maxChars` (a single
 * longer message is truncated). A message goes to the chunk its middle falls in.
 */
function packChunks(pieces: readonly string[], count: number, maxChars: number): string[] {
  const fitted = pieces.map((p) => truncateMiddle(p, maxChars));
  const share = fitted.reduce((sum, p) => sum + p.length + 2, 0) / count;
  const chunks: string[] = [];
  let current = "";
  for (const piece of fitted) {
    const grown = current.length + 2 + piece.length;
    if (current && (grown > maxChars || grown - piece.length / 2 > share)) {
      chunks.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${piece}` : piece;
  }
  if (current) chunks.push(current);
  return chunks;
}

function renderCompactPrompt(input: {
  conversation: string;
  focus?: string | undefined;
  previousSummary?: string | undefined;
  part?: number;
  parts?: number;
}): string {
  return eta
    .renderString(compactTemplate, { focus: "", previousSummary: "", part: 1, parts: 1, ...input })
    .trim();
}

type Attempt = { ok: true; text: string; usage: Usage } | { ok: false; error: ProviderError; usage: Usage };

/** One summary request: no tools, thinking off. Never throws; a failure comes back as an error value. */
async function requestSummary(input: CompactInput, prompt: string): Promise<Attempt> {
  let text = "";
  let usage = emptyUsage();
  let error: ProviderError | undefined;
  try {
    const events = input.stream({
      provider: input.provider,
      model: input.model,
      system: SUMMARY_SYSTEM,
      messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      tools: [],
      thinking: "off",
      signal: input.signal,
      ...(input.log ? { log: input.log } : {}),
    });
    for await (const event of events) {
      if (event.type === "text_delta") text += event.text;
      else if (event.type === "usage" || event.type === "done") usage = event.usage;
      else if (event.type === "error") {
        error = event.error;
        if (event.usage) usage = event.usage;
      }
    }
  } catch (err) {
    // Streams end failures with an error event; a throw is an adapter bug, handled the same way.
    error = {
      kind: input.signal.aborted ? "aborted" : "stream_dropped",
      message: `summary request to ${input.provider.id} failed: ${messageOf(err)}`,
    };
  }
  if (!error && input.signal.aborted)
    error = { kind: "aborted", message: `summary request to ${input.provider.id} was cancelled` };
  if (!error && !text.trim())
    error = { kind: "bad_request", message: `the summary from ${input.provider.id} was empty` };
  return error ? { ok: false, error, usage } : { ok: true, text: text.trim(), usage };
}

/** Errors that another (smaller) request cannot fix. */
const hopeless = (error: ProviderError) =>
  error.kind === "aborted" || error.kind === "auth" || error.kind === "model_not_found";

/**
 * Compacts the view: summary of the older part + the newest ~50 % verbatim. Tries one summary request,
 * then (when it failed or the older part alone would overflow) a chain of chunk summaries, then falls back
 * to dropping the older part. Provider failures never throw: they end in the "dropped" result.
 */
export async function compactMessages(input: CompactInput): Promise<CompactResult> {
  const { messages, system, window } = input;
  const tools = input.tools ?? [];
  const tokensBefore = input.tokensBefore ?? estimateTokens(messages, system, tools);
  const cut = findCut(messages);
  const older = messages.slice(0, cut);
  const kept = messages.slice(cut);
  let usage = emptyUsage();
  const finish = (summary: string, method: CompactResult["method"]): CompactResult => {
    const view = [summaryMessage(summary), ...kept];
    return {
      messages: view,
      summary,
      kept: kept.length,
      tokensBefore,
      tokensAfter: estimateTokens(view, system, tools),
      method,
      usage,
    };
  };
  if (older.length === 0) {
    // Only an empty view has nothing older; there is nothing to summarise or drop.
    return {
      messages: [],
      summary: "",
      kept: 0,
      tokensBefore,
      tokensAfter: tokensBefore,
      method: "dropped",
      usage,
    };
  }

  const leftOut = input.droppedContext;
  const summarised = leftOut
    ? older.filter((m) => !(m.role === "user" && m.context && leftOut.has(m.context.source)))
    : older;
  const pieces = serializeMessages(summarised);
  const olderTokens = tokensOfChars(pieces.reduce((sum, p) => sum + p.length + 2, 0));
  const focus = input.focus?.trim() || undefined;
  let failure: ProviderError | undefined = input.signal.aborted
    ? { kind: "aborted", message: "the summary was cancelled" }
    : undefined;

  if (!failure && (window === undefined || olderTokens <= window * SINGLE_REQUEST_MAX)) {
    const attempt = await requestSummary(
      input,
      renderCompactPrompt({ conversation: pieces.join("\n\n"), focus }),
    );
    usage = addUsage(usage, attempt.usage);
    if (attempt.ok) return finish(attempt.text, "summary");
    failure = attempt.error;
  }

  if (!input.signal.aborted && (!failure || !hopeless(failure))) {
    // At least halves (the one request failed or was too big), more when the window needs it.
    const maxChunkTokens = window === undefined ? Infinity : Math.max(1, Math.floor(window * CHUNK_MAX));
    const count = Math.max(2, Math.ceil(olderTokens / maxChunkTokens));
    const chunks = packChunks(pieces, count, maxChunkTokens * 4);
    let previous: string | undefined;
    for (const [i, chunk] of chunks.entries()) {
      const prompt = renderCompactPrompt({
        conversation: chunk,
        focus,
        previousSummary: previous,
        part: i + 1,
        parts: chunks.length,
      });
      const attempt = await requestSummary(input, prompt);
      usage = addUsage(usage, attempt.usage);
      if (!attempt.ok) {
        failure = attempt.error;
        previous = undefined;
        break;
      }
      previous = attempt.text;
    }
    if (previous !== undefined) return finish(previous, "summary");
  }

  const dropped = older.filter((m) => !isSummaryMessage(m)).length;
  const earlier = older.find(isSummaryMessage);
  const reason = failure ? `: ${failure.message}` : "";
  let note = `${dropped} earlier message${dropped === 1 ? " was" : "s were"} dropped from the context because summarising them failed${reason}. Their content is no longer visible; ask the user if something from them is needed.`;
  if (earlier) note += `\n\nThe summary from before them:\n\n${summaryText(earlier)}`;
  return finish(note, "dropped");
}
