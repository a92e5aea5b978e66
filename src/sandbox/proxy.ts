/**
 * The host proxy behind `sandbox.network: [hosts]`: an HTTP proxy that lets a sandboxed command reach the
 * listed hosts only. It listens on a Unix socket in a private directory (bound into bwrap's sandbox,
 * whose own network namespace has only loopback; the bridge connects to it) and on 127.0.0.1 TCP (the
 * macOS route: the Seatbelt profile allows only that port). `CONNECT host:port` (https, or any TCP)
 * and absolute-URI requests (`GET http://host/path`) to a listed host are passed through; any other
 * host gets 403 naming it and `sandbox.network`; anything else 400. Only the request head is read;
 * bodies and tunnelled bytes are piped, never logged.
 *
 *   const proxy = await startHostProxy(["api.github.com", "*.npmjs.org"], dir); // dir: 0700, the caller's
 *   // proxy.socketPath = dir/proxy.sock, proxy.port = the TCP port; … await proxy.close();
 */
import { rmSync } from "node:fs";
import { isIP } from "node:net";
import { join as joinPath } from "node:path";
import type { Socket, SocketHandler } from "bun";
import {
  attach,
  closed,
  drained,
  finished,
  forward,
  join,
  type PipeEnd,
  pipeEnd,
  send,
} from "./socket-pipe.ts";

export interface HostProxy {
  socketPath: string;
  /** The 127.0.0.1 TCP port (the macOS route). */
  port: number;
  close(): Promise<void>;
}

/** A request head larger than this is refused (400): a proxy request's head is a few hundred bytes. */
const MAX_HEAD = 64 * 1024;

/** The host as the rules compare it: lower case, no trailing dot, an IPv6 literal without brackets. */
function normalHost(host: string): string {
  const lower = host.toLowerCase().replace(/\.$/, "");
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
}

/**
 * Whether `host` is allowed by `hosts`: an exact name (any case), or `*.example.com` for any subdomain
 * of example.com (not example.com itself). An IP literal only when listed as such.
 */
export function hostAllowed(host: string, hosts: string[]): boolean {
  const name = normalHost(host);
  if (name === "") return false;
  const literal = isIP(name) !== 0;
  return hosts.some((rule) => {
    const pattern = normalHost(rule.trim());
    if (pattern.startsWith("*."))
      return !literal && name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
    return pattern === name;
  });
}

/** The connection to the host: what the client is told once it is open (CONNECT's 200). */
interface UpstreamEnd extends PipeEnd {
  greeting?: string;
}

