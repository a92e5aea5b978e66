import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { IonError } from "../errors.ts";
import { type BashResult, bashResult, exitText, shellCommand } from "../history/bash-result.ts";
import {
  compactionLine,
  extensionStateLine,
  firstKept,
  lastAnswer,
  renderMarkdown,
  runEndLine,
  type Transcript,
  toolNames,
  transcriptTotals,
} from "../history/export.ts";
import type { ContextMessageEntry, MessageEntry } from "../history/schema.ts";
import { PLAN_EXTENSION, planChecklist, planFromData } from "../plan/plan.ts";
import { imageLabel } from "../providers/image.ts";
import { colorEnabled, createStyle, type Style } from "../ui/style.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { errnoOf, systemMessage } from "../util/error-text.ts";
import { count, counted } from "../util/numbers.ts";
import { safeForTerminal, safeForTerminalDeep } from "../util/terminal-text.ts";
import { parseStrict } from "./_shared.ts";
import { exportArgs, rmArgs, showArgs } from "./sessions.ts";
import { loadSession, openStore, requireId, resolveId } from "./sessions-common.ts";
import { childToolNames, childTranscript, supersededChildSaves } from "./sessions-show-children.ts";

/** `ion sessions show ID [--json | --last]`. */
export async function showSession(rawArgs: string[]): Promise<void> {
  const args = parseStrict("sessions show", rawArgs, showArgs, 1);
  if (args.last === true && args.json === true)
    throw new IonError("usage", "--last and --json cannot be used together", {
      hint: "--last prints the answer as plain text; --json has every entry",
    });
  const loaded = await loadSession(openStore(), requireId("sessions show", args.id));
  if (args.last === true) {
    const answer = lastAnswer(loaded.entries);
    if (answer === undefined)
      throw new IonError("usage", `session ${loaded.header.id} has no answer yet`, {
        hint: "`ion sessions show ID` prints all of it",
      });
    // Exact for a pipe (a script reads the model's words); made safe only for a terminal.
    const text = process.stdout.isTTY === true ? safeForTerminal(answer) : answer;
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return;
  }
  if (args.json === true) {
    process.stdout.write(`${JSON.stringify({ header: loaded.header, entries: loaded.entries }, null, 2)}\n`);
    return;
  }
  const style = createStyle(colorEnabled(process.stdout.isTTY === true));
  process.stdout.write(renderTranscript(loaded, style));
}

/** `ion sessions rm ID`: explicit, so it does not ask. */
export async function removeSession(rawArgs: string[]): Promise<void> {
  const args = parseStrict("sessions rm", rawArgs, rmArgs, 1);
  const store = openStore();
  const id = await resolveId(store, requireId("sessions rm", args.id));
  await store.remove(id);
  process.stdout.write(`removed ${id}\n`);
}

/**
 * `ion sessions export ID [-o FILE]`: Markdown on stdout, or written atomically to FILE — without
 * terminal control sequences either way, since a file is `cat`ed too (`show --json` has the exact text).
 */
export async function exportSession(rawArgs: string[]): Promise<void> {
  const args = parseStrict("sessions export", rawArgs, exportArgs, 1);
  const loaded = await loadSession(openStore(), requireId("sessions export", args.id));
  const markdown = safeForTerminal(renderMarkdown(loaded));
  if (typeof args.output !== "string") {
    process.stdout.write(markdown);
    return;
  }
  if (args.output === "")
    throw new IonError("usage", "-o needs a file name", { hint: "or leave it out for stdout" });
  const file = resolve(args.output);
  if (await isDirectory(file))
    throw new IonError("usage", `cannot export to ${file}: it is a directory`, {
      hint: `name a file, e.g. -o ${join(args.output, `${loaded.header.id}.md`)}`,
    });
  await writeAtomically(file, markdown);
  process.stderr.write(`exported ${loaded.header.id} to ${file}\n`);
}

