import { environmentFacts, renderSystemPrompt } from "../agent/context.ts";
import type { AgentEvent } from "../agent/events.ts";
import { runAgent } from "../agent/loop.ts";
import { modelFacts } from "../agent/model-facts.ts";
import { createApprover, offeredTools, permissionMode } from "../agent/permissions.ts";
import { openRunSession, type SessionChoice, sessionTitle } from "../agent/session.ts";
import { loadConfig } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import { resolveModel, resolveProvider, resolveThinking } from "../config/resolve.ts";
import { IonError } from "../errors.ts";
import { streamProvider } from "../providers/index.ts";
import type { ThinkingLevel, UserBlock } from "../providers/types.ts";
import { routeConsole, routeProcessWarnings } from "./console.ts";
import { buildUserContent } from "./run-input.ts";
import { ensureModelConfigured } from "./run-model.ts";

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
  /** -y: run write and execute tools without asking. */
  yes: boolean;
  /** --no-tools: send no tools at all. */
  noTools: boolean;
  /** Lets the renderer clear its spinner before an approval question. */
  suspendOutput: () => void;
  session: SessionChoice;
  /** The first-run flow may ask questions (text output on a terminal). */
  interactive: boolean;
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

/** The prompt itself: the last text block (stdin and -f files are attached before it). */
function promptText(content: UserBlock[]): string {
  const last = content[content.length - 1];
  return last?.type === "text" ? last.text : "";
}

function saveError(err: unknown): IonError {
  if (err instanceof IonError) return err;
  return new IonError(
    "io",
    `could not save the session: ${err instanceof Error ? err.message : String(err)}`,
    {
      cause: err,
    },
  );
}

/** Resolves configuration and input, then starts the agent. Throws IonError for anything the user must fix. */
export async function startRun(setup: RunSetup): Promise<AsyncIterable<AgentEvent>> {
  const log = setup.verbose ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
  routeConsole(log);
  routeProcessWarnings(log);
  const env = process.env;
  let loaded = await loadConfig({ cwd: setup.cwd, env });
  if (setup.model === undefined && !loaded.config.model) {
    // No model anywhere: the setup flow on a terminal (text output only), the exact commands otherwise.
    await ensureModelConfigured({ interactive: setup.interactive, cwd: setup.cwd, env });
    loaded = await loadConfig({ cwd: setup.cwd, env });
  }
  const { config, warnings, sources, keys } = loaded;
  for (const warning of warnings) process.stderr.write(`ion: warning: ${warning}\n`);
  const target = resolveModel(config, setup.model, sources);
  const provider = resolveProvider(config, target.providerId, env, keys);
  const thinking = resolveThinking(config, setup.thinking);
  const facts = await modelFacts(config, provider, target.model, env, setup.model !== undefined);
  const content = await buildUserContent({
    prompt: setup.prompt,
    files: setup.files,
    cwd: setup.cwd,
    stdinIsTTY: process.stdin.isTTY === true,
    readStdin: () => Bun.stdin.text(),
  });
  const mode = permissionMode(setup.yes, config.permissions?.mode);
  const disabled = config.tools?.disabled ?? [];
  const { builtinTools } = await import("../tools/index.ts");
  const builtins = builtinTools();
  for (const name of disabled.filter((n) => !builtins.some((t) => t.spec.name === n))) {
    process.stderr.write(`ion: warning: tools.disabled names an unknown tool "${name}"\n`);
  }
  const tools = setup.noTools ? [] : offeredTools(builtins, mode, disabled);
  const system = renderSystemPrompt({
    ...environmentFacts(setup.cwd, env),
    preamble: setup.system ?? config.preamble,
    tools: tools.map((t) => t.spec.name),
  });

  // Ask only on a terminal: a headless run is denied at once and never waits on a prompt.
  const stdinIsTTY = process.stdin.isTTY === true;
  const prompt =
    mode === "ask" && stdinIsTTY
      ? (await import("../ui/ask.ts")).terminalPrompt(setup.suspendOutput)
      : undefined;
  const session = await openRunSession(setup.session, {
    dataDir: dataDir(env),
    cwd: setup.cwd,
    provider: provider.id,
    model: target.model,
    title: sessionTitle(promptText(content)),
    newId: setup.sessionId,
    retentionDays: config.history?.retention_days ?? 30,
    notice: (line) => process.stderr.write(`ion: ${line}\n`),
  });
  const userMessage = { role: "user" as const, content };
  const { recorder } = session;
  try {
    await recorder?.begin(userMessage);
  } catch (err) {
    await recorder?.close();
    throw saveError(err);
  }

  const controller = new AbortController();
  const release = cancelOnSignals(controller);
  const events = runAgent(
    {
      sessionId: session.id,
      cwd: setup.cwd,
      provider,
      model: target.model,
      system,
      messages: [...session.history, userMessage],
      contextWindow: facts.contextWindow,
      price: facts.price,
      compactThreshold: config.history?.compact_threshold ?? 0.8,
      thinking,
      tools,
      permissionMode: mode,
      workspaceAllow: config.workspace?.allow ?? [],
      maxTurns: setup.maxTurns,
      signal: controller.signal,
    },
    { stream: streamProvider, approve: createApprover(prompt), ...(log ? { log } : {}) },
  );
  return (async function* () {
    try {
      for await (const event of events) {
        // Saved before it is shown: a step the user sees as complete is already on disk.
        if (recorder) await recorder.record(event).catch((err) => Promise.reject(saveError(err)));
        yield event;
      }
    } finally {
      prompt?.close();
      release();
      await recorder?.close();
    }
  })();
}
