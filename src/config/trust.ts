import { relative } from "node:path";
import { IonError } from "../errors.ts";
import type { Env } from "./paths.ts";
import { type ProjectItem, type ProjectRunnables, projectRunnables } from "./trust-project.ts";
import { readTrusted, type TrustRecord, trustFile, trustProject } from "./trust-store.ts";

/**
 * The trust gate of `ion run` and `ion chat`, decided once before the session opens. A project's
 * `.mcp.json`, its hooks and MCP servers, and the settings that would send the user's key elsewhere
 * load only for a trusted project:
 *
 *   nothing of that kind in the project      → untrusted, nothing to say
 *   trusted before, and unchanged since       → trusted
 *   --trust-project or ION_TRUST_PROJECT=1    → trusted for this run only, not remembered: a flag in
 *                                               a script is not the user's word for every later run
 *   a terminal (stdin and stderr)             → asked, showing exactly what would run; yes is
 *                                               remembered, no holds for this run only
 *   otherwise                                 → untrusted, and one line says what was left out and how to trust
 *
 * A change to what a trusted project would run (its hash) counts as untrusted again, and says so.
 * `-y` plays no part: approving tool calls is not trusting a repository's own programs.
 */

export interface TrustOptions {
  cwd: string;
  env: Env;
  /** `--trust-project`. */
  flag: boolean;
  /** stdin and stderr are terminals: the user may be asked. */
  interactive: boolean;
  /** Shows `listing` (several lines), then asks `question`; resolves with the answer line ("" for none). */
  ask?: ((listing: string, question: string) => Promise<string>) | undefined;
}

export interface TrustDecision {
  trusted: boolean;
  /** How it was decided: what the store remembered, the flag, the environment, or the user's answer. */
  by: "stored" | "flag" | "env" | "answer" | "untrusted";
  project: ProjectRunnables;
  /** Untrusted with something to skip, and no question answered: the one line that says so. */
  skippedLine?: string;
  /**
   * An unreadable store, in one line. (A project file that was refused or is not JSON is in
   * `project.warnings`: the gate of a run says those too.)
   */
  warnings: string[];
}

/** `ION_TRUST_PROJECT=1` (also `true`, `yes`); any other value but 0/false/no is said, and trusts nothing. */
function trustFromEnv(env: Env, warnings: string[]): boolean {
  const value = env.ION_TRUST_PROJECT?.trim() ?? "";
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (!/^(|0|false|no)$/i.test(value))
    warnings.push(
      `ION_TRUST_PROJECT=${JSON.stringify(value)} is not 1, true or yes: the project is not trusted by it`,
    );
  return false;
}

export async function decideTrust(options: TrustOptions): Promise<TrustDecision> {
  const project = projectRunnables(options.cwd, options.env);
  const warnings: string[] = [];
  const decision = (trusted: boolean, by: TrustDecision["by"], skippedLine?: string): TrustDecision => ({
    trusted,
    by,
    project,
    warnings,
    ...(skippedLine === undefined ? {} : { skippedLine }),
  });
  if (project.items.length === 0) return decision(false, "untrusted");

  const file = trustFile(options.env);
  let stored: TrustRecord | undefined;
  try {
    stored = (await readTrusted(file))[project.root];
  } catch (err) {
    // An unreadable store trusts nothing; the run goes on, and the line says how to repair it.
    if (!(err instanceof IonError)) throw err;
    warnings.push(
      `${err.message}; no project is trusted until it is repaired${err.hint ? `; ${err.hint}` : ""}`,
    );
  }
  if (stored?.hash === project.hash) return decision(true, "stored");
  if (options.flag) return decision(true, "flag");
  if (trustFromEnv(options.env, warnings)) return decision(true, "env");
  const changed = stored !== undefined;
  if (options.interactive && options.ask) {
    const yes = await askToTrust(project, changed, options.ask);
    // The list was just shown: the line only says what the no means.
    if (!yes) return decision(false, "untrusted", declinedLine(project, options.cwd));
    await trustProject(file, project.root, project.hash);
    return decision(true, "answer");
  }
  return decision(false, "untrusted", skippedLine(project, changed, options.cwd));
}

async function askToTrust(
  project: ProjectRunnables,
  changed: boolean,
  ask: NonNullable<TrustOptions["ask"]>,
): Promise<boolean> {
  const head = changed
    ? `${project.root} changed since you trusted it. Trusted, it would now:`
    : `${project.root} is a project you have not trusted. Trusted, it would:`;
  const listing = [head, ...listingLines(project), "Untrusted, ion skips all of this and goes on."].join(
    "\n",
  );
  // The default (a bare Enter) is no, and the question says so. After an answer that is neither,
  // one line says what to type instead of the whole list again.
  for (let shown = listing; ; shown = "answer y or n (Enter is no)") {
    const answer = (await ask(shown, "Trust this project? [y/N] ")).trim().toLowerCase();
    if (answer === "y" || answer === "yes") return true;
    if (answer === "n" || answer === "no" || answer === "") return false;
  }
}

/** What the project would run or set, one indented line each: `label (file): what`. */
export function listingLines(project: ProjectRunnables): string[] {
  return project.items.map((item) => `  ${item.label} (${relative(project.root, item.file)}): ${item.what}`);
}

/**
 * The one line of an untrusted run: what was skipped, file by file, and the ways to trust.
 * `untrusted project /p: ignored MCP servers "a", "b" in /p/.mcp.json and "hooks" in /p/.ion/config.json; …`
 */
export function skippedLine(project: ProjectRunnables, changed: boolean, cwd: string): string {
  const byFile = new Map<string, ProjectItem[]>();
  for (const item of project.items) byFile.set(item.file, [...(byFile.get(item.file) ?? []), item]);
  const parts = [...byFile].map(([file, items]) => `${names(items)} in ${file}`);
  const head = changed
    ? `project ${project.root} changed since you trusted it: ignored`
    : `untrusted project ${project.root}: ignored`;
  const dir = relative(cwd, project.root) === "" ? "" : ` ${project.root}`;
  return `${head} ${parts.join(" and ")}; to trust it: \`ion config trust${dir}\`, or --trust-project or ION_TRUST_PROJECT=1 for one run`;
}

/** After a no: skipped for this run only. */
function declinedLine(project: ProjectRunnables, cwd: string): string {
  const dir = relative(cwd, project.root) === "" ? "" : ` ${project.root}`;
  return `not trusted: all of the above is skipped for this run, and ion asks again next time (\`ion config trust${dir}\` trusts it for good)`;
}

/** `MCP servers "a", "b"` for `.mcp.json`; the quoted settings (`"hooks", "api_base"`) for a config file. */
function names(items: ProjectItem[]): string {
  const keys = [...new Set(items.map((item) => item.key))];
  const quoted = keys.map((key) => `"${key}"`).join(", ");
  if (items.every((item) => item.kind === "mcp-server" && item.key !== "mcpServers"))
    return `MCP server${keys.length === 1 ? "" : "s"} ${quoted}`;
  return quoted;
}
