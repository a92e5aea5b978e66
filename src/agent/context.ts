import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { Eta } from "eta";
import systemTemplate from "../../templates/system.eta" with { type: "text" };

export interface SystemPromptInput {
  cwd: string;
  /** `preamble` from config, or `--system` which replaces it. */
  preamble: string | undefined;
  tools: string[];
  /** ISO date (day precision) so the prompt stays byte-identical within a day for prompt caching. */
  date: string;
  os: string;
  shell: string;
  gitBranch?: string | undefined;
}

// Plain text out: the prompt is not HTML, so nothing is escaped.
const eta = new Eta({ autoEscape: false, autoTrim: false });

export function renderSystemPrompt(input: SystemPromptInput): string {
  return eta.renderString(systemTemplate, input).trim();
}

/**
 * The current git branch, read from HEAD (no git process): the nearest `.git` upward from cwd, which
 * is a directory or, in worktrees and submodules, a file pointing at one. Undefined when detached or
 * outside a repository.
 */
export function gitBranch(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    let gitDir: string | undefined;
    try {
      if (statSync(dotGit).isDirectory()) gitDir = dotGit;
      else
        gitDir = readFileSync(dotGit, "utf8")
          .match(/^gitdir: (.+)$/m)?.[1]
          ?.trim();
    } catch {
      gitDir = undefined; // no .git here: keep walking up
    }
    if (gitDir) {
      try {
        return readFileSync(join(gitDir.startsWith("/") ? "" : dir, gitDir, "HEAD"), "utf8").match(
          /^ref: refs\/heads\/(.+)$/m,
        )?.[1];
      } catch {
        return undefined; // an unreadable HEAD is not worth failing a run over
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

export function environmentFacts(cwd: string, env: Record<string, string | undefined> = process.env) {
  return {
    cwd,
    gitBranch: gitBranch(cwd),
    date: new Date().toISOString().slice(0, 10),
    os: `${process.platform} ${process.arch}`,
    shell: env.SHELL ?? (process.platform === "win32" ? "cmd.exe" : "sh"),
  };
}
