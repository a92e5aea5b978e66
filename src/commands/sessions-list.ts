import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { homeDirIfKnown } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { costText, knownCost } from "../history/cost.ts";
import type { SessionSummary } from "../history/store.ts";
import { type Column, renderTable, truncate } from "../ui/table.ts";
import { formatTokens } from "../util/numbers.ts";
import { parseStrict } from "./_shared.ts";
import { listArgs } from "./sessions.ts";
import { openStore } from "./sessions-common.ts";

/** The fields of one `ion sessions list --json` element. */
export interface SessionListItem {
  id: string;
  updated_at: string;
  created_at: string;
  cwd: string;
  title: string;
  provider: string;
  model: string;
  messages: number;
  input_tokens: number;
  output_tokens: number;
  /** Summed over the session's runs; null when any run's price was unknown. */
  cost_usd: number | null;
}

/**
 * `ion sessions list [--json] [--all | --cwd DIR]`. Ids are shown as the shortest prefix that is
 * unique among ALL sessions and at least 13 characters long: that covers a UUIDv7's whole millisecond
 * timestamp, so a shown prefix stays unique as new sessions are made.
 */
export async function listSessions(rawArgs: string[]): Promise<void> {
  const args = parseStrict("sessions list", rawArgs, listArgs, 0);
  const { dir, dirs } = await scopeOf("sessions list", { all: args.all, cwd: args.cwd });
  let skipped = 0;
  const all = await openStore().list({
    onWarning: (line) => {
      skipped++;
      process.stderr.write(`ion: warning: ${line}\n`);
    },
  });
  const shown = args.all === true ? all : all.filter((s) => dirs.has(s.cwd));

  if (args.json === true) {
    process.stdout.write(`${JSON.stringify(shown.map(toItem), null, 2)}\n`);
    if (shown.length === 0) process.stderr.write(`${emptyLine(args.all === true, dir, skipped)}\n`);
    return;
  }
  if (shown.length === 0) {
    process.stderr.write(`${emptyLine(args.all === true, dir, skipped)}\n`);
    return;
  }
  const ids = shortIds(all.map((s) => s.id));
  process.stdout.write(table(shown, ids, args.all === true, Date.now()));
}

/** The directory a list or search is about (--cwd, else the current one) and the names its sessions may give it. */
export async function scopeOf(
  command: string,
  args: { all?: unknown; cwd?: unknown },
): Promise<{ dir: string; dirs: Set<string> }> {
  if (args.all === true && typeof args.cwd === "string")
    throw new IonError("usage", "--all and --cwd cannot be used together", {
      hint: `see \`ion ${command} --help\``,
    });
  const dir = resolve(typeof args.cwd === "string" ? args.cwd : process.cwd());
  return { dir, dirs: await sameDirs(dir) };
}

function emptyLine(all: boolean, dir: string, skipped: number): string {
  // "yet" would be wrong when files are there but could not be read (each was named above).
  if (skipped > 0) return `no readable sessions${all ? "" : ` in ${displayPath(dir)}`} (${skipped} skipped)`;
  if (all) return "no saved sessions yet";
  return `no sessions in ${displayPath(dir)} yet (\`ion sessions list --all\` lists every directory)`;
}

/** A directory as given and as resolved through symlinks: a header may hold either. */
async function sameDirs(dir: string): Promise<Set<string>> {
  const dirs = new Set([dir]);
  try {
    dirs.add(await realpath(dir));
  } catch (err) {
    // A directory that no longer exists can still have sessions; anything else is a real failure.
    if (!(err instanceof Error && "code" in err && err.code === "ENOENT")) throw err;
  }
  return dirs;
}

export function toItem(s: SessionSummary): SessionListItem {
  return {
    id: s.id,
    updated_at: s.updated_at,
    created_at: s.header.created_at,
    cwd: s.cwd,
    title: s.title,
    provider: s.header.provider,
    model: s.header.model,
    messages: s.messages,
    input_tokens: s.tokens.input,
    output_tokens: s.tokens.output,
    cost_usd: knownCost(s.cost),
  };
}

/** id → the shortest prefix unique among `ids`, at least `min` characters, never ending in "-". */
export function shortIds(ids: readonly string[], min = 13): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const common = (a: string | undefined, b: string) => {
    if (a === undefined) return 0;
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  const out = new Map<string, string>();
  sorted.forEach((id, i) => {
    let length = Math.max(min, common(sorted[i - 1], id) + 1, common(sorted[i + 1], id) + 1);
    if (id[length - 1] === "-") length++;
    out.set(id, id.slice(0, length));
  });
  return out;
}

/** "just now", "5m ago", "3h ago", "2d ago", "3w ago", then the date. */
export function relativeTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return "just now";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  const days = Math.floor(hours / 24);
  if (days < 14) return `${days}d ago`;
  if (days < 60) return `${Math.floor(days / 7)}w ago`;
  return new Date(then).toISOString().slice(0, 10);
}

export function displayPath(path: string): string {
  const home = homeDirIfKnown();
  const shown = home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
  return clip(shown, 40, "start");
}

function clip(text: string, width: number, side: "start" | "end" = "end"): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= width) return line;
  return side === "end" ? `${line.slice(0, width - 1)}…` : `…${line.slice(line.length - width + 1)}`;
}

/** Aligned by display width (ui/table.ts): a CJK title takes two columns a character. */
function table(sessions: SessionSummary[], ids: Map<string, string>, withCwd: boolean, now: number): string {
  const right = { align: "right" } as const;
  const columns: Column[] = [
    { header: "ID" },
    { header: "UPDATED" },
    ...(withCwd ? [{ header: "CWD" }] : []),
    { header: "TITLE" },
    { header: "MESSAGES", ...right },
    { header: "TOKENS", ...right },
    { header: "COST", ...right },
  ];
  const rows = sessions.map((s) => [
    ids.get(s.id) ?? s.id,
    relativeTime(s.updated_at, now),
    ...(withCwd ? [displayPath(s.cwd)] : []),
    truncate(s.title.replace(/\s+/g, " ").trim(), 48) || "(untitled)",
    String(s.messages),
    formatTokens(s.tokens.input + s.tokens.output),
    costText(s.cost),
  ]);
  return renderTable(columns, rows);
}
