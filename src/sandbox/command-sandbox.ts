/**
 * A session's sandbox for `bash`: wraps a command's argv in bwrap or sandbox-exec by the session's
 * policy. It is built once per session (the mechanism found by `detectSandbox`); `wrap` is called per
 * command, so a chat's `/sandbox` change applies to the next command.
 */
import { realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { bindOrder, bwrapArgv } from "./bwrap.ts";
import type { HostProxy } from "./proxy.ts";
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

/** Where the bridge listens inside the sandbox's own network namespace (nothing else is there). */
const BRIDGE_PORT = 3128;

export class CommandSandbox {
  private proxy: { key: string; dir: string; running: Promise<HostProxy> } | undefined;

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
  async wrap(inner: string[], cwd: string, root: string): Promise<WrappedCommand> {
    const s = this.settings;
    if (!this.enforced || !s.path) return { argv: inner, env: {} };
    const dirs = realDirs([root, ...s.writable]);
    const writable = s.mode === "workspace-write" ? dirs : [];
    const hosts = Array.isArray(s.network) && s.network.length > 0 ? s.network : undefined;
    const proxy = hosts ? await this.hostProxy(hosts) : undefined;
    const bridge = proxy ? await import("./bridge.ts") : undefined;
    if (s.kind === "sandbox-exec") {
      const network =
        s.network === true
          ? { kind: "all" as const }
          : proxy
            ? { kind: "proxy" as const, port: proxy.port }
            : { kind: "none" as const };
      return {
        argv: seatbeltArgv(s.path, { writable, tmp: s.mode === "workspace-write", network }, inner),
        env: proxy && bridge ? bridge.proxyEnv(proxy.port) : {},
      };
    }
    // A host list: ion itself runs inside as the bridge from the sandbox's loopback to the proxy's socket.
    const command = proxy && bridge ? bridge.bridgeArgv(proxy.socketPath, BRIDGE_PORT, inner) : inner;
    return {
      argv: bwrapArgv(
        s.path,
        {
          writable,
          visible: [
            ...(s.mode === "read-only" ? dirs : []),
            ...(bridge ? realDirs(bridge.bridgeDirs()) : []),
          ],
          isolateNetwork: s.network !== true,
          cwd,
          ...(proxy ? { extraBinds: [dirname(proxy.socketPath)] } : {}),
        },
        command,
      ),
      env: proxy && bridge ? bridge.proxyEnv(BRIDGE_PORT) : {},
    };
  }

  /** The session's filtering proxy for these hosts, started on first use (again when the list changed). */
  private async hostProxy(hosts: string[]): Promise<HostProxy> {
    const key = hosts.join("\n");
    if (this.proxy && this.proxy.key === key) return this.proxy.running;
    await this.close();
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { startHostProxy } = await import("./proxy.ts");
    const dir = mkdtempSync(join(tmpdir(), "ion-proxy-"));
    const running = startHostProxy(hosts, dir);
    this.proxy = { key, dir, running };
    return running;
  }

  /** Stops the proxy, if one was started, and removes its directory. */
  async close(): Promise<void> {
    const proxy = this.proxy;
    this.proxy = undefined;
    if (!proxy) return;
    try {
      await (await proxy.running).close();
    } finally {
      const { rm } = await import("node:fs/promises");
      await rm(proxy.dir, { recursive: true, force: true });
    }
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
