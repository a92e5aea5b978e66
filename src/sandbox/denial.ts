/**
 * Whether a failed command failed because of the sandbox, read from what it printed: the error a denied
 * write gives (EROFS from bwrap's read-only binds, EPERM from Seatbelt) or a network error while the
 * network is off. The note tells the model so, and how to ask for more, instead of leaving it to guess.
 */
import { networkWords } from "./command-sandbox.ts";
import type { SessionSandbox } from "./types.ts";

const WRITE_DENIED: Record<string, RegExp> = {
  bwrap: /Read-only file system|EROFS/,
  "sandbox-exec": /Operation not permitted|EPERM/,
};

const NETWORK_FAILED =
  /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|Name or service not known|nodename nor servname|getaddrinfo|EAI_AGAIN|ENOTFOUND|Connection refused|ECONNREFUSED|Unable to connect|Failed to connect|Couldn't connect|is not in sandbox\.network/i;

const ESCALATE =
  "if the command really needs it, call bash again with the same command and sandbox: false — the user is asked whether it may run outside the sandbox";

/**
 * The mechanism itself failed before the command ran (bwrap prints `bwrap: …` and exits 1): the note
 * for the result, or undefined when the command ran.
 */
export function sandboxStartFailure(
  sandbox: SessionSandbox,
  exitCode: number | null,
  stdout: string,
  stderr: string,
): string | undefined {
  const prefix = `${sandbox.kind}: `;
  const first = stderr.trim().split("\n")[0] ?? "";
  if (exitCode !== 1 && exitCode !== 65) return undefined;
  if (stdout !== "" || !first.startsWith(prefix)) return undefined;
  return `the sandbox could not start (${first}), so the command did not run; the user can run \`ion doctor\`, or turn the sandbox off with /sandbox off or sandbox.mode off`;
}

/** The note for a failed command's result, or undefined when nothing points at the sandbox. */
export function sandboxDenialNote(sandbox: SessionSandbox, output: string): string | undefined {
  const writeDenied = WRITE_DENIED[sandbox.kind];
  if (writeDenied?.test(output)) {
    const where =
      sandbox.mode === "read-only"
        ? "the sandbox is read-only (sandbox.mode read-only)"
        : "only the workspace, the workspace.allow directories and a private /tmp are writable (sandbox.mode workspace-write)";
    return `a write was denied by the sandbox: ${where}; ${ESCALATE}`;
  }
  if (sandbox.kind === "bwrap" && /No such file or directory/.test(output) && output.includes("/tmp/"))
    return `the sandbox has a /tmp of its own, empty at each command: the host's /tmp is not visible inside it; ${ESCALATE}`;
  if (sandbox.network !== true && NETWORK_FAILED.test(output))
    return `the network is limited by the sandbox (${networkWords(sandbox.network)}, sandbox.network); ${ESCALATE}`;
  return undefined;
}
