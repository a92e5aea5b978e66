/**
 * The host proxy behind `sandbox.network: [hosts]`, over real sockets: CONNECT tunnels to an allowed
 * host (a 127.0.0.1 echo server — CONNECT carries any TCP), absolute-URI requests forwarded in
 * origin form, 403 for a host not listed, 400 for anything that is not a proxy request, half-close
 * passed through, and the host rules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SocketHandler, TCPSocketListener } from "bun";
import { type HostProxy, hostAllowed, startHostProxy } from "../../src/sandbox/proxy.ts";

describe("hostAllowed", () => {
  test("exact names in any case, a trailing dot ignored", () => {
    expect(hostAllowed("API.GitHub.com", ["api.github.com"])).toBe(true);
    expect(hostAllowed("api.github.com.", ["api.github.com"])).toBe(true);
    expect(hostAllowed("github.com", ["api.github.com"])).toBe(false);
    expect(hostAllowed("evilapi.github.com", ["api.github.com"])).toBe(false);
  });

  test("*.example.com: any subdomain, not the apex nor a look-alike", () => {
    const rules = ["*.npmjs.org"];
    expect(hostAllowed("registry.npmjs.org", rules)).toBe(true);
    expect(hostAllowed("a.b.npmjs.org", rules)).toBe(true);
    expect(hostAllowed("npmjs.org", rules)).toBe(false);
    expect(hostAllowed("evilnpmjs.org", rules)).toBe(false);
    expect(hostAllowed("registry.npmjs.org.evil.com", rules)).toBe(false);
  });

  test("IP literals only when listed", () => {
    expect(hostAllowed("127.0.0.1", ["127.0.0.1"])).toBe(true);
    expect(hostAllowed("127.0.0.2", ["127.0.0.1"])).toBe(false);
    expect(hostAllowed("[::1]", ["::1"])).toBe(true);
    expect(hostAllowed("10.0.0.1", ["*.0.0.1"])).toBe(false);
    expect(hostAllowed("", ["*.x"])).toBe(false);
  });
});

/** Sends `request` over a fresh connection (TCP port or Unix socket), optionally half-closes, and returns all it gets back. */
async function exchange(
  to: { port: number } | { unix: string },
  request: string,
  halfClose = false,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  const { promise, resolve } = Promise.withResolvers<void>();
  let unsent = Buffer.from(request);
  const write = (s: { write(b: Uint8Array): number; shutdown(): void }) => {
    unsent = unsent.subarray(Math.max(0, s.write(unsent)));
    if (unsent.length === 0 && halfClose) s.shutdown();
  };
  const handlers: SocketHandler = {
    open: write,
    drain: (s) => {
      if (unsent.length > 0) write(s);
    },
    data: (_s, chunk) => {
      chunks.push(new Uint8Array(chunk));
    },
    end: (s) => {
      s.end();
      resolve();
    },
    close: () => resolve(),
    error: () => resolve(),
  };
  if ("port" in to)
    await Bun.connect({ hostname: "127.0.0.1", port: to.port, allowHalfOpen: true, socket: handlers });
  else await Bun.connect({ unix: to.unix, allowHalfOpen: true, socket: handlers });
  await promise;
  return Buffer.concat(chunks).toString();
}

let dir: string;
let proxy: HostProxy;
let echo: TCPSocketListener<{ count: number }>;
let web: ReturnType<typeof Bun.serve>;
let seen: { path: string; connection: string | null; body: string }[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ion-proxy-"));
  seen = [];
  // Echoes the first bytes, counts them all, and on the client's FIN answers the count then closes:
  // a half-closed tunnel still carries the reply.
  echo = Bun.listen<{ count: number }>({
    hostname: "127.0.0.1",
    port: 0,
    allowHalfOpen: true,
    socket: {
      open: (s) => {
        s.data = { count: 0 };
      },
      data: (s, chunk) => {
        if (s.data.count === 0) s.write(chunk.subarray(0, 16));
        s.data.count += chunk.length;
      },
      end: (s) => {
        s.end(` got ${s.data.count}`);
      },
    },
  });
  web = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      seen.push({
        path: url.pathname + url.search,
        connection: request.headers.get("connection"),
        body: await request.text(),
      });
      return new Response(`served ${url.pathname}`);
    },
  });
  proxy = await startHostProxy(["127.0.0.1", "*.allowed.test"], dir);
});

