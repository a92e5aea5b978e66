import { type CommandDef, runCommand } from "citty";
import { describeError, exitCodeFor, IonError, oneLine } from "./errors.ts";
import { isPrintMode } from "./sdk/flags.ts";
import { renderUsage } from "./ui/usage.ts";
import { rememberStdioModes, restoreStdioModes } from "./util/fd-modes.ts";
import type { FdWriter } from "./util/fd-writer.ts";
import { settleOutputs, stdoutClosed, watchOutputs, writeFast } from "./util/stdout.ts";
import { safeForTerminal } from "./util/terminal-text.ts";
import { VERSION, VERSION_TEXT } from "./version.ts";

type LoadCommand = () => Promise<CommandDef>;

/** Only commands that work are listed. Each module's top level imports nothing heavy. */
export const COMMANDS: Record<string, LoadCommand> = {
  chat: () => import("./commands/chat.ts").then((m) => m.default as CommandDef),
  run: () => import("./commands/run.ts").then((m) => m.default as CommandDef),
  sessions: () => import("./commands/sessions.ts").then((m) => m.default as CommandDef),
  memory: () => import("./commands/memory.ts").then((m) => m.default as CommandDef),
  index: () => import("./commands/index.ts").then((m) => m.default as CommandDef),
  reset: () => import("./commands/reset.ts").then((m) => m.default as CommandDef),
  config: () => import("./commands/config.ts").then((m) => m.default as CommandDef),
  models: () => import("./commands/models.ts").then((m) => m.default as CommandDef),
  providers: () => import("./commands/providers.ts").then((m) => m.default as CommandDef),
  skills: () => import("./commands/skills.ts").then((m) => m.default as CommandDef),
  agents: () => import("./commands/agents.ts").then((m) => m.default as CommandDef),
  mcp: () => import("./commands/mcp.ts").then((m) => m.default as CommandDef),
  completion: () => import("./commands/completion.ts").then((m) => m.default as CommandDef),
  doctor: () => import("./commands/doctor.ts").then((m) => m.default as CommandDef),
  update: () => import("./commands/update.ts").then((m) => m.default as CommandDef),
};

const root: CommandDef = {
  meta: {
    name: "ion",
    version: VERSION,
    description: "A fast, scriptable, multi-provider terminal LLM agent",
  },
  subCommands: COMMANDS,
};

/**
 * Set once a command module runs: from then on output may have gone through process.stdout/stderr,
 * which must be flushed before exit. Until then ion writes without them (writeFast, console.error),
 * because the first touch of process.stdout/stderr costs ~20 ms of start-up (see main.ts).
 */
let streamsInUse = false;

/**
 * Commands that print through util/fd-writer.ts and leave process.stdout/stderr alone unless
 * they need them (a prompt on a terminal): their start-up does without creating the streams (~2 ms).
 */
const FD_OUTPUT: ReadonlySet<string> = new Set(["run", "models", "skills", "agents", "completion"]);
/** stderr for such a command's errors (its console may be routed elsewhere). */
let fdErrors: FdWriter | undefined;

function writeErr(text: string): void {
  if (fdErrors) fdErrors.write(`${text}\n`);
  else if (streamsInUse) process.stderr.write(`${text}\n`);
  else console.error(text);
}

/**
 * Whether stdout is a terminal. `Bun.enableANSIColors` (free: Bun works it out at start-up) is false
 * unless stdout or stderr is a terminal, and under NO_COLOR; only then is node:tty (~5 ms) asked.
 */
async function stdoutIsTTY(): Promise<boolean> {
  if (!Bun.enableANSIColors) return false;
  const { isatty } = await import("node:tty");
  return isatty(1);
}

/** Usage text is coloured; keep it plain for pipes and NO_COLOR. */
async function usage(command: CommandDef, parent?: CommandDef): Promise<string> {
  const text = await renderUsage(command, parent);
  const plain = (process.env.NO_COLOR ?? "") !== "" || !(await stdoutIsTTY());
  return plain ? Bun.stripANSI(text) : text;
}

function isHelp(arg: string): boolean {
  return arg === "--help" || arg === "-h";
}

