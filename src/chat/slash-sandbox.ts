import { IonError } from "../errors.ts";
import { SANDBOX_MODES, type SandboxMode } from "../sandbox/types.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import type { ChatContext } from "./context.ts";
import type { SlashCommand } from "./registry.ts";

/** The changes that loosen the sandbox: a person at the terminal may make them, piped input may not. */
function loosens(args: string): boolean {
  return args === "off" || args === "workspace-write" || args === "network on";
}

/**
 * `/sandbox`: where this chat's bash commands run; `/sandbox MODE` changes the mode and
 * `/sandbox network on|off` the network for the rest of the chat (config `sandbox.*` sets the default).
 */
export const sandboxCommand: SlashCommand<ChatContext> = {
  name: "sandbox",
  args: "[workspace-write|read-only|off|network on|network off]",
  summary: "where bash commands run; change the mode or the network for this chat",
  complete: () => [...SANDBOX_MODES, "network on", "network off"],
  refuseWhenPiped: (args) =>
    loosens(args)
      ? "piped input cannot loosen the sandbox (type it, or set sandbox.* in the config)"
      : undefined,
  async run(args, context) {
    const { describeSandbox } = await import("../sandbox/command-sandbox.ts");
    const sandbox = context.session.sandbox;
    const show = (prefix: string) =>
      context.print(`${prefix}${safeForTerminal(describeSandbox(sandbox.current))}`);
    if (args === "") {
      show("sandbox: ");
      return;
    }
    if (args === "network on" || args === "network off") {
      sandbox.setNetwork(args === "network on");
      show("for this chat: ");
      return;
    }
    if (!(SANDBOX_MODES as readonly string[]).includes(args))
      throw new IonError(
        "usage",
        `/sandbox takes ${SANDBOX_MODES.join(", ")} or network on|off; got "${args}"`,
      );
    sandbox.setMode(args as SandboxMode);
    show("for this chat: ");
  },
};
