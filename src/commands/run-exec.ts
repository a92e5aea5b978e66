import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "citty";
import { type AgentEvent, buildResult, type RunResult } from "../agent/events.ts";
import { IonError } from "../errors.ts";
import { emptyUsage, THINKING_LEVELS } from "../providers/types.ts";
import { OUTPUT_FORMATS, type OutputFormat, type Renderer } from "../ui/renderer.ts";
import { checkFlags, parseChoice, parsePositiveInt } from "./_shared.ts";
import { runArgs } from "./run.ts";

const DEFAULT_MAX_TURNS = 50;

function workspaceRoot(flag: string | undefined): string {
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

export async function executeRun(rawArgs: string[]): Promise<void> {
  const repeated = checkFlags("run", rawArgs, runArgs, ["file"]);
  const args = parseArgs(rawArgs, runArgs);
  const format = parseChoice<OutputFormat>("--output-format", String(args["output-format"]), OUTPUT_FORMATS);
  const sessionId = Bun.randomUUIDv7();
  const { startRun } = await import("./run-start.ts");
  const { createRenderer } = await import("../ui/renderer.ts");
  const { colorEnabled } = await import("../ui/style.ts");
  const stdoutIsTTY = process.stdout.isTTY === true;
  const stderrIsTTY = process.stderr.isTTY === true;
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

  let events: AsyncIterable<AgentEvent>;
  try {
    const cwd = workspaceRoot(args.cwd);
    const thinking = args.thinking ? parseChoice("--thinking", args.thinking, THINKING_LEVELS) : undefined;
    const maxTurns = args["max-turns"]
      ? parsePositiveInt("--max-turns", args["max-turns"])
      : DEFAULT_MAX_TURNS;
    events = await startRun({
      sessionId,
      cwd,
      prompt: args._.join(" "),
      files: repeated.file ?? [],
      model: args.model,
      thinking,
      system: args.system,
      maxTurns,
      verbose,
      yes: args.yes === true,
      noTools: args.tools === false,
      suspendOutput: () => renderer.suspend?.(),
      interactive: format === "text" && process.stdin.isTTY === true && stdoutIsTTY,
      session: {
        continueLatest: args.continue === true,
        resume: args.resume,
        noSession: args.session === false,
      },
    });
  } catch (err) {
    if (format !== "text") renderer.onEvent({ type: "result", result: setupFailure(err, sessionId) });
    throw err;
  }

  let result: RunResult | undefined;
  try {
    for await (const event of events) {
      renderer.onEvent(event);
      if (event.type === "result") result = event.result;
    }
  } finally {
    renderer.close();
  }
  if (!result) throw new IonError("internal", "the run ended without a result");
  exitFor(result);
}
