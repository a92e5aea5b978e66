import { parseArgs } from "citty";
import type { RunResult } from "../agent/events.ts";
import type { AgentSession } from "../agent/session.ts";
import type { SessionEndReason } from "../agent/session-extension.ts";
import { IonError } from "../errors.ts";
import { SessionInUseError } from "../history/session-errors.ts";
import { THINKING_LEVELS, type UserBlock } from "../providers/types.ts";
import { SANDBOX_MODES } from "../sandbox/types.ts";
import type { SdkControl } from "../sdk/control.ts";
import { fromClaudeArgs, type SdkFlags } from "../sdk/flags.ts";
import type { ApprovalPrompt } from "../ui/approval.ts";
import { jsonLine, OUTPUT_FORMATS, type OutputFormat, type Renderer } from "../ui/renderer.ts";
import { closedByCaller } from "../util/fd-modes.ts";
import { fdWriter } from "../util/fd-writer.ts";
import { isTerminal } from "../util/libc.ts";
import { useProcessStreams } from "../util/stdout.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { argsForCitty, checkFlags, parseChoice, parsePositiveInt } from "./_shared.ts";
import { routeConsole, routeProcessWarnings } from "./console.ts";
import { runArgs } from "./run.ts";
import {
  breakdownLines,
  cancelOnSignals,
  errorKindOf,
  exitFor,
  permissionFlags,
  requestedFormat,
  setupFailure,
  workspaceRoot,
} from "./run-support.ts";
import { runTrustGate } from "./trust-gate.ts";

const DEFAULT_MAX_TURNS = 50;

type RunArgs = ReturnType<typeof parseArgs<typeof runArgs>>;

/** What every part of a run writes through and checks: the flags, the streams, the cancel signal. */
interface RunIo {
  args: RunArgs;
  /** The repeatable flags, every value given. */
  repeated: Record<string, string[]>;
  format: OutputFormat;
  stdout: ReturnType<typeof fdWriter>;
  tty: { stdin: boolean; stdout: boolean; stderr: boolean };
  streamInput: boolean;
  /** `ion: …` on stderr. */
  notice: (line: string) => void;
  /** `-v`'s lines on stderr; undefined without -v. */
  log: ((line: string) => void) | undefined;
  prompt: (ApprovalPrompt & { close(): void }) | undefined;
  controller: AbortController;
  newId: string;
  /** Claude Code's flags that only the SDK's control protocol uses. */
  sdk: SdkFlags;
  /** With --input-format stream-json: the Claude Agent SDK's control channel on stdin/stdout. */
  control: SdkControl | undefined;
}

/**
 * `ion run`: one turn of an agent session (one per stdin line with --input-format stream-json). It
 * prints through fd writers, not process.stdout/stderr (see util/stdout.ts: ~2 ms of start-up).
 */
