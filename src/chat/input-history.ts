import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The chat's input history: one message per entry, newest first, as readline navigates it. A message
 * of several lines (a trailing `\`, a paste) is one entry with its line breaks, so ↑ brings it back as
 * the message it was. The file holds a JSON string per line — the format it always had, so older files
 * read the same (their multi-line messages now come back whole too).
 */

export const HISTORY_SIZE = 1000;

/** The newest entries first; unreadable lines are skipped. */
export function loadHistory(file: string | undefined): string[] {
  if (!file) return [];
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return []; // no history yet
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "string" && value.trim() !== "") entries.push(value);
    } catch {
      // a torn last line from a killed process: skip it
    }
  }
  return dedupe(entries.reverse()).slice(0, HISTORY_SIZE);
}

/** Puts `message` first in `history` (in place: readline navigates that array), once, within the size. */
export function recordInHistory(history: string[], message: string): void {
  if (message.trim() === "") return;
  const at = history.indexOf(message);
  if (at !== -1) history.splice(at, 1);
  history.unshift(message);
  if (history.length > HISTORY_SIZE) history.length = HISTORY_SIZE;
}

/** Appends a sent message to the history file (created private). */
export function appendHistory(file: string, message: string): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(message)}\n`, { mode: 0o600 });
}

function dedupe(entries: string[]): string[] {
  return [...new Set(entries)];
}
