import { describeError, IonError } from "../errors.ts";

/**
 * `/copy`: puts text on the system clipboard. A clipboard program when one is installed and has a
 * display to talk to (pbcopy on macOS, wl-copy under Wayland, xclip or xsel under X11); otherwise the
 * terminal's own clipboard, OSC 52, which also works over ssh and in tmux (with `set-clipboard on`).
 */

export type Env = Record<string, string | undefined>;

interface Tool {
  argv: string[];
  /** Whether it can reach a clipboard here (a display). */
  usable: (env: Env) => boolean;
}

const TOOLS: Tool[] = [
  { argv: ["pbcopy"], usable: () => process.platform === "darwin" },
  { argv: ["wl-copy"], usable: (env) => Boolean(env.WAYLAND_DISPLAY) },
  { argv: ["xclip", "-selection", "clipboard"], usable: (env) => Boolean(env.DISPLAY) },
  { argv: ["xsel", "--clipboard", "--input"], usable: (env) => Boolean(env.DISPLAY) },
];

/** A clipboard program that does not finish by then is given up (xclip without a reachable X server). */
const TOOL_TIMEOUT_MS = 3000;

/** OSC 52 "set the clipboard" with the text base64-encoded; BEL ends it (the widest supported form). */
export function osc52(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`;
}

async function runTool(argv: string[], text: string, env: Env): Promise<string | undefined> {
  // xclip, xsel and wl-copy stay in the background to serve the selection: stdout and stderr are not
  // piped, or reading them would wait for that background process.
  const child = Bun.spawn(argv, { stdin: "pipe", stdout: "ignore", stderr: "ignore", env });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill();
  }, TOOL_TIMEOUT_MS);
  try {
    child.stdin.write(text);
    await child.stdin.end();
    const code = await child.exited;
    if (timedOut) return `did not finish in ${TOOL_TIMEOUT_MS / 1000} s`;
    return code === 0 ? undefined : `exited with status ${code}`;
  } catch (err) {
    return describeError(err);
  } finally {
    clearTimeout(timer);
  }
}

export interface Copied {
  /** How, in a word or three, for the one line the user sees. */
  via: string;
  /** Bytes for the caller to write to the terminal, unsanitised (the OSC 52 sequence), if that is the way. */
  terminalBytes?: string;
}

/**
 * Copies `text` with the first clipboard program that works, else returns the OSC 52 sequence when
 * there is a terminal to write it to. Throws when neither.
 */
export async function copyToClipboard(text: string, env: Env, terminal: boolean): Promise<Copied> {
  const failures: string[] = [];
  for (const tool of TOOLS) {
    const name = tool.argv[0]!;
    if (!tool.usable(env) || Bun.which(name, { PATH: env.PATH ?? "" }) === null) continue;
    const failure = await runTool(tool.argv, text, env);
    if (failure === undefined) return { via: name };
    failures.push(`${name} ${failure}`);
  }
  const why = failures.length > 0 ? ` (${failures.join("; ")})` : "";
  if (!terminal)
    throw new IonError(
      "io",
      `no clipboard: no clipboard program works here and there is no terminal for OSC 52${why}`,
    );
  return { via: `the terminal (OSC 52)${why}`, terminalBytes: osc52(text) };
}
