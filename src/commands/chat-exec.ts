import { join } from "node:path";
import { parseArgs } from "citty";
import type { AgentSession } from "../agent/session.ts";
import { configFiles, dataDir } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { THINKING_LEVELS } from "../providers/types.ts";
import type { ApproveFn } from "../tools/types.ts";
import { closedByCaller } from "../util/fd-modes.ts";
import { counted } from "../util/numbers.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { checkFlags, parseChoice } from "./_shared.ts";
import { chatArgs } from "./chat.ts";
import { routeConsole, routeProcessWarnings } from "./console.ts";
import { workspaceRoot } from "./run-support.ts";
import { runTrustGate } from "./trust-gate.ts";

/** `ion chat` / `ion`: flags, the terminal, then the chat loop on one agent session. */
export async function executeChat(rawArgs: string[]): Promise<void> {
  checkFlags("chat", rawArgs, chatArgs);
  const args = parseArgs(rawArgs, chatArgs);
  if (args._.length > 0)
    throw new IonError("usage", `unexpected argument "${args._[0]}" for "ion chat"`, {
      hint: 'to ask once and exit use `ion run "…"`; see `ion chat --help`',
    });
  if (args.new === true && args.resume !== undefined)
    throw new IonError("usage", "--new and --resume cannot be used together");
  if (args.new === true && args.continue === true)
    throw new IonError("usage", "--new and --continue cannot be used together");
  // Before any request: with stdout closed (`>&-`) every answer could only be lost.
  if (closedByCaller(1))
    throw new IonError("io", "cannot write to stdout: it is closed (EBADF), so the answers would be lost", {
      hint: "nothing was sent; redirect it instead (`> answers.txt`, or `> /dev/null` to discard them)",
    });
  const cwd = workspaceRoot(args.cwd);
  const thinking = args.thinking ? parseChoice("--thinking", args.thinking, THINKING_LEVELS) : undefined;
  const env = process.env;
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const { colorEnabled, createStyle } = await import("../ui/style.ts");
  const color = interactive && colorEnabled(true);
  const style = createStyle(color);
  const log =
    args.verbose === true ? (line: string) => process.stderr.write(`${safeForTerminal(line)}\n`) : undefined;
  routeConsole(log);
  routeProcessWarnings(log);
  // A chat lives for hours: the optimising JIT tiers would compile ever more code (RSS +50 % over
  // 200 turns), for hot paths — SSE parsing, rendering — that wait on the network anyway. Tier up
  // 25× later than the binary's default 4 (measured: +20 % instead, no slower to the first character).
  Bun.unsafe.setJITPolicy(100);
  const progress = interactive ? process.stdout : process.stderr;
  const notice = (line: string) => progress.write(`${style.dim(`ion: ${safeForTerminal(line)}`)}\n`);

  // The approver needs the line input, which exists only once the session (and any first-run setup) is open.
  let approve: ApproveFn | undefined;
  const projectTrust = await runTrustGate({
    cwd,
    flag: args["trust-project"] === true,
    terminal: process.stdin.isTTY === true && process.stderr.isTTY === true,
    notice,
  });
  // Loads src/hooks only when a hook is configured.
  const { notifyingApprover, sessionHooks } = await import("../config/hook-sources.ts");
  const hooks = await sessionHooks({
    cwd,
    env,
    projectTrust,
    mode: args.yes === true ? "auto" : "ask",
    notice,
  });
  const { AgentSession } = await import("../agent/session.ts");
  const { SessionPlan } = await import("../plan/session-plan.ts");
  const { SessionSubagents } = await import("../subagents/session-subagents.ts");
  // The designer of plan.auto is a subagent of the session.
  const subagents = new SessionSubagents();
  const { ensureModelConfigured } = await import("./run-model.ts");
  const session: AgentSession = await AgentSession.open({
    cwd,
    env,
    model: args.model,
    thinking,
    yes: args.yes === true,
    noTools: false,
    maxTurns: 50,
    newId: Bun.randomUUIDv7(),
    approve: notifyingApprover(
      interactive ? (call) => (approve ? approve(call) : Promise.resolve("deny")) : undefined,
      hooks,
      notice,
    ),
    notice,
    log,
    ensureModel: () => ensureModelConfigured({ interactive, cwd, env }),
    projectTrust,
    extensions: [...hooks, new SessionPlan(subagents), subagents],
    // Without -c a busy latest session is passed over for a new one; `-c` asks for that one.
    skipBusyLatest: args.continue !== true,
    choice: {
      continueLatest:
        args.continue === true || (args.new !== true && args.resume === undefined && args.session !== false),
      resume: args.resume,
      noSession: args.session === false,
    },
  });

  const { Chat, pipedLines, promptFor } = await import("../chat/repl.ts");
  const { builtinCommands } = await import("../chat/slash.ts");
  const registry = builtinCommands();
  let chat: InstanceType<typeof Chat> | undefined;
  let input: import("../chat/input.ts").ChatInput | undefined;
  if (interactive) {
    const { ChatInput } = await import("../chat/input.ts");
    input = new ChatInput({
      input: process.stdin,
      output: process.stdout,
      historyFile: args.session === false ? undefined : join(dataDir(env), "input_history.jsonl"),
      complete: (line) => (chat ? chat.complete(line) : Promise.resolve([[], line])),
      onKey: (key) => {
        void (key === "cycle-thinking" ? chat?.cycleThinking() : chat?.cycleMode());
      },
      prompt: () => promptFor(session.thinking, session.mode),
      hint: (text) => process.stdout.write(`${style.dim(text)}\n`),
    });
    const { terminalApprover } = await import("./approver.ts");
    const lineInput = input;
    approve = await terminalApprover(
      {
        ask: (question) => lineInput.question(question),
        beforeAsk: () => chat?.suspendOutput(),
        show: (text) => process.stdout.write(`${text}\n`),
      },
      cwd,
      color,
    );
  }
  const pick = async (
    message: string,
    choices: (query: string) => import("../ui/first-run.ts").Choice[],
    initial?: string,
  ) => {
    if (!input) return undefined;
    const { clackPrompter } = await import("../ui/prompter.ts");
    const prompter = await clackPrompter();
    const answer = await input.external(() =>
      prompter.search({ message, choices, ...(initial ? { initialValue: initial } : {}) }),
    );
    return typeof answer === "string" ? answer : undefined;
  };
  chat = new Chat(session, registry, {
    out: process.stdout,
    progress,
    style,
    color,
    interactive,
    typed: process.stdin.isTTY === true,
    input,
    lines: interactive ? undefined : pipedLines(process.stdin),
    configFile: configFiles(cwd, env).user,
    pick,
  });

  // Ctrl+C cancels the turn in flight (or leaves when idle). SIGTERM and SIGHUP (a closed terminal, a
  // dropped ssh) end the chat: the turn is cancelled and saved, the lock released, then exit 2.
  let endedBy: string | undefined;
  // Why the session ended, for its extensions: a signal (interrupted), a failure, or the user left (done).
  let failed = false;
  let readerGone = false;
  let ended: ((turnInFlight: boolean) => void) | undefined;
  const endedBySignal = new Promise<boolean>((resolve) => {
    ended = resolve;
  });
  const { onEndingSignals } = await import("../util/signals.ts");
  const offSignals = onEndingSignals((signal) => {
    const turnInFlight = chat?.busy === true;
    chat?.interrupt();
    if (signal === "SIGINT") return;
    chat?.context.quit();
    endedBy = signal;
    ended?.(turnInFlight);
  });
  // A reader that went away (`… | ion | head -1`): cancel the turn in flight and leave; ion exits 141.
  const { onStdoutClosed } = await import("../util/stdout.ts");
  const offClosed = onStdoutClosed(() => {
    readerGone = true;
    chat?.interrupt();
    chat?.context.quit();
  });
  try {
    greet(session, notice);
    if (session.resumed && interactive && args.quiet !== true) {
      const { resumeView } = await import("../chat/resume-view.ts");
      for (const line of resumeView(session.resumed.view, style, process.stdout.columns))
        progress.write(`${line}\n`);
    }
    const running = chat.run();
    // An idle chat waits on input that may never come: after the signal only a turn in flight is waited for.
    await Promise.race([running, endedBySignal.then((turnInFlight) => (turnInFlight ? running : undefined))]);
    if (endedBy !== undefined) throw new IonError("interrupted", "interrupted");
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    offSignals();
    offClosed();
    input?.close();
    await session.close(endedBy !== undefined || readerGone ? "interrupted" : failed ? "error" : "done");
  }
}

/** One dim line: which session this is, and how to start fresh. */
function greet(session: AgentSession, notice: (line: string) => void): void {
  const model = `${session.provider.id}/${session.model}`;
  const resumed = session.resumed;
  if (resumed)
    notice(
      `resumed ${resumed.id.slice(0, 13)} "${resumed.header.title}" (${counted(resumed.messageCount, "message")}) · ${model} · /clear or \`ion chat --new\` starts fresh`,
    );
  else notice(`new session · ${model} · /help for commands`);
}
