/**
 * A real terminal for end-to-end tests: the CLI runs in a detached tmux session on a server of its own
 * (`tmux -L <unique>`, no config file), so a test types keys, pastes, resizes and reads the screen the
 * way a user would, and never touches the user's own tmux. The pane runs `sh -c '"$@"; echo
 * ION-EXIT=$?'`: the shell reaps the program and prints its exit status (tmux itself does not always
 * report it), `pid` is the program's own process (the shell's child), and the pane stays after the end
 * (`remain-on-exit`) so the screen can still be read.
 *
 *   using term = await Terminal.start({ args: ["chat"], env: box.env(server.env), cwd: box.workspace });
 *   await term.waitFor("> ");
 *   await term.sendText("hello");
 *   await term.sendKeys("Enter");
 *   await term.waitFor(/0% ctx/);
 *
 * Waiting is always polling the screen (every ~50 ms) until something appears, never a fixed sleep.
 */
import { readdirSync, readFileSync } from "node:fs";
import { collect, ionCommand } from "./cli.ts";

/** Whether tmux is installed; the terminal tests are skipped (with a message) only when it is not. */
export const HAS_TMUX = Bun.which("tmux") !== null;

export interface TerminalOptions {
  /** ion's arguments (the command is `ionCommand()`, so `$ION_BIN` when set). */
  args?: string[];
  /** Another program instead of ion (the bench's floor). */
  command?: string[];
  /** The whole environment of the program: the tmux server is started with it, nothing else leaks in. */
  env: Record<string, string>;
  cwd: string;
  cols?: number;
  rows?: number;
}

export type Pattern = string | RegExp | ((screen: string) => boolean);

let counter = 0;
const EXIT_MARK = "ION-EXIT=";
const decoder = new TextDecoder();

function matches(screen: string, pattern: Pattern): boolean {
  if (typeof pattern === "string") return screen.includes(pattern);
  if (pattern instanceof RegExp) return pattern.test(screen);
  return pattern(screen);
}

function describePattern(pattern: Pattern): string {
  return typeof pattern === "function" ? "the condition" : JSON.stringify(String(pattern));
}

/** Terminals not yet closed, so a test that timed out (its `using` never disposed) still ends them. */
const open = new Set<Terminal>();

export class Terminal {
  /** The tmux server's socket name (`tmux -L`). */
  readonly socket: string;
  private readonly target: string;
  private disposed = false;

  private constructor(
    socket: string,
    private readonly env: Record<string, string>,
    /** The program's process (ion itself); 0 when it had already ended by the time the pane was up. */
    readonly pid: number,
  ) {
    this.socket = socket;
    this.target = "ion:0.0";
    open.add(this);
  }

  /** Closes every terminal still open: for an `afterEach`, in case a test timed out. */
  static closeAll(): void {
    for (const terminal of open) terminal.close();
  }

