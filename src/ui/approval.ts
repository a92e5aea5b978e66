import { type ApprovalDecision, type ApproveFn, mainArgument } from "../tools/types.ts";
import { escapeControls } from "../util/terminal-text.ts";

/** Where an approval question is asked: the terminal in `run` and `chat`, a script in tests. */
export interface ApprovalPrompt {
  /** Asks one question and resolves with the answer line ("" for Ctrl+D or a closed input). */
  ask(question: string): Promise<string>;
  /** Called before asking, so a spinner or partial line can get out of the way. */
  beforeAsk?: () => void | Promise<void>;
  /** Shows what the call would do (a multi-line command, the diff of an edit) before the question. */
  show?: (preview: string) => void;
}

/**
 * The question for a call, with what the call would do exactly: its main argument (the command, the
 * path) or else its whole input, never cut (an MCP tool's whole input always, one key a line, where
 * only a string past SHOWN_STRING characters is cut, with a count), with control characters written
 * out (`\x1b`, `\r`) so that nothing in it can rewrite or hide the question. Long lines are left to
 * the terminal to wrap; several lines (a multi-line command) are shown whole before the question,
 * which points to them.
 */
export function approvalQuestion(
  name: string,
  input: Record<string, unknown>,
  show?: (preview: string) => void,
  outsideSandbox = false,
): string {
  // An MCP tool's input means what its server makes of it: a path alone would hide the content
  // written to it, so its whole input is shown, one key a line.
  const mcp = name.startsWith("mcp__");
  const main = mcp ? undefined : mainArgument(input);
  const domain = approvalDomain(name, input);
  const tool =
    escapeControls(domain ? `${name} (domain ${domain})` : name).replaceAll("\n", "\\n") +
    (outsideSandbox ? " OUTSIDE the sandbox" : "");
  const what = escapeControls(
    typeof main === "string"
      ? main
      : mcp
        ? JSON.stringify(cutLongStrings(input), null, 2)
        : JSON.stringify(input),
  );
  // Leaving the sandbox is asked about every time: no "always".
  const choices = outsideSandbox
    ? "? [y]es / [n]o "
    : domain
      ? `? [y]es / [n]o / [a]lways for ${escapeControls(domain)} `
      : "? [y]es / [n]o / [a]lways ";
  const lines = what.split("\n").length;
  if (lines === 1) return `Allow ${tool}: ${what}${choices}`;
  if (!show) return `Allow ${tool}: ${what.replaceAll("\n", "\\n")}${choices}`;
  show(what);
  return `Allow ${tool} (the ${lines} lines above)${choices}`;
}

/** The longest string value of an MCP tool's input shown whole; past it, the rest is counted. */
const SHOWN_STRING = 2000;

/** `input` with each string past SHOWN_STRING characters cut there, saying how many were left out. */
function cutLongStrings(value: unknown): unknown {
  if (typeof value === "string")
    return value.length <= SHOWN_STRING
      ? value
      : `${value.slice(0, SHOWN_STRING)}… (${value.length - SHOWN_STRING} more characters not shown)`;
  if (Array.isArray(value)) return value.map(cutLongStrings);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutLongStrings(item)]));
  return value;
}

/** Tools approved per domain rather than per tool: their URL's host. */
const DOMAIN_TOOLS: readonly string[] = ["web_fetch"];

/** The domain a call of a per-domain tool reaches; undefined for other tools or an unparsable URL. */
function approvalDomain(name: string, input: Record<string, unknown>): string | undefined {
  if (!DOMAIN_TOOLS.includes(name) || typeof input.url !== "string") return undefined;
  try {
    return new URL(input.url).hostname || undefined;
  } catch {
    return undefined;
  }
}

/** What an "always" answer covers: the tool, or for web_fetch the tool on that domain. */
function alwaysScope(call: { name: string; input: Record<string, unknown> }): string {
  const domain = approvalDomain(call.name, call.input);
  return domain ? `${call.name}@${domain}` : call.name;
}

/**
 * Approval for mode `ask`: yes, no, or always (this tool — for web_fetch this domain — for the rest
 * of the session). Without a prompt every call is denied at once — a headless run never waits on a question. `preview` may
 * render more of the call (an edit's diff) before the question.
 */
export function createApprover(
  prompt: ApprovalPrompt | undefined,
  preview?: (name: string, input: Record<string, unknown>) => Promise<string | undefined>,
): ApproveFn {
  const always = new Set<string>();
  return async (call): Promise<ApprovalDecision> => {
    if (!prompt) return "deny";
    const outside = call.outsideSandbox === true;
    if (!outside && always.has(alwaysScope(call))) return "allow";
    await prompt.beforeAsk?.();
    const shown = preview ? await preview(call.name, call.input) : undefined;
    if (shown && prompt.show) prompt.show(shown);
    const text = approvalQuestion(call.name, call.input, prompt.show, outside);
    for (;;) {
      const answer = (await prompt.ask(text)).trim().toLowerCase();
      if (answer === "y" || answer === "yes") return "allow";
      if (answer === "n" || answer === "no" || answer === "") return "deny";
      if (!outside && (answer === "a" || answer === "always")) {
        always.add(alwaysScope(call));
        return "allow";
      }
    }
  };
}
