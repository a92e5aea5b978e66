import { imageLabel } from "../providers/image.ts";
import { count, counted } from "../util/numbers.ts";
import { type BashResult, bashResult, exitText, shellCommand } from "./bash-result.ts";
import type {
  CompactionEntry,
  ContextMessageEntry,
  ExtensionStateEntry,
  MessageEntry,
  RunEndEntry,
  SessionEntry,
  SessionHeader,
} from "./schema.ts";
import { entryTotals } from "./view.ts";

/**
 * A session as Markdown (`ion sessions export`): title, metadata, then every entry in file order —
 * compacted-away messages included, with a marker where each compaction happened. Tool calls and
 * results go in fenced blocks, in full.
 */
export interface Transcript {
  header: SessionHeader;
  entries: readonly SessionEntry[];
}

export interface TranscriptTotals {
  messages: number;
  input_tokens: number;
  output_tokens: number;
  /** The time of the last entry, else the session's creation. */
  updated_at: string;
}

export function transcriptTotals(t: Transcript): TranscriptTotals {
  const { messages } = entryTotals(t.entries);
  const { input, output } = spentTokens(t.entries);
  const last = t.entries.at(-1);
  return {
    messages,
    input_tokens: input,
    output_tokens: output,
    updated_at: last?.at ?? t.header.created_at,
  };
}

/**
 * The tokens a session spent, run by run, so the total matches its run ends: a run's end counts its
 * subagents' tokens, which none of the session's own messages record, so each run counts the larger
 * of its run end and its messages' usage; the messages of a run that never ended count alone. Input
 * includes cache reads and writes, as `ion sessions list` counts it.
 */
function spentTokens(entries: readonly SessionEntry[]): { input: number; output: number } {
  const inputOf = (usage: RunEndEntry["usage"]) =>
    usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
  let input = 0;
  let output = 0;
  let runInput = 0;
  let runOutput = 0;
  for (const entry of entries) {
    if (entry.type === "message" && entry.usage) {
      runInput += inputOf(entry.usage);
      runOutput += entry.usage.output_tokens;
    }
    if (entry.type !== "run_end") continue;
    input += Math.max(runInput, inputOf(entry.usage));
    output += Math.max(runOutput, entry.usage.output_tokens);
    runInput = 0;
    runOutput = 0;
  }
  return { input: input + runInput, output: output + runOutput };
}

/** tool_use id → tool name, so a result can say which tool it answers. */
export function toolNames(entries: readonly SessionEntry[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const entry of entries) {
    if (entry.type !== "message" || entry.message.role !== "assistant") continue;
    for (const block of entry.message.content) if (block.type === "tool_use") names.set(block.id, block.name);
  }
  return names;
}

/**
 * The last answer: the text of the last assistant message that has any (a step that only called
 * tools has none), its text blocks joined; undefined when no assistant message has text.
 */
export function lastAnswer(entries: readonly SessionEntry[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.type !== "message" || entry.message.role !== "assistant") continue;
    const texts = entry.message.content.flatMap((b) => (b.type === "text" && b.text !== "" ? [b.text] : []));
    if (texts.length > 0) return texts.join(""); // as `ion run` reports its result
  }
  return undefined;
}

/** `n` of the first message the model still sees, per the latest compaction (0 without one). */
export function firstKept(entries: readonly SessionEntry[]): number {
  let kept = 0;
  for (const entry of entries) if (entry.type === "compaction") kept = entry.first_kept;
  return kept;
}

/** " #n" after an entry's name in a transcript that numbers every entry (`sessions show`); else nothing. */
function entryNumber(n: number | undefined): string {
  return n === undefined ? "" : ` #${n}`;
}

/** `n`: the entry's number, for a transcript that numbers every entry (`sessions show`). */
export function compactionLine(c: CompactionEntry, n?: number): string {
  const how = c.method === "summary" ? "summary" : "oldest messages dropped";
  const range = c.first_kept > 0 ? ` of #0–#${c.first_kept - 1}` : "";
  return `compacted here${entryNumber(n)} (${c.trigger}): ${how}${range}, ${count(c.tokens_before)} → ${count(c.tokens_after)} tokens`;
}

/** An extension's saved state, as one line (its data is in `sessions show --json`). */
export function extensionStateLine(e: ExtensionStateEntry, n?: number): string {
  const under = e.parent_tool_use_id === undefined ? "" : ` for tool call ${e.parent_tool_use_id}`;
  return `extension state${entryNumber(n)}: ${e.extension}${under}`;
}

