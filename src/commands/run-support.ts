import { statSync } from "node:fs";
import { resolve } from "node:path";
import { buildResult, type ErrorKind, type RunResult } from "../agent/events.ts";
import { fromClaudeMode } from "../agent/permissions.ts";
import type { AgentSession } from "../agent/session.ts";
import { IonError } from "../errors.ts";
import { emptyUsage } from "../providers/types.ts";
import { messageOf } from "../util/error-text.ts";
import { onEndingSignals } from "../util/signals.ts";
import { onStdoutClosed } from "../util/stdout.ts";

/** What `ion run` needs besides the run itself: flag checks, the setup-failure result, the exit status. */

export function workspaceRoot(flag: string | undefined): string {
  if (flag === undefined) return process.cwd();
  if (flag.trim() === "") throw new IonError("usage", "--cwd needs a directory");
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

/** ion's kind of a failure that is not a provider's reply (see ErrorKind in agent/events.ts). */
export function errorKindOf(err: unknown): ErrorKind {
  if (!(err instanceof IonError)) return "internal";
  switch (err.code) {
    case "usage":
    case "config":
    case "tool":
    case "io":
    case "interrupted":
    case "max_turns":
    case "internal":
      return err.code;
    case "provider":
      return "network"; // the model list could not be fetched (catalog/catalog.ts)
  }
}

/**
 * Until a run has begun, failures still owe a json/stream-json consumer its one result object.
 * `sessionId` is a session that exists, or null when nothing was saved; `notes` add why not.
 */
export function setupFailure(err: unknown, sessionId: string | null, notes: string[] = []): RunResult {
  const message = messageOf(err);
  // A signal during set-up (the stdin read) is an interrupted run like one during the turn.
  const interrupted = err instanceof IonError && err.code === "interrupted";
  return buildResult({
    subtype: interrupted ? "error_interrupted" : "error_during_execution",
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
    errors: [message, ...notes],
    error_kind: errorKindOf(err),
    stop_reason: null,
    modelUsage: {},
  });
}

export function exitFor(result: RunResult): void {
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
    case "error_max_budget_usd":
      throw new IonError("provider", line);
  }
}

/**
 * SIGINT/SIGTERM/SIGHUP (or a closed stdout) cancel the run, the stdin read included; the loop then
 * ends with an interrupted result. Installed before stdin is read.
 */
export function cancelOnSignals(controller: AbortController): () => void {
  const cancel = () => controller.abort();
  const offSignals = onEndingSignals(cancel);
  // A reader that went away (`| head`) cancels the turn too: it is saved as interrupted, then ion exits 141.
  const off = onStdoutClosed(cancel);
  return () => {
    offSignals();
    off();
  };
}

/**
 * `-v`: what fills the window before the turn, one part a line. The tools kept behind mcp_search are
 * told once, by the MCP start-up line just before.
 */
export function breakdownLines(breakdown: Awaited<ReturnType<AgentSession["contextBreakdown"]>>): string[] {
  const pct = (share: number | null) => (share === null ? "" : ` (${(share * 100).toFixed(1)}%)`);
  const window = breakdown.contextWindow ?? "unknown";
  return [
    `context: ${breakdown.total} tokens${pct(breakdown.share)} of ${window} before this prompt (estimates)`,
    ...breakdown.rows.map((row) => `  ${row.label}: ${row.tokens}${pct(row.share)}`),
  ];
}

/** The output format asked for, read leniently: a usage error must still know whether to print JSON. */
export function requestedFormat(rawArgs: string[]): string | undefined {
  let format: string | undefined;
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") break;
    if (arg === "-o" || arg === "--output-format") format = rawArgs[++i];
    else if (arg.startsWith("--output-format=")) format = arg.slice("--output-format=".length);
    else if (/^-o./.test(arg)) format = arg.slice(2);
  }
  return format;
}

/** Flags that conflict or need each other; throws usage errors. */
export function permissionFlags(args: { yes?: boolean; "permission-mode"?: string }) {
  const value = args["permission-mode"];
  if (value === undefined) return { mode: undefined, acceptEdits: false };
  const mapped = fromClaudeMode(value);
  if (!mapped)
    throw new IonError(
      "usage",
      `--permission-mode must be one of read, ask, auto, plan, default, acceptEdits, bypassPermissions, got "${value}"`,
    );
  if (args.yes === true && mapped.mode !== "auto")
    throw new IonError("usage", `-y cannot be combined with --permission-mode ${value}`);
  return mapped;
}
