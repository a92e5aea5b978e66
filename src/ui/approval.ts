import { type ApprovalDecision, type ApproveFn, mainArgument } from "../tools/types.ts";

/** Where an approval question is asked: the terminal in `run` and `chat`, a script in tests. */
export interface ApprovalPrompt {
  /** Asks one question and resolves with the answer line ("" for Ctrl+D or a closed input). */
  ask(question: string): Promise<string>;
  /** Called before asking, so a spinner or partial line can get out of the way. */
  beforeAsk?: () => void | Promise<void>;
  /** Shows what the call would do (the command, or the diff of an edit) before the question. */
  show?: (preview: string) => void;
}

/** A one-line summary of what a call would do, for the approval question. */
export function describeCall(name: string, input: Record<string, unknown>): string {
  const main = mainArgument(input);
  const text = typeof main === "string" ? main : JSON.stringify(input);
  const line = text.replace(/\s+/g, " ").trim();
  return `${name}: ${line.length > 120 ? `${line.slice(0, 119)}…` : line}`;
}

/**
 * Approval for mode `ask`: yes, no, or always (this tool, for the rest of the session). Without a
 * prompt every call is denied at once — a headless run never waits on a question. `preview` may
 * render the call in full (a multi-line command, an edit's diff) before the one-line question.
 */
export function createApprover(
  prompt: ApprovalPrompt | undefined,
  preview?: (name: string, input: Record<string, unknown>) => Promise<string | undefined>,
): ApproveFn {
  const always = new Set<string>();
  return async (call): Promise<ApprovalDecision> => {
    if (!prompt) return "deny";
    if (always.has(call.name)) return "allow";
    await prompt.beforeAsk?.();
    const shown = preview ? await preview(call.name, call.input) : undefined;
    if (shown && prompt.show) prompt.show(shown);
    for (;;) {
      const answer = (
        await prompt.ask(`Allow ${describeCall(call.name, call.input)}? [y]es / [n]o / [a]lways `)
      )
        .trim()
        .toLowerCase();
      if (answer === "y" || answer === "yes") return "allow";
      if (answer === "n" || answer === "no" || answer === "") return "deny";
      if (answer === "a" || answer === "always") {
        always.add(call.name);
        return "allow";
      }
    }
  };
}