export async function executeRun(
  rawArgs: string[],
  /** The flags as citty already parsed them for the command (parsing again costs ~1 ms). */
  parsed?: RunArgs,
): Promise<void> {
  const newId = Bun.randomUUIDv7();
  const stdout = fdWriter("stdout");
  const stderr = fdWriter("stderr");
  // Claude Code's extra flags (the Claude Agent SDK passes them): mapped or dropped, never a usage error.
  const claude = fromClaudeArgs(rawArgs);
  const same = claude.args.length === rawArgs.length && claude.args.every((arg, i) => arg === rawArgs[i]);
  const { args, repeated, format } = parseRunArgs(
    same ? rawArgs : claude.args,
    same ? parsed : undefined,
    stdout,
  );
  // Before any request: with stdout closed (`>&-`) the answer could only be lost.
  if (closedByCaller(1))
    throw new IonError("io", "cannot write to stdout: it is closed (EBADF), so the answer would be lost", {
      hint: "nothing was sent; redirect it instead (`> answer.txt`, or `> /dev/null` to discard it)",
    });
  const { createRenderer } = await import("../ui/renderer.ts");
  const { colorEnabled } = await import("../ui/style.ts");
  const tty = { stdin: isTerminal(0), stdout: isTerminal(1), stderr: isTerminal(2) };
  const verbose = args.verbose === true;
  const renderer: Renderer = await createRenderer(format, {
    stdout,
    stderr,
    stdoutIsTTY: tty.stdout,
    stderrIsTTY: tty.stderr,
    quiet: args.quiet === true,
    verbose,
    partial: args.partial === true,
    color: colorEnabled(tty.stderr),
  });
  const log = verbose ? (line: string) => stderr.write(`${safeForTerminal(line)}\n`) : undefined;
  routeConsole(log);
  routeProcessWarnings(log);

  const controller = new AbortController();
  const release = cancelOnSignals(controller);
  const streamInput = args["input-format"] === "stream-json";
  // Ask only on a terminal: a headless run is denied at once and never waits on a prompt.
  const asks = tty.stdin && !streamInput;
  // The prompt reads and writes through process.stdin/stderr: listen for their failures too.
  if (asks) useProcessStreams();
  const prompt = asks ? (await import("../ui/ask.ts")).terminalPrompt(() => renderer.suspend?.()) : undefined;
  const notice = (line: string) => stderr.write(`ion: ${safeForTerminal(line)}\n`);
  // Read from the start: the program's initialize comes before its first message.
  const control =
    streamInput && format === "stream-json"
      ? new (await import("../sdk/control.ts")).SdkControl(
          (line) => stdout.write(jsonLine(line)),
          notice,
          process.stdin,
        )
      : undefined;
  const io: RunIo = {
    args,
    repeated,
    format,
    stdout,
    tty,
    streamInput,
    notice,
    log,
    prompt,
    controller,
    newId,
    sdk: claude.sdk,
    control,
  };
  let session: AgentSession | undefined;
  // What a failure needs to name (or save) its session; run-failure.ts loads only when a run fails.
  const failureContext = () => ({
    env: process.env,
    cwd: session?.cwd ?? process.cwd(),
    newId,
    session,
    noSession: args.session === false,
    prompt: streamInput || args._.join(" ").trim() === "-" ? "" : args._.join(" ").trim(),
  });
  let turns: Iterable<UserBlock[]> | AsyncIterable<UserBlock[]>;
  try {
    const flags = await readRunFlags(io);
    session = await openRunSession(io, flags, colorEnabled(tty.stderr));
    if (control) control.session = session;
    turns = await userTurns(io, session, flags.cwd);
    if (log) for (const line of breakdownLines(await session.contextBreakdown())) log(line);
  } catch (err) {
    prompt?.close();
    release();
    await session?.close(controller.signal.aborted ? "interrupted" : "error");
    // A session held by another ion is named by its own id (it exists), not by the unused new one;
    // otherwise the prompt is kept in a session, so the result names one that exists.
    const { failedRunSession } = await import("./run-failure.ts");
    const saved = await failedRunSession(
      { ...failureContext(), err, phase: "setup" },
      errorKindOf(err),
      err instanceof SessionInUseError ? err.id : undefined,
    );
    if (format !== "text")
      renderer.onEvent({ type: "result", result: setupFailure(err, saved.id, saved.notes) });
    throw err;
  }

  let result: RunResult | undefined;
  // Why the session ended, for its extensions: a signal (or a closed stdout), a turn that threw, else
  // (undefined) as its last turn ended.
  let ending: SessionEndReason | undefined;
  try {
    for await (const content of turns) {
      if (controller.signal.aborted) break;
      const signal = control ? control.turnSignal(controller.signal) : controller.signal;
      for await (const event of session.turn(content, signal)) {
        renderer.onEvent(event);
        if (event.type === "result") result = event.result;
      }
    }
    if (controller.signal.aborted) ending = "interrupted";
  } catch (err) {
    ending = controller.signal.aborted ? "interrupted" : "error";
    // The user's message could not be saved or was refused: nothing was sent, and a json consumer
    // still gets its result, naming a session that exists (the prompt kept in a new one when it can be).
    const { failedRunSession } = await import("./run-failure.ts");
    const saved = await failedRunSession(
      { ...failureContext(), err, phase: "turn" },
      errorKindOf(err),
      undefined,
    );
    if (format !== "text")
      renderer.onEvent({ type: "result", result: setupFailure(err, saved.id, saved.notes) });
    throw err;
  } finally {
    renderer.close();
    prompt?.close();
    release();
    await session.close(ending);
  }
  if (!result) {
    if (streamInput) return; // no message on stdin: nothing to answer
    throw new IonError("internal", "the run ended without a result");
  }
  // An SDK program that interrupted its own turn asked for that result: the run itself went fine.
  if (control?.interruptedByProgram && result.subtype === "error_interrupted") return;
  const lastMessageFile = args["output-last-message"];
  if (lastMessageFile !== undefined) {
    const { saveLastMessage } = await import("./run-flags-ci.ts");
    await saveLastMessage(lastMessageFile, result, (line) => stderr.write(line));
  }
  exitFor(result);
}