/** A client connection: its pipe end, and the request head until it is complete. */
interface ClientEnd extends PipeEnd {
  head?: Uint8Array;
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;
const REQUEST_LINE = /^([A-Za-z]+) (\S+) (HTTP\/1\.[01])$/;
/** Headers meant for the proxy or the client's connection to it, not for the origin server. */
const HOP_HEADERS = /^(proxy-connection|proxy-authorization|connection|keep-alive):/i;

type Target =
  | { host: string; port: number; connect: true }
  | { host: string; port: number; connect: false; head: string };

/** The request's target, or the status to answer with. */
function parseHead(head: string): Target | { status: 400 } {
  const lines = head.split("\r\n");
  const match = REQUEST_LINE.exec(lines[0] ?? "");
  if (!match) return { status: 400 };
  const [, method, target, version] = match as unknown as [string, string, string, string];
  if (method.toUpperCase() === "CONNECT") {
    const hostPort = HOST_PORT.exec(target);
    const port = Number(hostPort?.[2]);
    if (!hostPort || !(port >= 1 && port <= 65535)) return { status: 400 };
    return { host: normalHost(hostPort[1] as string), port, connect: true };
  }
  if (!/^http:\/\//i.test(target)) return { status: 400 };
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { status: 400 };
  }
  if (url.hostname === "") return { status: 400 };
  // Origin-form to the server, and one request per upstream connection: a client that reuses its
  // connection to the proxy for another host must not have that request land on this host.
  const headers = lines.slice(1).filter((line) => line !== "" && !HOP_HEADERS.test(line));
  if (!headers.some((line) => /^host:/i.test(line))) headers.unshift(`Host: ${url.host}`);
  const rewritten = [
    `${method} ${url.pathname}${url.search} ${version}`,
    ...headers,
    "Connection: close",
    "",
    "",
  ];
  return {
    host: normalHost(url.hostname),
    port: Number(url.port || 80),
    connect: false,
    head: rewritten.join("\r\n"),
  };
}

function response(status: string, body: string): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Answers and closes (after the answer is out). */
function refuse(client: ClientEnd, status: string, body: string): void {
  send(client, response(status, body));
  client.closePending = true;
  drained(client);
}

function indexOfHeadEnd(bytes: Uint8Array): number {
  for (let i = 3; i < bytes.length; i++)
    if (bytes[i] === 10 && bytes[i - 1] === 13 && bytes[i - 2] === 10 && bytes[i - 3] === 13) return i + 1;
  return -1;
}

export async function startHostProxy(hosts: string[], dir: string): Promise<HostProxy> {
  const socketPath = joinPath(dir, "proxy.sock");
  const open = new Set<{ terminate(): void }>();
  const upstreamHandlers: SocketHandler<UpstreamEnd> = {
    open(socket) {
      open.add(socket);
      // Before any byte from the server (one that speaks first must not get ahead of the 200).
      if (socket.data.greeting && socket.data.peer) send(socket.data.peer, socket.data.greeting);
      attach(socket.data, socket);
    },
    data: (socket, chunk) => forward(socket.data, chunk),
    drain: (socket) => drained(socket.data),
    end: (socket) => finished(socket.data),
    close(socket) {
      open.delete(socket);
      closed(socket.data);
    },
    error: (socket) => closed(socket.data),
  };

  /** The head is complete: check the host, connect, and join the two ends. */
  const route = (client: ClientEnd, socket: Socket<PipeEnd>, head: Uint8Array, rest: Uint8Array) => {
    const target = parseHead(new TextDecoder("latin1").decode(head));
    if ("status" in target) return refuse(client, "400 Bad Request", "ion sandbox: not a proxy request\n");
    if (!hostAllowed(target.host, hosts))
      return refuse(client, "403 Forbidden", `ion sandbox: ${target.host} is not in sandbox.network\n`);
    const upstream: UpstreamEnd = pipeEnd();
    if (target.connect) upstream.greeting = "HTTP/1.1 200 Connection Established\r\n\r\n";
    join(client, upstream);
    if (!target.connect) send(upstream, target.head);
    send(upstream, rest);
    // Until the upstream answers, what the client sends waits in the kernel's buffers.
    socket.pause();
    Bun.connect<UpstreamEnd>({
      hostname: target.host,
      port: target.port,
      allowHalfOpen: true,
      data: upstream,
      socket: upstreamHandlers,
    }).then(
      () => socket.resume(),
      () => {
        client.peer = undefined;
        refuse(client, "502 Bad Gateway", `ion sandbox: cannot connect to ${target.host}:${target.port}\n`);
      },
    );
  };

  const handlers: SocketHandler<PipeEnd> = {
    open(socket) {
      socket.data = pipeEnd();
      open.add(socket);
      attach(socket.data, socket);
    },
    data(socket, chunk) {
      const client = socket.data as ClientEnd;
      if (client.peer || client.closePending) return forward(client, chunk);
      const bytes = client.head ? Buffer.concat([client.head, chunk]) : new Uint8Array(chunk);
      const end = indexOfHeadEnd(bytes);
      if (end < 0) {
        if (bytes.length > MAX_HEAD)
          return refuse(client, "400 Bad Request", "ion sandbox: request head too large\n");
        client.head = bytes;
        return;
      }
      client.head = undefined;
      route(client, socket, bytes.subarray(0, end), bytes.subarray(end));
    },
    drain: (socket) => drained(socket.data),
    end: (socket) => finished(socket.data),
    close(socket) {
      open.delete(socket);
      closed(socket.data);
    },
    error: (socket) => closed(socket.data),
  };

  rmSync(socketPath, { force: true });
  const unix = Bun.listen<PipeEnd>({ unix: socketPath, allowHalfOpen: true, socket: handlers });
  const tcp = Bun.listen<PipeEnd>({ hostname: "127.0.0.1", port: 0, allowHalfOpen: true, socket: handlers });
  return {
    socketPath,
    port: tcp.port,
    async close() {
      unix.stop(true);
      tcp.stop(true);
      for (const socket of open) socket.terminate();
      open.clear();
      rmSync(socketPath, { force: true });
    },
  };
}
