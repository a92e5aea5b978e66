import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Env } from "../config/paths.ts";
import { listingLines } from "../config/trust.ts";
import { projectRoot, projectRunnables } from "../config/trust-project.ts";
import {
  readTrusted,
  revokeProject,
  type TrustRecord,
  trustFile,
  trustProject,
} from "../config/trust-store.ts";
import { IonError } from "../errors.ts";
import { renderTable } from "../ui/table.ts";
import { errnoOf } from "../util/error-text.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { parseStrict } from "./_shared.ts";
import { trustArgs } from "./config.ts";

/** One element of `ion config trust --list --json`. */
export interface TrustedProjectItem {
  path: string;
  trusted_at: string;
  /** What the project would run now, against what it ran when trusted; `missing`: the directory is gone. */
  status: "unchanged" | "changed" | "missing";
}

/** `ion config trust [DIR]`, `ion config trust --revoke [DIR]`, `ion config trust --list [--json]`. */
export async function trustCommand(rawArgs: string[]): Promise<void> {
  const args = parseStrict("config trust", rawArgs, trustArgs, 1);
  const env = process.env;
  const given = args._[0];
  if (args.list === true) {
    if (args.revoke === true || given !== undefined)
      throw new IonError("usage", "--list takes no directory and no --revoke", {
        hint: "see `ion config trust --help`",
      });
    await listTrusted(env, args.json === true);
    return;
  }
  if (args.json === true) throw new IonError("usage", "--json goes with --list");
  const dir = directory(given);
  const root = projectRoot(dir);
  const file = trustFile(env);
  if (args.revoke === true) {
    const was = await revokeProject(file, root);
    if (was) process.stdout.write(`no longer trusted: ${safeForTerminal(root)}\n`);
    else process.stderr.write(`${safeForTerminal(root)} was not trusted: nothing to revoke\n`);
    return;
  }
  const project = projectRunnables(dir, env, root);
  for (const line of project.warnings) process.stderr.write(`ion: warning: ${safeForTerminal(line)}\n`);
  await trustProject(file, root, project.hash);
  const shownRoot = safeForTerminal(root);
  if (project.items.length === 0) {
    process.stdout.write(
      `trusted ${shownRoot}: it runs nothing yet; anything it adds later is asked about first\n`,
    );
    return;
  }
  const lines = [
    `trusted ${shownRoot}; in it, ion now loads:`,
    ...listingLines(project),
    "a change to any of these asks again; `ion config trust --revoke` undoes it",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

function directory(given: string | undefined): string {
  const dir = resolve(given ?? process.cwd());
  if (!isDirectory(dir)) throw new IonError("usage", `${given ?? dir}: not a directory`);
  return dir;
}

/** A directory is at `path` (links followed); false when nothing is there. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (err) {
    const code = errnoOf(err);
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw err;
  }
}

function statusOf(path: string, record: TrustRecord, env: Env): TrustedProjectItem["status"] {
  if (!isDirectory(path)) return "missing";
  return projectRunnables(path, env, path).hash === record.hash ? "unchanged" : "changed";
}

async function listTrusted(env: Env, json: boolean): Promise<void> {
  const projects = await readTrusted(trustFile(env));
  const items: TrustedProjectItem[] = Object.entries(projects)
    .map(([path, record]) => ({ path, trusted_at: record.trusted_at, status: statusOf(path, record, env) }))
    .sort((a, b) => a.path.localeCompare(b.path));
  if (json) {
    process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    return;
  }
  if (items.length === 0) {
    process.stderr.write("no trusted projects (`ion config trust [DIR]` trusts one)\n");
    return;
  }
  const columns = [{ header: "Project" }, { header: "Trusted" }, { header: "Now" }];
  const rows = items.map((item) => [item.path, localTime(item.trusted_at), nowText(item.status)]);
  const width = process.stdout.isTTY ? process.stdout.columns : undefined;
  process.stdout.write(renderTable(columns, rows, width === undefined ? {} : { width }));
}

function nowText(status: TrustedProjectItem["status"]): string {
  if (status === "changed") return "changed since: asks again";
  if (status === "missing") return "directory gone";
  return "unchanged";
}

/** `2026-11-30 14:02` in local time; what the store holds when it is not a time. */
function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}
