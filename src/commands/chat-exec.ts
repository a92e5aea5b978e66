import { parseArgs } from "citty";
import type { AgentSession } from "../agent/session.ts";
import { configFiles, inputHistoryFile } from "../config/paths.ts";
import { IonError } from "../errors.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../providers/types.ts";
import { SANDBOX_MODES, type SandboxMode } from "../sandbox/types.ts";
import type { ApproveFn } from "../tools/types.ts";
import { closedByCaller } from "../util/fd-modes.ts";
import { counted } from "../util/numbers.ts";
import { safeForTerminal } from "../util/terminal-text.ts";
import { argsForCitty, checkFlags, parseChoice } from "./_shared.ts";
import { chatArgs } from "./chat.ts";
import { routeConsole, routeProcessWarnings } from "./console.ts";
import { workspaceRoot } from "./run-support.ts";
import { runTrustGate } from "./trust-gate.ts";

type ChatArgs = ReturnType<typeof parseArgs<typeof chatArgs>>;
type Style = ReturnType<typeof import("../ui/style.ts").createStyle>;
type ChatInput = import("../chat/input.ts").ChatInput;
type ChatLoop = import("../chat/repl.ts").Chat;

/** `ion chat` / `ion`: flags, the terminal, then the chat loop on one agent session. */
export async function executeChat(rawArgs: string[]): Promise<void> {
  const args = parseChatArgs(rawArgs);
  // Before any request: with stdout closed (`>&-`) every answer could only be lost.
  if (closedByCaller(1))
    throw new IonError("io", "cannot write to stdout: it is closed (EBADF), so the answers would be lost", {
      hint: "nothing was sent; redirect it instead (`> answers.txt`, or `> /dev/null` to discard them)",
    });
  const cwd = workspaceRoot(args.cwd);
  const thinking = args.thinking ? parseChoice("--thinking", args.thinking, THINKING_LEVELS) : undefined;
  const sandboxMode = args.sandbox ? parseChoice("--sandbox", args.sandbox, SANDBOX_MODES) : undefined;
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
  const session = await openChatSession(args, {
    cwd,
    thinking,
    sandboxMode,
    interactive,
    notice,
    log,
    approve: (call) => (approve ? approve(call) : Promise.resolve("deny")),
  });
  const { Chat, pipedLines } = await import("../chat/repl.ts");
  const { builtinCommands } = await import("../chat/slash.ts");
  let chat: ChatLoop | undefined;
  let input: ChatInput | undefined;
  if (interactive) {
    input = await lineInput(session, args, style, () => chat);
    const { terminalApprover } = await import("./approver.ts");
    const asking = input;
    approve = await terminalApprover(
      {
        ask: (question) => asking.question(question),
        beforeAsk: () => chat?.suspendOutput(),
        show: (text) => process.stdout.write(`${text}\n`),
      },
      cwd,
      color,
    );
  }
  chat = new Chat(session, builtinCommands(), {
    out: process.stdout,
    progress,
    style,
    color,
    interactive,
    typed: process.stdin.isTTY === true,
    input,
    lines: interactive ? undefined : pipedLines(process.stdin),
    configFile: configFiles(cwd, env).user,
    pick: picker(input),
  });
  await runChat(chat, session, input, async () => {
    greet(session, notice);
    if (interactive && args.quiet !== true) await showResumed(session, style, progress);
  });
}

/** The flags, and the combinations and arguments a chat does not take. */
function parseChatArgs(rawArgs: string[]): ChatArgs {
  checkFlags("chat", rawArgs, chatArgs);
  const args = parseArgs<typeof chatArgs>(argsForCitty(rawArgs, chatArgs), chatArgs);
  if (args._.length > 0)
    throw new IonError("usage", `unexpected argument "${args._[0]}" for "ion chat"`, {
      hint: 'to ask once and exit use `ion run "…"`; see `ion chat --help`',
    });
  if (args.new === true && args.resume !== undefined)
    throw new IonError("usage", "--new and --resume cannot be used together");
  if (args.new === true && args.continue === true)
    throw new IonError("usage", "--new and --continue cannot be used together");
  return args;
}