/** The flags as given; a usage error still owes a json/stream-json consumer its one result object. */
function parseRunArgs(
  rawArgs: string[],
  parsed: RunArgs | undefined,
  stdout: ReturnType<typeof fdWriter>,
): { args: RunArgs; repeated: Record<string, string[]>; format: OutputFormat } {
  try {
    const repeated = checkFlags("run", rawArgs, runArgs, [
      "file",
      "allowed-tools",
      "disallowed-tools",
      "add-dir",
    ]);
    // A plain copy: citty's result is a Proxy that camel- and kebab-cases, character by character, the
    // name of each flag read but not given (~20 here); that many calls had JavaScriptCore optimize the
    // helper, and its optimizing compiler is ~2 MB more of the binary paged in (peak RSS of run "hi").
    // citty stores a given flag under each of its spellings, so the copy reads the same values.
    const forCitty = argsForCitty(rawArgs, runArgs);
    const args: RunArgs = {
      ...(parsed !== undefined && forCitty === rawArgs ? parsed : parseArgs(forCitty, runArgs)),
    };
    const format = parseChoice<OutputFormat>(
      "--output-format",
      String(args["output-format"]),
      OUTPUT_FORMATS,
    );
    return { args, repeated, format };
  } catch (err) {
    // The one result object is promised whatever happened: a usage error too, then exit 64.
    const asked = requestedFormat(rawArgs);
    if (asked === "json" || asked === "stream-json")
      // The arguments did not parse, so no prompt is known and nothing was saved: no session to name.
      stdout.write(jsonLine({ ...setupFailure(err, null), uuid: Bun.randomUUIDv7() }));
    throw err;
  }
}

/** The flags that shape the session, checked (and their files read) before anything is sent. */
async function readRunFlags({ args, repeated, format, streamInput, notice }: RunIo) {
  const inputFormat = args["input-format"];
  if (inputFormat !== undefined) parseChoice("--input-format", inputFormat, ["text", "stream-json"]);
  if (streamInput && format !== "stream-json")
    throw new IonError("usage", "--input-format stream-json needs -o stream-json");
  if (streamInput && (args._.length > 0 || (repeated.file ?? []).length > 0))
    throw new IonError(
      "usage",
      "with --input-format stream-json the messages come from stdin, not arguments",
    );
  const cwd = workspaceRoot(args.cwd);
  const thinking = args.thinking ? parseChoice("--thinking", args.thinking, THINKING_LEVELS) : undefined;
  const sandboxMode = args.sandbox ? parseChoice("--sandbox", args.sandbox, SANDBOX_MODES) : undefined;
  const maxTurns = args["max-turns"] ? parsePositiveInt("--max-turns", args["max-turns"]) : DEFAULT_MAX_TURNS;
  const permissions = permissionFlags(args);
  // A file the answer cannot be written to is refused before anything is sent (and paid for).
  const lastMessage = args["output-last-message"];
  if (lastMessage !== undefined) (await import("./run-flags-ci.ts")).checkLastMessageFile(lastMessage);
  const budget = args["max-budget-usd"];
  const maxBudgetUsd =
    budget === undefined ? undefined : (await import("../agent/budget.ts")).parseBudget(budget);
  const schemaFlag = args["json-schema"];
  const outputSchema =
    schemaFlag === undefined
      ? undefined
      : await (await import("../agent/structured-output.ts")).loadOutputSchema(schemaFlag, cwd);
  // Loaded only for a run that uses these flags: a plain run stays as light as it was.
  const toolFlags = ["allowed-tools", "disallowed-tools", "add-dir"].some((flag) => repeated[flag]?.length)
    ? (await import("./run-flags-ci.ts")).runToolFlags(repeated, notice)
    : { toolRules: undefined, addDirs: [] };
  return { cwd, thinking, sandboxMode, maxTurns, permissions, maxBudgetUsd, outputSchema, toolFlags };
}

