/**
 * ion in bridge mode (see bridge.ts), inside the sandbox: 127.0.0.1:PORT → the host proxy's Unix
 * socket, for as long as the command runs. Returns the command's exit status (128 + the signal's
 * number when a signal ended it); the listener goes with this process.
 */
import { constants } from "node:os";
import type { SocketHandler } from "bun";
import { BRIDGE_ENV } from "./bridge.ts";
import { attach, closed, drained, finished, forward, join, type PipeEnd, pipeEnd } from "./socket-pipe.ts";

/** `<socket path>:<port>` → its parts; the path may itself hold a colon. */
export function parseBridgeSpec(spec: string): { socketPath: string; port: number } | undefined {
  const colon = spec.lastIndexOf(":");
  const port = Number(spec.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { socketPath: spec.slice(0, colon), port };
}

const PROXY_SIDE: SocketHandler<PipeEnd> = {
  open: (socket) => attach(socket.data, socket),
  data: (socket, chunk) => forward(socket.data, chunk),
  drain: (socket) => drained(socket.data),
  end: (socket) => finished(socket.data),
  close: (socket) => closed(socket.data),
  error: (socket) => closed(socket.data),
};

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const;

export async function runBridge(spec: string, inner: string[]): Promise<number> {
  const target = parseBridgeSpec(spec);
  if (!target || inner.length === 0) {
    console.error(`ion: ${BRIDGE_ENV} must be <socket>:<port> followed by a command`);
    return 2;
  }
  const listener = Bun.listen<PipeEnd>({
    hostname: "127.0.0.1",
    port: target.port,
    allowHalfOpen: true,
    socket: {
      open(socket) {
        socket.data = pipeEnd();
        attach(socket.data, socket);
        const proxy = pipeEnd();
        join(socket.data, proxy);
        // What the client sends before the proxy's socket is open is held for it.
        Bun.connect<PipeEnd>({
          unix: target.socketPath,
          allowHalfOpen: true,
          data: proxy,
          socket: PROXY_SIDE,
        }).catch(() => socket.end());
      },
      data: (socket, chunk) => forward(socket.data, chunk),
      drain: (socket) => drained(socket.data),
      end: (socket) => finished(socket.data),
      close: (socket) => closed(socket.data),
      error: (socket) => closed(socket.data),
    },
  });
  const env = { ...process.env };
  delete env[BRIDGE_ENV];
  let child: Bun.Subprocess;
  try {
    child = Bun.spawn(inner, { stdio: ["inherit", "inherit", "inherit"], env });
  } catch (error) {
    listener.stop(true);
    console.error(`ion: cannot run ${inner[0]}: ${error instanceof Error ? error.message : String(error)}`);
    return 127;
  }
  // A signal meant for the command (bwrap's, a terminal's) is passed on rather than ending the bridge first.
  for (const signal of SIGNALS) process.on(signal, () => child.kill(signal));
  const code = await child.exited;
  listener.stop(true);
  if (child.signalCode)
    return 128 + (constants.signals[child.signalCode as keyof typeof constants.signals] ?? 0);
  return code;
}