/** A temp file beside the target, then rename: a reader never sees half a file. */
async function writeAtomically(file: string, text: string): Promise<void> {
  try {
    await writeFileAtomic(file, text);
  } catch (err) {
    const reason = errnoOf(err) === "ENOENT" ? "no such directory" : systemMessage(err);
    throw new IonError("io", `could not write ${file}: ${reason}`, { cause: err });
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (err) {
    // Missing (or under a file): not a directory; writing there reports the real problem.
    if (errnoOf(err) === "ENOENT" || errnoOf(err) === "ENOTDIR") return false;
    throw err;
  }
}

/** How much of a tool result `show` prints; `--json` and `export` have it all. */
const RESULT_LINES = 12;
const RESULT_CHARS = 1200;

/**
 * The readable transcript: every entry in file order, compacted-away messages marked as such. Each
 * rule names its entry's number (`user #0`, `run end #2`), the numbers `sessions search` and a
 * compaction's range refer to, so none seems skipped. What
 * the session holds was written by a model and tools: it is made safe for the terminal before styling.
 */
export function renderTranscript(raw: Transcript, style: Style): string {
  const t = safeForTerminalDeep(raw);
  const { header, entries } = t;
  const totals = transcriptTotals(t);
  const names = toolNames(entries);
  const kept = firstKept(entries);
  const superseded = supersededChildSaves(entries);
  const rule = (text: string) => style.cyan(`── ${text} ──`);
  const out: string[] = [
    header.title.trim() || "(untitled session)",
    style.dim(`session ${header.id}`),
    style.dim(`created ${header.created_at} · updated ${totals.updated_at}`),
    style.dim(`cwd ${header.cwd} · model ${header.provider}/${header.model}`),
    style.dim(
      `${counted(totals.messages, "message")} · ${count(totals.input_tokens)} in / ${count(totals.output_tokens)} out tokens`,
    ),
  ];
  for (const entry of entries) {
    out.push("");
    const final = superseded.get(entry.n);
    if (final !== undefined) {
      // An earlier save of a child's conversation: the last one (below) holds all of it.
      out.push(style.dim(`── subagent step saved #${entry.n} (its conversation is at #${final}) ──`));
      continue;
    }
    switch (entry.type) {
      case "message": {
        const away = entry.n < kept ? " · compacted away" : "";
        const results = entry.message.content.every((b) => b.type === "tool_result");
        const who = results ? "tool results" : entry.message.role;
        out.push(rule(`${who} #${entry.n} · ${entry.at}${away}`));
        out.push(...messageLines(entry, names, style));
        break;
      }
      case "context_message": {
        // Put into the conversation by ion or an extension: never shown as the user's prompt.
        const away = entry.n < kept ? " · compacted away" : "";
        out.push(rule(`context from ${entry.source} #${entry.n} · ${entry.at}${away}`));
        out.push(...messageLines(entry, names, style));
        break;
      }
      case "extension_state": {
        const child = childTranscript(entry);
        if (!child) {
          out.push(rule(extensionStateLine(entry, entry.n)));
          // The plan as the chat shows it; other extensions' data is in --json.
          const plan = entry.extension === PLAN_EXTENSION ? planFromData(entry.data) : undefined;
          if (plan) out.push(...(plan.length === 0 ? ["(plan cleared)"] : planChecklist(plan)));
          break;
        }
        out.push(
          rule(
            `subagent ${child.type} #${entry.n} for tool call ${entry.parent_tool_use_id}: ${child.description}`,
          ),
        );
        const childNames = childToolNames(child, names);
        for (const message of child.messages) {
          const results = message.content.every((b) => b.type === "tool_result");
          out.push(style.dim(`  ${results ? "tool results" : message.role}:`));
          out.push(...messageLines({ message }, childNames, style).map((line) => `    ${line}`));
        }
        break;
      }
      case "compaction":
        out.push(rule(compactionLine(entry, entry.n)));
        out.push(...indent(entry.summary).map(style.dim));
        break;
      case "model_change":
        out.push(rule(`model change #${entry.n}: ${entry.provider}/${entry.model}`));
        break;
      case "run_end":
        out.push(rule(runEndLine(entry, entry.n)));
        break;
    }
  }
  return `${out.join("\n")}\n`;
}

function messageLines(
  entry: { message: MessageEntry["message"] | ContextMessageEntry["message"] },
  names: Map<string, string>,
  style: Style,
): string[] {
  const out: string[] = [];
  for (const block of entry.message.content) {
    switch (block.type) {
      case "text":
        out.push(block.text);
        break;
      case "image":
        out.push(style.dim(imageLabel(block)));
        break;
      case "thinking":
        out.push(style.dim("thinking:"), ...block.thinking.split("\n").map((l) => style.dim(`  ┊ ${l}`)));
        break;
      case "tool_use": {
        const command = shellCommand(block.name, block.input);
        if (command) {
          const [first, ...more] = command.text.split("\n");
          const rest = command.rest ? ` ${JSON.stringify(command.rest)}` : "";
          out.push(`${style.cyan("●")} ${block.name} ${first}${rest}`, ...indent(more.join("\n")));
          break;
        }
        const compact = JSON.stringify(block.input);
        const input =
          compact.length <= 160 ? [compact] : truncated(JSON.stringify(block.input, null, 2), style);
        out.push(`${style.cyan("●")} ${block.name} ${input[0]}`, ...indent(input.slice(1).join("\n")));
        break;
      }
      case "tool_result": {
        const name = names.get(block.tool_use_id) ?? block.tool_use_id;
        const mark = block.is_error ? style.red("✗ error from") : style.green("✓ result of");
        const bash = bashResult(name, block.content);
        if (bash) {
          out.push(`${mark} ${name} · ${exitText(bash)}`, ...bashLines(bash, style));
          break;
        }
        out.push(`${mark} ${name}`, ...indent(truncated(block.content, style).join("\n")));
        break;
      }
    }
  }
  return out;
}

/**
 * A bash result as the output it was: stdout, then stderr under its own label, then the note (a
 * timeout). The parts were JSON-escaped in the saved text, so they are made safe here, once unescaped.
 */
function bashLines(result: BashResult, style: Style): string[] {
  const stdout = safeForTerminal(result.stdout);
  const stderr = safeForTerminal(result.stderr);
  const out: string[] = [];
  if (stdout === "" && stderr === "") out.push(`    ${style.dim("(no output)")}`);
  if (stdout !== "") {
    if (stderr !== "") out.push(`    ${style.dim("stdout:")}`);
    out.push(...indent(truncated(stdout.replace(/\n$/, ""), style).join("\n")));
  }
  if (stderr !== "")
    out.push(
      `    ${style.dim("stderr:")}`,
      ...indent(truncated(stderr.replace(/\n$/, ""), style).join("\n")),
    );
  if (result.note) out.push(`    ${style.dim(`note: ${safeForTerminal(result.note)}`)}`);
  return out;
}

/** The first lines of `text`, with a note saying how much was left out. */
function truncated(text: string, style: Style): string[] {
  const lines = text.split("\n");
  let shown = lines.slice(0, RESULT_LINES);
  let clipped = shown.join("\n");
  if (clipped.length > RESULT_CHARS) {
    clipped = clipped.slice(0, RESULT_CHARS);
    shown = clipped.split("\n");
  }
  const hiddenChars = text.length - clipped.length;
  if (hiddenChars <= 0) return lines;
  const hiddenLines = lines.length - shown.length;
  const what = hiddenLines > 0 ? `${hiddenLines} more lines` : `${hiddenChars} more characters`;
  return [...shown, style.dim(`… ${what} (--json or \`ion sessions export\` show it all)`)];
}

function indent(text: string): string[] {
  return text === "" ? [] : text.split("\n").map((line) => `    ${line}`);
}
