/**
 * The way from inside bwrap's sandbox to the host proxy: the sandbox's own network namespace has only
 * loopback, so ion itself is started inside it in bridge mode (no socat needed) — it listens on
 * 127.0.0.1:PORT there, forwards each connection to the proxy's Unix socket (its directory bound into
 * the sandbox), runs the command, and exits with the command's status. The mode is chosen by
 * BRIDGE_ENV, which main.ts checks before loading anything else.
 *
 *   bridgeArgv("/run/ion-x/proxy.sock", 3128, ["bash", "-c", "curl https://api.github.com"])
 *   → ["/usr/bin/env", "ION_SANDBOX_BRIDGE=/run/ion-x/proxy.sock:3128", "/usr/local/bin/ion", "bash", "-c", "curl …"]
 *   (from source: …, "/usr/bin/bun", "/path/to/src/main.ts", "bash", …)
 */
import { dirname, join } from "node:path";

/** The variable that starts ion in bridge mode: `<socket path>:<port>`. */
export const BRIDGE_ENV = "ION_SANDBOX_BRIDGE";

function compiled(): boolean {
  return Bun.main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/.test(Bun.main);
}

/** ion's own command line: the compiled binary, or bun with src/main.ts when run from source. */
function ionArgv(): string[] {
  return compiled() ? [process.execPath] : [process.execPath, join(import.meta.dir, "..", "main.ts")];
}

/**
 * Directories the bridge's program lives in, to be bound read-only into the sandbox: under the host's
 * /tmp (a checkout, an unpacked download) they would be hidden by the sandbox's own /tmp.
 */
export function bridgeDirs(): string[] {
  const dirs = [dirname(process.execPath)];
  // From source: the checkout, with src/ and node_modules/.
  if (!compiled()) dirs.push(join(import.meta.dir, "..", ".."));
  return dirs;
}

/** argv that, run inside the sandbox, listens on 127.0.0.1:port, forwards to socketPath, runs `inner`, exits with its status. */
export function bridgeArgv(socketPath: string, port: number, inner: string[]): string[] {
  // env(1) sets the marker: the argv is all the sandbox passes through, and ion's own command line
  // stays free of a mode a user could type.
  return ["/usr/bin/env", `${BRIDGE_ENV}=${socketPath}:${port}`, ...ionArgv(), ...inner];
}

/**
 * The proxy variables for a command behind the bridge (upper and lower case: tools read one or the
 * other). NO_PROXY is emptied: nothing may bypass the proxy, and there is no other way out anyway.
 */
export function proxyEnv(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    NO_PROXY: "",
    no_proxy: "",
  };
}