export function runEndLine(r: RunEndEntry, n?: number): string {
  const parts = [
    `run end${entryNumber(n)}: ${r.subtype}`,
    counted(r.num_turns, "turn"),
    `${count(r.usage.input_tokens)} in / ${count(r.usage.output_tokens)} out tokens`,
  ];
  if (r.total_cost_usd !== null) parts.push(`$${r.total_cost_usd.toFixed(4)}`);
  const errors = r.errors.length > 0 ? ` — ${r.errors.join("; ")}` : "";
  return `${parts.join(" · ")}${errors}`;
}

/** A code fence longer than any backtick run in `text`, so the content can never close it early. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}

function fenced(text: string, lang = ""): string {
  const fence = fenceFor(text);
  return `${fence}${lang}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}`;
}

export function renderMarkdown(t: Transcript): string {
  const { header, entries } = t;
  const totals = transcriptTotals(t);
  const names = toolNames(entries);
  const kept = firstKept(entries);
  const out: string[] = [
    `# ${header.title.trim() || "Untitled session"}`,
    "",
    `- **Session:** \`${header.id}\``,
    `- **Created:** ${header.created_at}`,
    `- **Updated:** ${totals.updated_at}`,
    `- **Directory:** \`${header.cwd}\``,
    `- **Model:** ${header.provider}/${header.model}`,
    `- **Messages:** ${totals.messages} · **Tokens:** ${count(totals.input_tokens)} in / ${count(totals.output_tokens)} out`,
  ];
  for (const entry of entries) {
    out.push("");
    switch (entry.type) {
      case "message":
      case "context_message":
        out.push(...messageMarkdown(entry, names, entry.n < kept));
        break;
      case "extension_state":
        out.push(`*${capitalise(extensionStateLine(entry))}.*`);
        break;
      case "compaction":
        out.push(
          "---",
          "",
          `*${capitalise(compactionLine(entry))}. From here on the model sees this instead:*`,
          "",
        );
        out.push(quote(entry.summary), "", "---");
        break;
      case "model_change":
        out.push(`*Model changed to ${entry.provider}/${entry.model}.*`);
        break;
      case "run_end":
        out.push(`*${capitalise(runEndLine(entry))}*`);
        break;
    }
  }
  return `${out.join("\n")}\n`;
}

function messageMarkdown(
  entry: MessageEntry | ContextMessageEntry,
  names: Map<string, string>,
  compacted: boolean,
): string[] {
  const { message } = entry;
  const out: string[] = [];
  const note = compacted ? " *(compacted away: the model no longer sees it)*" : "";
  const onlyResults = message.role === "user" && message.content.every((b) => b.type === "tool_result");
  const who =
    entry.type === "context_message"
      ? `Context from ${entry.source}`
      : message.role === "user"
        ? "User"
        : "Assistant";
  if (!onlyResults) out.push(`## ${who}${note}`, "");
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        out.push(block.text, "");
        break;
      case "image":
        out.push(`*${imageLabel(block)}*`, "");
        break;
      case "thinking":
        out.push("<details><summary>Thinking</summary>", "", block.thinking, "", "</details>", "");
        break;
      case "tool_use": {
        const command = shellCommand(block.name, block.input);
        if (command) {
          out.push(`**Tool call:** \`${block.name}\``, "", fenced(command.text, "sh"), "");
          if (command.rest) out.push(fenced(JSON.stringify(command.rest, null, 2), "json"), "");
          break;
        }
        out.push(
          `**Tool call:** \`${block.name}\``,
          "",
          fenced(JSON.stringify(block.input, null, 2), "json"),
          "",
        );
        break;
      }
      case "tool_result": {
        const name = names.get(block.tool_use_id) ?? block.tool_use_id;
        const label = block.is_error ? "Tool error" : "Tool result";
        const bash = bashResult(name, block.content);
        const exit = bash ? ` · ${exitText(bash)}` : "";
        out.push(`**${label}:** \`${name}\`${exit}${onlyResults ? note : ""}`, "");
        out.push(...(bash ? bashMarkdown(bash) : [fenced(block.content), ""]));
        break;
      }
    }
  }
  if (out.at(-1) === "") out.pop();
  return out;
}

/** A bash result as its output: stdout and stderr each in a fenced block, then the note (a timeout). */
function bashMarkdown(result: BashResult): string[] {
  const out: string[] = [];
  if (result.stdout === "" && result.stderr === "") out.push("*(no output)*", "");
  if (result.stdout !== "") {
    if (result.stderr !== "") out.push("stdout:", "");
    out.push(fenced(result.stdout), "");
  }
  if (result.stderr !== "") out.push("stderr:", "", fenced(result.stderr), "");
  if (result.note) out.push(`*Note: ${result.note}*`, "");
  return out;
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? ">" : `> ${line}`))
    .join("\n");
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
