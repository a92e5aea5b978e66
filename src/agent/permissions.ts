import { type AgentTool, type ApprovalDecision, type ApproveFn, mainArgument } from "../tools/types.ts";

/**
 * Permission modes: `read` offers only read-only tools; `ask` (the default) runs read-only tools freely
 * and asks before anything that writes or executes; `auto` (-y) runs everything.
 */
export type PermissionMode = "read" | "ask" | "auto";
export const PERMISSION_MODES: readonly PermissionMode[] = ["read", "ask", "auto"];

export function permissionMode(yes: boolean, configured: PermissionMode | undefined): PermissionMode {
  return yes ? "auto" : (configured ?? "ask");
}

/** The tools offered to the model: minus disabled ones, and only read-only ones in mode `read`. */
export function offeredTools(all: AgentTool[], mode: PermissionMode, disabled: string[] = []): AgentTool[] {
  return all.filter((tool) => !disabled.includes(tool.spec.name) && (mode !== "read" || tool.readOnly));
}

export interface ApprovalPrompt {
  /** Asks one question on the terminal and resolves with the answer line. */
  ask(question: string): Promise<string>;
  /** Called before asking, so a spinner or partial line can get out of the way. */
  beforeAsk?: () => void;
}

/** A one-line summary of what a call would do, for the approval question. */
function describeCall(name: string, input: Record<string, unknown>): string {
  const main = mainArgument(input);
  const text = typeof main === "string" ? main : JSON.stringify(input);
  const line = text.replace(/\s+/g, " ").trim();
  return `${name}: ${line.length > 120 ? `${line.slice(0, 119)}…` : line}`;
}

/**
 * Approval for mode `ask`. Without a terminal to ask on, every call is denied at once — a headless
 * run never waits on a prompt; with one, the user answers yes, no, or always (for this run, per tool).
 */
export function createApprover(prompt: ApprovalPrompt | undefined): ApproveFn {
  const always = new Set<string>();
  return async (call): Promise<ApprovalDecision> => {
    if (!prompt) return "deny";
    if (always.has(call.name)) return "allow";
    prompt.beforeAsk?.();
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
