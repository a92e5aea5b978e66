import { defineCommand } from "citty";

/** Flag definitions only: `ion chat --help` must not load the agent, the config or any SDK. */
export const chatArgs = {
  model: {
    type: "string",
    alias: "m",
    valueHint: "provider/model",
    description: "Model as provider/model (default: the resumed session's, else the configured one)",
  },
  continue: {
    type: "boolean",
    alias: "c",
    description:
      "Continue the latest session of this directory (the default, made explicit: fails if it is busy)",
  },
  new: { type: "boolean", description: "Start a new session instead of resuming this directory's latest" },
  resume: {
    type: "string",
    alias: "r",
    valueHint: "id",
    description: "Resume the session with this id (or unique prefix)",
  },
  cwd: { type: "string", valueHint: "dir", description: "Chat in this directory (the workspace root)" },
  thinking: { type: "string", valueHint: "level", description: "Thinking level: off | low | medium | high" },
  sandbox: {
    type: "string",
    valueHint: "mode",
    description: "Where bash commands run: workspace-write | read-only | off (overrides sandbox.mode)",
  },
  yes: {
    type: "boolean",
    alias: "y",
    description: "Run write and execute tools without asking (permission mode auto)",
  },
  "trust-project": {
    type: "boolean",
    description:
      "Trust this project for this chat: its .mcp.json, hooks, MCP servers and base URLs load (-y does not; or ION_TRUST_PROJECT=1)",
  },
  session: { type: "boolean", default: true, negativeDescription: "Save nothing: no session file" },
  verbose: { type: "boolean", alias: "v", description: "SDK logs on stderr" },
  quiet: { type: "boolean", alias: "q", description: "Do not show a resumed session's last exchanges" },
} as const;

export default defineCommand({
  meta: { name: "chat", description: "Interactive chat in your terminal (the default command)" },
  args: chatArgs,
  async run({ rawArgs }) {
    const { executeChat } = await import("./chat-exec.ts");
    await executeChat(rawArgs);
  },
});
