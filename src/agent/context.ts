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

export function environmentFacts(cwd: string, env: Record<string, string | undefined> = process.env) {
  return {
    cwd,
    date: new Date().toISOString().slice(0, 10),
    os: `${process.platform} ${process.arch}`,
    shell: env.SHELL ?? (process.platform === "win32" ? "cmd.exe" : "sh"),
  };
}