/** The project's trust, its hooks and extensions, then the session: this directory's latest unless told. */
async function openChatSession(
  args: ChatArgs,
  options: {
    cwd: string;
    thinking: ThinkingLevel | undefined;
    sandboxMode: SandboxMode | undefined;
    interactive: boolean;
    notice: (line: string) => void;
    log: ((line: string) => void) | undefined;
    /** Asks on the terminal (only an interactive chat asks). */
    approve: ApproveFn;
  },
): Promise<AgentSession> {
  const { cwd, interactive, notice } = options;
  const env = process.env;
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
  // Memory learns and recalls through the session's file of turns: nothing with --no-session.
  const memory = args.session === false ? [] : [new (await import("../memory/extension.ts")).SessionMemory()];
  // The repo map a chat starts with, when the project has a code index (`ion index`).
  const repoMap = new (await import("../code-index/extension.ts")).SessionRepoMap();
  return AgentSession.open({
    cwd,
    env,
    model: args.model,
    thinking: options.thinking,
    sandboxMode: options.sandboxMode,
    // In mode auto, a command asking to leave the sandbox is still asked about in a chat.
    escalationInAuto: "ask",
    yes: args.yes === true,
    noTools: false,
    maxTurns: 50,
    newId: Bun.randomUUIDv7(),
    approve: notifyingApprover(interactive ? options.approve : undefined, hooks, notice),
    notice,
    log: options.log,
    ensureModel: () => ensureModelConfigured({ interactive, cwd, env }),
    projectTrust,
    extensions: [...hooks, new SessionPlan(subagents), subagents, ...memory, repoMap],
    // Without -c a busy latest session is passed over for a new one; `-c` asks for that one.
    skipBusyLatest: args.continue !== true,
    choice: {
      continueLatest:
        args.continue === true || (args.new !== true && args.resume === undefined && args.session !== false),
      resume: args.resume,
      noSession: args.session === false,
    },
  });
}

/** The terminal's line editor: history, completion and the mode keys of the chat (once it exists). */
async function lineInput(
  session: AgentSession,
  args: ChatArgs,
  style: Style,
  chat: () => ChatLoop | undefined,
): Promise<ChatInput> {
  const { ChatInput } = await import("../chat/input.ts");
  const { promptFor } = await import("../chat/repl.ts");
  return new ChatInput({
    input: process.stdin,
    output: process.stdout,
    historyFile: args.session === false ? undefined : inputHistoryFile(process.env),
    complete: (line) => chat()?.complete(line) ?? Promise.resolve([[], line]),
    onKey: (key) => {
      void (key === "cycle-thinking" ? chat()?.cycleThinking() : chat()?.cycleMode());
    },
    prompt: () => promptFor(session.thinking, session.mode),
    hint: (text) => process.stdout.write(`${style.dim(text)}\n`),
  });
}

/** A fuzzy picker that borrows the line editor's terminal; none (undefined answers) without one. */
function picker(input: ChatInput | undefined) {
  return async (
    message: string,
    choices: (query: string) => import("../ui/first-run.ts").Choice[],
    initial?: string,
  ): Promise<string | undefined> => {
    if (!input) return undefined;
    const { clackPrompter } = await import("../ui/prompter.ts");
    const prompter = await clackPrompter();
    const answer = await input.external(() =>
      prompter.search({ message, choices, ...(initial ? { initialValue: initial } : {}) }),
    );
    return typeof answer === "string" ? answer : undefined;
  };
}

/** A resumed session's last exchanges, before the first prompt. */
async function showResumed(session: AgentSession, style: Style, progress: NodeJS.WriteStream): Promise<void> {
  if (!session.resumed) return;
  const { resumeView } = await import("../chat/resume-view.ts");
  for (const line of resumeView(session.resumed.view, style, process.stdout.columns))
    progress.write(`${line}\n`);
}

/**
 * Runs the chat until the user leaves, a signal ends it or the reader goes away, then closes the
 * session with why it ended. Ctrl+C cancels the turn in flight (or leaves when idle). SIGTERM and
 * SIGHUP (a closed terminal, a dropped ssh) end the chat: the turn is cancelled and saved, the lock
 * released, then exit 2.
 */
async function runChat(
  chat: ChatLoop,
  session: AgentSession,
  input: ChatInput | undefined,
  /** What is shown before the first prompt. */
  opening: () => Promise<void>,
): Promise<void> {
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
    const turnInFlight = chat.busy === true;
    chat.interrupt();
    if (signal === "SIGINT") return;
    chat.context.quit();
    endedBy = signal;
    ended?.(turnInFlight);
  });
  // A reader that went away (`… | ion | head -1`): cancel the turn in flight and leave; ion exits 141.
  const { onStdoutClosed } = await import("../util/stdout.ts");
  const offClosed = onStdoutClosed(() => {
    readerGone = true;
    chat.interrupt();
    chat.context.quit();
  });
  try {
    await opening();
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