  /** Starts the program in a new tmux server of its own and returns once the pane exists. */
  static async start(options: TerminalOptions): Promise<Terminal> {
    const socket = `ion-test-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
    const argv = options.command ?? [...ionCommand(), ...(options.args ?? [])];
    // The tmux server inherits this environment (its global environment is what the pane gets, plus
    // TERM/TMUX), so the program sees exactly `options.env`.
    const env = { ...options.env };
    const cols = String(options.cols ?? 80);
    const rows = String(options.rows ?? 24);
    const result = await tmuxRun(socket, env, [
      "start-server",
      ";",
      "set-option",
      "-g",
      "remain-on-exit",
      "on",
      ";",
      "set-option",
      "-g",
      "history-limit",
      "5000",
      ";",
      // Clearing the whole screen must not copy it into the scrollback (tmux's default does): the
      // captured scrollback is then what a user of a plain terminal would see.
      "set-option",
      "-g",
      "scroll-on-clear",
      "off",
      ";",
      // An OSC 52 clipboard write becomes a paste buffer, so a test can see whether one got through.
      "set-option",
      "-g",
      "set-clipboard",
      "on",
      ";",
      "new-session",
      "-d",
      "-s",
      "ion",
      "-x",
      cols,
      "-y",
      rows,
      "-c",
      options.cwd,
      "-P",
      "-F",
      "#{pane_pid}",
      "--",
      "sh",
      "-c",
      // Like an interactive shell, the wrapper outlives a Ctrl+C that the terminal sends as SIGINT to
      // the whole foreground group (a trap, not an ignore: ion must still receive the signal).
      `trap : INT; "$@"; echo "${EXIT_MARK}$?"`,
      "ion-terminal",
      ...argv,
    ]);
    const kill = () => killServer(socket, env);
    if (result.code !== 0) {
      kill();
      throw new Error(`tmux new-session failed: ${result.stderr.trim()}`);
    }
    const shell = Number(result.stdout.trim().split("\n").at(-1));
    try {
      return new Terminal(socket, env, await childOf(shell));
    } catch (err) {
      kill();
      throw err;
    }
  }

  /** tmux key names, each sent as a key: `Enter`, `C-c`, `C-d`, `C-t`, `BTab`, `Tab`, `Up`, `Escape`. */
  async sendKeys(...keys: string[]): Promise<void> {
    await this.tmux(["send-keys", "-t", this.target, ...keys]);
  }

  /** Text typed literally, character by character (`send-keys -l`). */
  async sendText(text: string): Promise<void> {
    await this.tmux(["send-keys", "-t", this.target, "-l", "--", text]);
  }

  /** Text pasted as a terminal pastes it: bracketed (`paste-buffer -p`) when the program asked for it. */
  async paste(text: string): Promise<void> {
    const buffer = `paste-${++counter}`;
    await this.tmux(["load-buffer", "-b", buffer, "-"], text);
    await this.tmux(["paste-buffer", "-p", "-d", "-b", buffer, "-t", this.target]);
  }

  async resize(cols: number, rows: number): Promise<void> {
    await this.tmux(["resize-window", "-t", "ion", "-x", String(cols), "-y", String(rows)]);
  }

  /** Sets a tmux option of this terminal's server (e.g. back to tmux's own default for one test). */
  async setOption(name: string, value: string): Promise<void> {
    await this.tmux(["set-option", "-g", name, value]);
  }

  /**
   * The screen and its scrollback as plain text, trailing blank lines dropped; spaces the program wrote
   * at the end of a line are kept (`-N`), so the prompt reads `> `.
   */
  async capture(): Promise<string> {
    return trimScreen(await this.tmux(["capture-pane", "-p", "-N", "-S", "-", "-t", this.target]));
  }

  /** The same with the escape sequences of colours and attributes (`capture-pane -e`). */
  async captureWithEscapes(): Promise<string> {
    return trimScreen(await this.tmux(["capture-pane", "-p", "-N", "-e", "-S", "-", "-t", this.target]));
  }

  /** The pane's title, as a program sets it with OSC 0 or 2 (tmux starts with the host name). */
  async title(): Promise<string> {
    return (await this.tmux(["display-message", "-p", "-t", this.target, "#{pane_title}"])).trimEnd();
  }

  /** The contents of tmux's paste buffers: where a program's OSC 52 clipboard write lands. */
  async clipboard(): Promise<string[]> {
    const names = (await this.tmux(["list-buffers", "-F", "#{buffer_name}"])).split("\n").filter(Boolean);
    return Promise.all(names.map((name) => this.tmux(["show-buffer", "-b", name])));
  }

  /** The last non-blank line of the screen (where the cursor's prompt usually is). */
  async lastLine(): Promise<string> {
    return (await this.capture()).split("\n").at(-1) ?? "";
  }

  /**
   * Polls the screen every ~50 ms until `pattern` (text, regex or a test of the whole screen) is on it;
   * returns the screen. Fails after `timeoutMs`, quoting the screen as it was.
   */
  async waitFor(pattern: Pattern, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.capture();
      if (matches(screen, pattern)) return screen;
      if (Date.now() >= deadline)
        throw new Error(
          `terminal: ${describePattern(pattern)} not on screen after ${timeoutMs} ms; screen:\n${screen}`,
        );
      await Bun.sleep(50);
    }
  }

  /** Waits until `count` occurrences of `text` are on the screen (e.g. the second status line). */
  waitForCount(text: string, count: number, timeoutMs = 5000): Promise<string> {
    return this.waitFor((screen) => screen.split(text).length - 1 >= count, timeoutMs);
  }

  /** Waits for the program to exit and returns its exit status (128 + the signal's number when killed). */
  async waitForExit(timeoutMs = 5000): Promise<number> {
    const mark = new RegExp(`${EXIT_MARK}(\\d+)$`, "m");
    const screen = await this.waitFor(mark, timeoutMs);
    return Number(mark.exec(screen)![1]);
  }

  /** Kills the tmux server (and so the program, if still running). Safe to call twice. */
  close(): void {
    if (this.disposed) return;
    this.disposed = true;
    open.delete(this);
    killServer(this.socket, this.env);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  private async tmux(args: string[], stdin?: string): Promise<string> {
    const result = await tmuxRun(this.socket, this.env, args, stdin);
    if (result.code !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr.trim()}`);
    return result.stdout;
  }
}

function killServer(socket: string, env: Record<string, string>): void {
  Bun.spawnSync(["tmux", "-L", socket, "-f", "/dev/null", "kill-server"], {
    env,
    stdout: "ignore",
    stderr: "ignore",
  });
}

/**
 * The first child of `pid` (the program the pane's shell started), polled until it exists; 0 when the
 * shell is already done (the program ended at once).
 */
async function childOf(pid: number, timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let children: string;
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    } catch {
      return 0; // the shell is gone
    }
    if (children) return Number(children.split(" ")[0]);
    if (isZombie(String(pid))) return 0;
    if (Date.now() >= deadline) throw new Error(`terminal: the pane's shell (${pid}) started no program`);
    await Bun.sleep(5);
  }
}

async function tmuxRun(
  socket: string,
  env: Record<string, string>,
  args: string[],
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(["tmux", "-L", socket, "-f", "/dev/null", ...args], {
    env,
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return collect(child);
}

/** Drops the empty lines below the last written one. */
function trimScreen(text: string): string {
  return text.replace(/(?:\n[ \t]*)+$/, "");
}

/** Pids of live processes whose command line contains `marker` (from /proc; Linux). */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = decoder.decode(readFileSync(`/proc/${entry}/cmdline`)).replaceAll("\0", " ");
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(marker) && !isZombie(entry)) pids.push(Number(entry));
  }
  return pids;
}

function isZombie(pid: string): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return true;
  }
}