afterAll(async () => {
  await proxy.close();
  echo.stop(true);
  web.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("startHostProxy", () => {
  test("listens on dir/proxy.sock and on a 127.0.0.1 port", () => {
    expect(proxy.socketPath).toBe(join(dir, "proxy.sock"));
    expect(proxy.port).toBeGreaterThan(0);
  });

  test("CONNECT to an allowed host: 200, then bytes both ways, and a half-close passed on", async () => {
    const reply = await exchange(
      { port: proxy.port },
      `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nHost: 127.0.0.1:${echo.port}\r\n\r\nping`,
      true,
    );
    expect(reply).toBe("HTTP/1.1 200 Connection Established\r\n\r\nping got 4");
  });

  test("the same over the Unix socket", async () => {
    const reply = await exchange(
      { unix: proxy.socketPath },
      `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\nhello`,
      true,
    );
    expect(reply).toBe("HTTP/1.1 200 Connection Established\r\n\r\nhello got 5");
  });

  test("a large transfer through the tunnel arrives whole (backpressure)", async () => {
    const payload = "x".repeat(8 * 1024 * 1024);
    const reply = await exchange(
      { port: proxy.port },
      `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\n${payload}`,
      true,
    );
    expect(reply).toBe(`HTTP/1.1 200 Connection Established\r\n\r\n${"x".repeat(16)} got ${payload.length}`);
  });

  test("an absolute-URI request is forwarded in origin form with its body, one request per connection", async () => {
    const body = "a=1";
    const reply = await exchange(
      { port: proxy.port },
      `POST http://127.0.0.1:${web.port}/p?q=2 HTTP/1.1\r\nHost: 127.0.0.1:${web.port}\r\nProxy-Connection: keep-alive\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(reply.startsWith("HTTP/1.1 200")).toBe(true);
    expect(reply.endsWith("served /p")).toBe(true);
    expect(seen.at(-1)).toEqual({ path: "/p?q=2", connection: "close", body });
  });

  test("Bun's fetch through it (the proxy option, as HTTP_PROXY sets it)", async () => {
    const response = await fetch(`http://127.0.0.1:${web.port}/via-fetch`, {
      proxy: `http://127.0.0.1:${proxy.port}`,
    });
    expect(await response.text()).toBe("served /via-fetch");
  });

  test("a host not listed gets 403 naming it and sandbox.network, for CONNECT and plain HTTP", async () => {
    const denied = await exchange({ port: proxy.port }, "CONNECT example.com:443 HTTP/1.1\r\n\r\n");
    expect(denied).toStartWith("HTTP/1.1 403 Forbidden\r\n");
    expect(denied).toEndWith("\r\n\r\nion sandbox: example.com is not in sandbox.network\n");
    const plain = await exchange({ port: proxy.port }, `GET http://localhost:${web.port}/ HTTP/1.1\r\n\r\n`);
    expect(plain).toEndWith("ion sandbox: localhost is not in sandbox.network\n");
    const apex = await exchange({ port: proxy.port }, "CONNECT allowed.test:443 HTTP/1.1\r\n\r\n");
    expect(apex).toStartWith("HTTP/1.1 403");
    const otherIp = await exchange({ port: proxy.port }, `CONNECT 127.0.0.2:${echo.port} HTTP/1.1\r\n\r\n`);
    expect(otherIp).toStartWith("HTTP/1.1 403");
    expect(seen.some((request) => request.path === "/")).toBe(false);
  });

  test("not a proxy request: 400", async () => {
    for (const request of [
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
      "CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n",
      "CONNECT 127.0.0.1:99999 HTTP/1.1\r\n\r\n",
      "GET https://127.0.0.1/ HTTP/1.1\r\n\r\n",
      "hello\r\n\r\n",
    ])
      expect(await exchange({ port: proxy.port }, request)).toStartWith("HTTP/1.1 400 Bad Request\r\n");
  });

  test("an allowed host that does not answer: 502", async () => {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = closed.port;
    closed.stop(true);
    expect(await exchange({ port: proxy.port }, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`)).toStartWith(
      "HTTP/1.1 502 Bad Gateway\r\n",
    );
  });
});
