import { defineCommand } from "citty";

/** Flag definitions only: `ion run --help` must not load the agent, the config or any SDK. */
export const runArgs = {
  prompt: { type: "positional", required: false, description: 'The prompt; "-" or none reads it from stdin' },
  model: {
    type: "string",
    alias: "m",
    valueHint: "provider/model",
    description: "Model as provider/model, e.g. anthropic/claude-sonnet-4-5",
  },
  "output-format": {
    type: "string",
    alias: "o",
    valueHint: "format",
    description: "text | json | stream-json",
    default: "text",
  },
  "input-format": {
    type: "string",
    valueHint: "format",
    description:
      "text | stream-json (user messages as JSON lines on stdin, one turn each; needs -o stream-json)",
  },
  quiet: { type: "boolean", alias: "q", description: "No progress on stderr" },
  yes: {
    type: "boolean",
    alias: ["y", "dangerously-skip-permissions"] as string[],
    description: "Run write and execute tools without asking (permission mode auto)",
  },
  "trust-project": {
    type: "boolean",
    description:
      "Trust this project for this run: its .mcp.json, hooks, MCP servers and base URLs load (-y does not; or ION_TRUST_PROJECT=1)",
  },
  "permission-mode": {
    type: "string",
    valueHint: "mode",
    description: "read | ask | auto, or Claude Code's plan | default | acceptEdits | bypassPermissions",
  },
  tools: { type: "boolean", default: true, negativeDescription: "Send no tools to the model" },
  continue: { type: "boolean", alias: "c", description: "Continue the latest session of this directory" },
  resume: {
    type: "string",
    alias: "r",
    valueHint: "id",
    description: "Continue the session with this id (or unique prefix)",
  },
  session: { type: "boolean", default: true, negativeDescription: "Save nothing: no session file" },
  verbose: {
    type: "boolean",
    alias: "v",
    description: "Thinking, tool results, usage and SDK logs on stderr",
  },
  file: {
    type: "string",
    alias: "f",
    valueHint: "path",
    description: "Attach a file as context (repeatable)",
  },
  cwd: { type: "string", valueHint: "dir", description: "Run in this directory (the workspace root)" },
  thinking: { type: "string", valueHint: "level", description: "Thinking level: off | low | medium | high" },
  system: {
    type: "string",
    alias: "system-prompt",
    valueHint: "text",
    description: "Replace the configured preamble with this text",
  },
  "append-system-prompt": {
    type: "string",
    valueHint: "text",
    description: "Add this text after the preamble",
  },
  skill: {
    type: "string",
    valueHint: "name",
    description: "Activate a skill: its instructions go into the system prompt",
  },
  partial: {
    type: "boolean",
    alias: "include-partial-messages",
    description: "stream-json: also emit the raw stream events (text, thinking and tool-call deltas)",
  },
  "max-turns": {
    type: "string",
    valueHint: "n",
    description: "Stop after this many model requests (default 50)",
  },
  "max-budget-usd": {
    type: "string",
    valueHint: "usd",
    description: "Stop once the run has cost more than this many US dollars (needs known prices)",
  },
  "json-schema": {
    type: "string",
    valueHint: "schema|@file",
    description: "The final answer must be JSON valid against this JSON Schema (structured_output)",
  },
  "fallback-model": {
    type: "string",
    valueHint: "provider/model",
    description: "Continue on this model if the model is overloaded or not found",
  },
  "output-last-message": {
    type: "string",
    valueHint: "file",
    description: "Also write the final answer to this file (whatever -o is)",
  },
  // Claude Code's --allowedTools / --disallowedTools spellings are accepted too (see checkFlags).
  "allowed-tools": {
    type: "string",
    valueHint: "tools",
    description: 'Tools that run without asking, e.g. "Bash Edit", "Bash(git log:*)" (also --allowedTools)',
  },
  "disallowed-tools": {
    type: "string",
    valueHint: "tools",
    description: 'Tools not offered to the model, e.g. "Bash,Write" (also --disallowedTools)',
  },
  "add-dir": {
    type: "string",
    valueHint: "dir",
    description: "Let the file tools reach this directory too (repeatable)",
  },
  sandbox: {
    type: "string",
    valueHint: "mode",
    description: "Where bash commands run: workspace-write | read-only | off (overrides sandbox.mode)",
  },
} as const;

export default defineCommand({
  meta: { name: "run", description: "Run one agent job and print its answer (for scripts and pipes)" },
  args: runArgs,
  async run({ rawArgs, args }) {
    const { executeRun } = await import("./run-exec.ts");
    await executeRun(rawArgs, args);
  },
});