/** `ion version` is `ion --version`; `ion help [COMMAND…]` is `ion [COMMAND…] --help`. */
function spelledOut(argv: string[]): string[] {
  const [first, ...rest] = argv;
  if ((first === "version" || first === "-v") && rest.length === 0) return ["--version"];
  if (first === "help") return rest.length === 0 ? ["--help"] : [...rest, "--help"];
  return argv;
}

function report(err: unknown): number {
  const code = err instanceof IonError ? err.code : "internal";
  // Once the output has gone, what fails next is its consequence (an aborted run), not news.
  if (stdoutClosed()) return exitCodeFor(code);
  // An error can quote a server's reply or a file name: nothing in it may drive the terminal.
  writeErr(`ion: ${safeForTerminal(describeError(err))}`);
  // At most one more line, marked, so a script can tell the error from its advice.
  if (err instanceof IonError && err.hint) writeErr(`  hint: ${safeForTerminal(oneLine(err.hint))}`);
  if (code === "internal" && process.env.ION_DEBUG && err instanceof Error && err.stack) writeErr(err.stack);
  return exitCodeFor(code);
}

/**
 * Runs the command line; resolves to the exit status once all output is flushed and the standard
 * streams are back in the mode ion found them in. `exit` ends the process at once; it is used only
 * when the output fails while a command runs (see util/stdout.ts).
 */
export async function dispatch(argv: string[], exit: (code: number) => void): Promise<number> {
  const code = await dispatchInner(argv, exit);
  if (!streamsInUse) return code;
  const status = await settleOutputs(code);
  restoreStdioModes();
  return status;
}

async function dispatchInner(args: string[], exit: (code: number) => void): Promise<number> {
  const argv = spelledOut(args);
  const [first, ...others] = argv;
  try {
    if (first !== undefined && isHelp(first)) return writeFast(`${await usage(root)}\n`);
    if (first === "--version" || first === "-V") return writeFast(`ion ${VERSION_TEXT}\n`);
    // `ion` alone, or with chat's options only (`ion -m openai/gpt-4o`), is `ion chat`; with Claude
    // Code's print-mode flags (`-p`, `--output-format`, `--input-format`: how the Claude Agent SDK
    // starts its engine) it is `ion run`.
    const [name, rest] =
      first === undefined || first.startsWith("-")
        ? [isPrintMode(argv) ? "run" : "chat", argv]
        : [first, others];
    const load = COMMANDS[name];
    if (!load) {
      const what = name.startsWith("-") ? `unknown option ${name}` : `unknown command "${name}"`;
      throw new IonError("usage", what, {
        hint: `available: ${Object.keys(COMMANDS).join(", ")}; see \`ion --help\``,
      });
    }
    const command = await load();
    const helpAt = rest.findIndex((a) => a === "--" || isHelp(a));
    if (helpAt >= 0 && rest[helpAt] !== "--") {
      const [target, parent] = await helpTarget(command, rest.slice(0, helpAt));
      return writeFast(`${await usage(target, parent)}\n`);
    }
    // Before the command first touches process.stdout/stderr, which makes pipes non-blocking.
    await rememberStdioModes();
    streamsInUse = true;
    const processStreams = !FD_OUTPUT.has(name);
    if (!processStreams) fdErrors = (await import("./util/fd-writer.ts")).fdWriter("stderr");
    watchOutputs(
      (status) => {
        restoreStdioModes();
        exit(status);
      },
      { processStreams },
    );
    await runCommand(command, { rawArgs: rest });
    return 0;
  } catch (err) {
    return report(err);
  }
}

/** `ion sessions list --help` shows the subcommand's page, not its parent's. */
async function helpTarget(command: CommandDef, before: string[]): Promise<[CommandDef, CommandDef]> {
  const subCommands =
    typeof command.subCommands === "function" ? await command.subCommands() : await command.subCommands;
  const name = before.find((a) => !a.startsWith("-"));
  const sub =
    subCommands && name !== undefined && Object.hasOwn(subCommands, name) ? subCommands[name] : undefined;
  if (!sub) return [command, root];
  const meta = await (typeof command.meta === "function" ? command.meta() : command.meta);
  const resolved = (typeof sub === "function" ? await sub() : await sub) as CommandDef;
  return [resolved, { meta: { name: `ion ${meta?.name ?? ""}` } }];
}