/** The project's trust, its hooks and extensions, then the session itself (new, continued or resumed). */
async function openRunSession(
  io: RunIo,
  flags: Awaited<ReturnType<typeof readRunFlags>>,
  color: boolean,
): Promise<AgentSession> {
  const { args, format, stdout, tty, prompt, notice } = io;
  const { cwd, permissions, toolFlags } = flags;
  const projectTrust = await runTrustGate({
    cwd,
    flag: args["trust-project"] === true,
    prompt: tty.stderr ? prompt : undefined,
    signal: io.controller.signal,
    notice,
  });
  // An SDK program's initialize (its hooks, its system prompt) comes before its first message.
  if (io.control) await io.control.started;
  const programPrompt = io.control?.systemPrompt() ?? {};
  // Loads src/hooks only when a hook is configured.
  const { notifyingApprover, sessionHooks } = await import("../config/hook-sources.ts");
  const hooks = await sessionHooks({
    program: io.control?.programHooks(),
    cwd,
    env: process.env,
    projectTrust,
    mode: permissions.mode ?? (args.yes === true ? "auto" : "ask"),
    notice,
    onResponse:
      format === "stream-json"
        ? (response) =>
            stdout.write(
              jsonLine({ type: "system", subtype: "hook_response", ...response, uuid: Bun.randomUUIDv7() }),
            )
        : undefined,
  });
  const { AgentSession } = await import("../agent/session.ts");
  const { SessionPlan } = await import("../plan/session-plan.ts");
  const { SessionSubagents } = await import("../subagents/session-subagents.ts");
  // The designer of plan.auto is a subagent of the session.
  const subagents = new SessionSubagents();
  const { ensureModelConfigured } = await import("./run-model.ts");
  const env = process.env;
  // Memory learns and recalls through the session's file of turns: nothing with --no-session.
  const memory = args.session === false ? [] : [new (await import("../memory/extension.ts")).SessionMemory()];
  return AgentSession.open({
    cwd,
    env,
    model: args.model,
    thinking: flags.thinking,
    system: args.system ?? programPrompt.system,
    appendSystem: args["append-system-prompt"] ?? programPrompt.append,
    skill: args.skill,
    yes: args.yes === true,
    mode: permissions.mode,
    acceptEdits: permissions.acceptEdits,
    toolRules: toolFlags.toolRules,
    addDirs: toolFlags.addDirs,
    sandboxMode: flags.sandboxMode,
    escalationInAuto: "deny",
    noTools: args.tools === false,
    maxTurns: flags.maxTurns,
    maxBudgetUsd: flags.maxBudgetUsd,
    outputSchema: flags.outputSchema,
    fallbackModel: args["fallback-model"],
    extensions: [...hooks, new SessionPlan(subagents), subagents, ...memory],
    programMcpServers: io.control?.programMcpServers(io.sdk.sdkMcpServers),
    projectTrust,
    newId: io.newId,
    approve: notifyingApprover(
      io.control && io.sdk.permissionPromptStdio
        ? io.control.approver()
        : prompt
          ? await (await import("./approver.ts")).terminalApprover(prompt, cwd, color)
          : undefined,
      hooks,
      notice,
    ),
    notice,
    log: io.log,
    // No model anywhere: the setup flow on a terminal (text output only), the exact commands otherwise.
    ensureModel: () =>
      ensureModelConfigured({ interactive: format === "text" && tty.stdin && tty.stdout, cwd, env }),
    choice: {
      continueLatest: args.continue === true,
      resume: args.resume,
      noSession: args.session === false,
    },
  });
}

/** The user's messages: one per stdin line with --input-format stream-json, else the prompt with its files. */
async function userTurns(
  io: RunIo,
  session: AgentSession,
  cwd: string,
): Promise<Iterable<UserBlock[]> | AsyncIterable<UserBlock[]>> {
  if (io.control) return io.control.channel.userMessages(io.controller.signal);
  if (io.streamInput) {
    const { userMessages } = await import("./run-stream-input.ts");
    // A skipped line is told like any notice: what it quotes of the line cannot reach the terminal raw.
    return userMessages(process.stdin, io.notice);
  }
  const { buildUserContent, stdinReader } = await import("./run-input.ts");
  const content = await buildUserContent({
    prompt: io.args._.join(" "),
    files: io.repeated.file ?? [],
    cwd,
    stdinIsTTY: io.tty.stdin,
    readStdin: stdinReader(session, io.controller.signal, io.log),
  });
  return [content];
}
