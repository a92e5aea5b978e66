/**
 * The sandbox `bash` commands run in: an OS mechanism (bubblewrap on Linux, sandbox-exec on macOS) that
 * keeps writes inside the workspace and the network off unless allowed — a second wall under the
 * permission modes, never a filter of command strings.
 */

/** What a sandboxed command may write: the workspace (and `workspace.allow`, a private /tmp), nothing, or no sandbox. */
export type SandboxMode = "workspace-write" | "read-only" | "off";
export const SANDBOX_MODES: readonly SandboxMode[] = ["workspace-write", "read-only", "off"];

/** false: no network; true: any; a list: only these hosts (`*.example.com` for subdomains), through ion's proxy. */
export type SandboxNetwork = boolean | string[];

/** The mechanism that enforces it here. */
export type SandboxKind = "bwrap" | "sandbox-exec" | "none";

export interface SandboxAvailability {
  kind: SandboxKind;
  /** The program's path (bwrap, sandbox-exec). */
  path?: string;
  /** Why there is none: no bwrap on PATH, or it cannot create namespaces here (its own message). */
  reason?: string;
}

/** What one session's commands run under. */
export interface SandboxPolicy {
  mode: SandboxMode;
  network: SandboxNetwork;
  /** Writable besides the workspace root (`workspace.allow`, `--add-dir`), as configured. */
  writable: string[];
}

/** The sandbox a session applies: its policy and the mechanism; kind "none" with mode not off means unavailable. */
export interface SessionSandbox extends SandboxPolicy {
  kind: SandboxKind;
  reason?: string;
  /** The mechanism's program (bwrap, sandbox-exec). */
  path?: string;
  /** In mode auto, whether a call that asks to run outside the sandbox (`sandbox: false`) may run. */
  allowEscalation: boolean;
}

/** How `init` and `result` name it: `{type, mode, network}`; type "none" when nothing enforces it. */
export interface SandboxReport {
  type: SandboxKind;
  mode: SandboxMode;
  network: SandboxNetwork;
}

export function sandboxReport(sandbox: SessionSandbox): SandboxReport {
  const enforced = sandbox.mode !== "off" && sandbox.kind !== "none";
  return {
    type: enforced ? sandbox.kind : "none",
    mode: enforced ? sandbox.mode : "off",
    network: enforced ? sandbox.network : true,
  };
}
