/**
 * A session's sandbox for `bash`: wraps a command's argv in bwrap or sandbox-exec by the session's
 * policy. It is built once per session (the mechanism found by `detectSandbox`); `wrap` is called per
 * command, so a chat's `/sandbox` change applies to the next command.
 */
import { realpathSync, statSync } from "node:fs";
import { bindOrder, bwrapArgv } from "./bwrap.ts";
import { seatbeltArgv } from "./seatbelt.ts";
import type { SandboxMode, SandboxNetwork, SessionSandbox } from "./types.ts";

export interface WrappedCommand {
  argv: string[];
  /** Variables to add to the command's environment (the proxy's). */
  env: Record<string, string>;
}

/** Existing directories as real paths; a missing or unreadable one is skipped (nothing to write into). */
function realDirs(dirs: readonly string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    try {
      const real = realpathSync(dir);
      if (statSync(real).isDirectory()) out.push(real);
    } catch {
      // A configured directory that does not exist has nothing to bind: the command cannot write there.
    }
  }
  return bindOrder(out);
}

export class CommandSandbox {
  /** `cacheFile`: where detection keeps its answer, forgotten when bwrap turns out not to work. */
  constructor(
    private settings: SessionSandbox,
    private readonly cacheFile?: string,
  ) {}

  /**
   * The mechanism failed to start a command (a kept answer gone stale): the next session probes again,
   * and this one's commands run unsandboxed only if the user turns the sandbox off.
   */
  async startFailed(): Promise<void> {
    if (this.cacheFile) await (await import("./detect.ts")).forgetSandboxAnswer(this.cacheFile);
  }

  get current(): SessionSandbox {
    return this.settings;
  }

  /** Whether commands run inside it now (a mode other than off, on a machine that has a mechanism). */
  get enforced(): boolean {
    return this.settings.mode !== "off" && this.settings.kind !== "none";
  }

  setMode(mode: SandboxMode): void {
    this.settings = { ...this.settings, mode };
  }

  setNetwork(network: SandboxNetwork): void {
    this.settings = { ...this.settings, network };
  }

  /**
   * The argv that runs `inner` in the sandbox, started in `cwd`, able to write `root` and the session's
   * writable directories (mode workspace-write). Unwrapped when not enforced.
   */
  wrap(inner: string[], cwd: string, root: string): WrappedCommand {
    const s = this.settings;
    if (!this.enforced || !s.path) return { argv: inner, env: {} };
    const dirs = realDirs([root, ...s.writable]);
    const writable = s.mode === "workspace-write" ? dirs : [];
    if (s.kind === "sandbox-exec") {
      const network = s.network === true ? { kind: "all" as const } : { kind: "none" as const };
      return {
        argv: seatbeltArgv(s.path, { writable, tmp: s.mode === "workspace-write", network }, inner),
        env: {},
      };
    }
    return {
      argv: bwrapArgv(
        s.path,
        { writable, visible: s.mode === "read-only" ? dirs : [], isolateNetwork: s.network !== true, cwd },
        inner,
      ),
      env: {},
    };
  }

  /** One line for the user: "bwrap · workspace-write · network off". */
  describe(): string {
    return describeSandbox(this.settings);
  }
}

export function networkWords(network: SandboxNetwork): string {
  if (network === true) return "network on";
  if (network === false || network.length === 0) return "network off";
  return `network: ${network.join(", ")}`;
}

export function describeSandbox(s: SessionSandbox): string {
  if (s.mode === "off") return "sandbox off";
  if (s.kind === "none") return `no sandbox (${s.reason ?? "none available"})`;
  return `${s.kind} · ${s.mode} · ${networkWords(s.network)}`;
}
