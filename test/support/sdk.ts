/**
 * Claude Agent SDK programs against ion in e2e tests: the SDK's options for a run of ion (the binary
 * named by ION_BIN, or `bun src/main.ts`) in a sandbox, and the messages a query yields.
 */
import type { Options, SDKMessage, SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import { ionCommand, type Sandbox } from "./cli.ts";

const [bin, ...binArgs] = ionCommand();

/** The SDK's options for a run of ion in `box` with `env` (the fake server's), model openai/gpt-4o. */
export function sdkOptions(box: Sandbox, env: Record<string, string>, more: Partial<Options> = {}): Options {
  return {
    pathToClaudeCodeExecutable: bin,
    // Under `bun src/main.ts` (no ION_BIN) the SDK must start bun with the script, as it would node.
    ...(binArgs.length > 0 ? { executable: "bun", pathToClaudeCodeExecutable: binArgs[0] } : {}),
    cwd: box.workspace,
    env: box.env(env),
    model: "openai/gpt-4o",
    ...more,
  } as Options;
}

export async function all(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const seen: SDKMessage[] = [];
  for await (const message of messages) seen.push(message);
  return seen;
}

export function results(messages: SDKMessage[]): SDKResultMessage[] {
  return messages.filter((m): m is SDKResultMessage => m.type === "result");
}
