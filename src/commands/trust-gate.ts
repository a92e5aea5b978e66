import { lstatSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ProjectTrust } from "../agent/session-options.ts";
import { IonError } from "../errors.ts";
import type { ApprovalPrompt } from "../ui/approval.ts";
import { findGitRoot } from "../util/git.ts";

/**
 * The project trust gate as `ion run` and `ion chat` use it (the decision itself is config/trust.ts):
 * asks on the terminal through the run's prompt, prints the gate's warnings (the trust store's, and the
 * project files' it could not use) and its one skipped line, and turns a Ctrl+C at the question into an
 * interrupted run.
 */
export async function runTrustGate(options: {
  cwd: string;
  /** `--trust-project`. */
  flag: boolean;
  /** The run's terminal prompt, when stdin and stderr are terminals. */
  prompt?: ApprovalPrompt | undefined;
  /** No prompt yet, but stdin and stderr are terminals: the gate opens one only to ask, then closes it. */
  terminal?: boolean;
  /** Aborted by Ctrl+C (or another signal) while the question waits. */
  signal?: AbortSignal;
  /** One line to the user (`warning: …`). */
  notice: (line: string) => void;
}): Promise<ProjectTrust | undefined> {
  if (!mayNeedTrust(options.cwd)) return undefined;
  const { decideTrust } = await import("../config/trust.ts");
  const decision = await decideTrust({
    cwd: options.cwd,
    env: process.env,
    flag: options.flag,
    interactive: options.prompt !== undefined || options.terminal === true,
    ask: (listing, question) => ask(options.prompt, listing, question),
  });
  if (options.signal?.aborted) throw new IonError("interrupted", "interrupted");
  // A project file refused or not JSON (`.mcp.json`, `.claude/settings.json`): nothing in it runs, trusted or not.
  for (const line of [...decision.warnings, ...decision.project.warnings]) options.notice(`warning: ${line}`);
  if (decision.skippedLine !== undefined) options.notice(`warning: ${decision.skippedLine}`);
  return { trusted: decision.trusted, project: decision.project };
}

/**
 * Whether the project may hold something that needs trust: a `.ion/config.json` in `cwd`, a
 * `.mcp.json` in `cwd` or above (the project's root may be any of them), or a `.claude/settings.json`
 * at the project's root. A few lstat calls, and this module is part of the run's own code: a run
 * outside such a project loads nothing more.
 */
function mayNeedTrust(cwd: string): boolean {
  const exists = (path: string) => lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  if (exists(join(cwd, ".ion", "config.json"))) return true;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (exists(join(dir, ".mcp.json"))) return true;
    if (dirname(dir) === dir) break;
  }
  // At the root only, as trust-project.ts reads it: any directory above would find the user's own
  // ~/.claude/settings.json, which is Claude Code's, not a project's.
  const root = findGitRoot(resolve(cwd))?.root ?? resolve(cwd);
  return exists(join(root, ".claude", "settings.json"));
}

async function ask(given: ApprovalPrompt | undefined, listing: string, question: string): Promise<string> {
  if (given) {
    await given.beforeAsk?.();
    given.show?.(listing);
    return given.ask(given.show ? question : `${listing}\n${question}`);
  }
  // A prompt of the gate's own (the chat's line input does not exist yet). Its reader hands Ctrl+C to
  // the process's SIGINT listeners: with this one there, Ctrl+C ends the chat as interrupted (exit 2).
  const prompt = (await import("../ui/ask.ts")).terminalPrompt();
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
  };
  process.on("SIGINT", onInterrupt);
  try {
    prompt.show?.(listing);
    const answer = await prompt.ask(question);
    if (interrupted) throw new IonError("interrupted", "interrupted");
    return answer;
  } finally {
    process.off("SIGINT", onInterrupt);
    prompt.close();
  }
}
