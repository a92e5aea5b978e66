import { environmentFacts, renderSystemPrompt } from "../agent/context.ts";
import type { AgentEvent } from "../agent/events.ts";
import { runAgent } from "../agent/loop.ts";
import { loadConfig } from "../config/load.ts";
import { resolveModel, resolveProvider, resolveThinking } from "../config/resolve.ts";
import { streamProvider } from "../providers/index.ts";
import type { ThinkingLevel } from "../providers/types.ts";
import { routeConsole, routeProcessWarnings } from "./console.ts";
import { buildUserContent } from "./run-input.ts";

export interface RunSetup {
  sessionId: string;
  cwd: string;
  prompt: string;
  files: string[];
  model: string | undefined;
  thinking: ThinkingLevel | undefined;
  system: string | undefined;
  maxTurns: number;
  verbose: boolean;
}

/** SIGINT/SIGTERM cancel the run; the loop then ends with an interrupted result. */
function cancelOnSignals(controller: AbortController): () => void {
  const cancel = () => controller.abort();
  process.on("SIGINT", cancel);
  process.on("SIGTERM", cancel);
  return () => {
    process.off("SIGINT", cancel);
    process.off("SIGTERM", cancel);
  };
}

/** Resolves configuration and input, then starts the agent. Throws IonError for anything the user must fix. */
export async function startRun(setup: RunSetup): Promise<AsyncIterable<AgentEvent>> {
  const log = setup.verbose ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
  routeConsole(log);
  routeProcessWarnings(log);
  const env = process.env;
  const { config, warnings, sources, keys } = await loadConfig({ cwd: setup.cwd, env });
  for (const warning of warnings) process.stderr.write(`ion: warning: ${warning}\n`);
  const target = resolveModel(config, setup.model, sources);
  const provider = resolveProvider(config, target.providerId, env, keys);
  const thinking = resolveThinking(config, setup.thinking);
  const content = await buildUserContent({
    prompt: setup.prompt,
    files: setup.files,
    cwd: setup.cwd,
    stdinIsTTY: process.stdin.isTTY === true,
    readStdin: () => Bun.stdin.text(),
  });
  const system = renderSystemPrompt({
    ...environmentFacts(setup.cwd, env),
    preamble: setup.system ?? config.preamble,
    tools: [],
  });

  const controller = new AbortController();
  const release = cancelOnSignals(controller);
  const events = runAgent(
    {
      sessionId: setup.sessionId,
      cwd: setup.cwd,
      provider,
      model: target.model,
      system,
      messages: [{ role: "user", content }],
      thinking,
      tools: [],
      permissionMode: "ask",
      maxTurns: setup.maxTurns,
      signal: controller.signal,
    },
    { stream: streamProvider, ...(log ? { log } : {}) },
  );
  return (async function* () {
    try {
      yield* events;
    } finally {
      release();
    }
  })();
}
