import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "citty";
import { type AgentEvent, buildResult, type RunResult } from "../agent/events.ts";
import type { AgentSession } from "../agent/session.ts";
import { IonError } from "../errors.ts";
import { emptyUsage, THINKING_LEVELS } from "../providers/types.ts";
import { OUTPUT_FORMATS, type OutputFormat, type Renderer } from "../ui/renderer.ts";
import { checkFlags, parseChoice, parsePositiveInt } from "./_shared.ts";
import { routeConsole, routeProcessWarnings } from "./console.ts";
import { runArgs } from "./run.ts";

const DEFAULT_MAX_TURNS = 50;

export function workspaceRoot(flag: string | undefined): string {
  if (!flag) return process.cwd();
  const dir = resolve(flag);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false; // a missing path is reported just below
  }
  if (!isDir) throw new IonError("usage", `--cwd ${flag}: not a directory`);
  return dir;
}

/** Until a run has begun, failures still owe a json/stream-json consumer its one result object. */
function setupFailure(err: unknown, sessionId: string): RunResult {
  const message = err instanceof Error ? err.message : String(err);
  return buildResult({
    subtype: "error_during_execution",
    result: "",
    session_id: sessionId,
    provider: "",
    model: "",
    num_turns: 0,
    duration_ms: 0,
    duration_api_ms: 0,
    usage: emptyUsage(),
    total_cost_usd: null,
    permission_denials: [],
    errors: [message],
    stop_reason: null,
    modelUsage: {},
  });
}

function exitFor(result: RunResult): void {
  const line = result.errors.join("; ");
  switch (result.subtype) {
    case "success":
      return;
    case "error_interrupted":
      throw new IonError("interrupted", "interrupted");
    case "error_max_turns":
      throw new IonError("max_turns", line);
    case "error_during_execution":
      throw new IonError("provider", line || "the run failed");
  }
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

/** `-v`: what fills the window before the turn, one part a line. */
function breakdownLines(breakdown: Awaited<ReturnType<AgentSession["contextBreakdown"]>>): string[] {
  const pct = (share: number | null) => (share === null ? "" : ` (${(share * 100).toFixed(1)}%)`);
  const window = breakdown.contextWindow ?? "unknown";
  return [
    `context: ${breakdown.total} tokens${pct(breakdown.share)} of ${window} before this prompt (estimates)`,
    ...breakdown.rows.map((row) => `  ${row.label}: ${row.tokens}${pct(row.share)}`),
  ];
}

/** `ion run`: one turn of an agent session, rendered in the chosen format. */
export async function executeRun(rawArgs: string[]): Promise<void> {
  const repeated = checkFlags("run", rawArgs, runArgs, ["file"]);
  const args = parseArgs(rawArgs, runArgs);
  const format = parseChoice<OutputFormat>("--output-format", String(args["output-format"]), OUTPUT_FORMATS);
  const newId = Bun.randomUUIDv7();
  const { createRenderer } = await import("../ui/renderer.ts");
  const { colorEnabled } = await import("../ui/style.ts");
  const stdoutIsTTY = process.stdout.isTTY === true;
  const stderrIsTTY = process.stderr.isTTY === true;
  const stdinIsTTY = process.stdin.isTTY === true;
  const verbose = args.verbose === true;
  const renderer: Renderer = await createRenderer(format, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdoutIsTTY,
    stderrIsTTY,
    quiet: args.quiet === true,
    verbose,
    partial: args.partial === true,
    color: colorEnabled(stderrIsTTY),
  });
  const log = verbose ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
  routeConsole(log);
  routeProcessWarnings(log);

  let session: AgentSession | undefined;
  let events: AsyncIterable<AgentEvent>;
  const controller = new AbortController();
  const release = cancelOnSignals(controller);
  // Ask only on a terminal: a headless run is denied at once and never waits on a prompt.
  const prompt = stdinIsTTY
    ? (await import("../ui/ask.ts")).terminalPrompt(() => renderer.suspend?.())
    : undefined;
  try {
    const cwd = workspaceRoot(args.cwd);
    const thinking = args.thinking ? parseChoice("--thinking", args.thinking, THINKING_LEVELS) : undefined;
    const maxTurns = args["max-turns"]
      ? parsePositiveInt("--max-turns", args["max-turns"])
      : DEFAULT_MAX_TURNS;
    const { AgentSession } = await import("../agent/session.ts");
    const { createApprover } = await import("../ui/approval.ts");
    const { ensureModelConfigured } = await import("./run-model.ts");
    const env = process.env;
    session = await AgentSession.open({
      cwd,
      env,
      model: args.model,
      thinking,
      system: args.system,
      skill: args.skill,
      yes: args.yes === true,
      noTools: args.tools === false,
      maxTurns,
      newId,
      approve: prompt ? createApprover(prompt) : undefined,
      notice: (line) => process.stderr.write(`ion: ${line}\n`),
      log,
      // No model anywhere: the setup flow on a terminal (text output only), the exact commands otherwise.
      ensureModel: () =>
        ensureModelConfigured({
          interactive: format === "text" && stdinIsTTY && stdoutIsTTY,
          cwd,
          env,
        }),
      choice: {
        continueLatest: args.continue === true,
        resume: args.resume,
        noSession: args.session === false,
      },
    });
    const { buildUserContent } = await import("./run-input.ts");
    const content = await buildUserContent({
      prompt: args._.join(" "),
      files: repeated.file ?? [],
      cwd,
      stdinIsTTY,
      readStdin: () => Bun.stdin.text(),
    });
    if (log) for (const line of breakdownLines(await session.contextBreakdown())) log(line);
    events = session.turn(content, controller.signal);
  } catch (err) {
    prompt?.close();
    release();
    await session?.close();
    if (format !== "text")
      renderer.onEvent({ type: "result", result: setupFailure(err, session?.id ?? newId) });
    throw err;
  }

  let result: RunResult | undefined;
  try {
    for await (const event of events) {
      renderer.onEvent(event);
      if (event.type === "result") result = event.result;
    }
  } catch (err) {
    // The user's message could not be saved: nothing was sent, and a json consumer still gets its result.
    if (format !== "text") renderer.onEvent({ type: "result", result: setupFailure(err, session.id) });
    throw err;
  } finally {
    renderer.close();
    prompt?.close();
    release();
    await session.close();
  }
  if (!result) throw new IonError("internal", "the run ended without a result");
  exitFor(result);
}
