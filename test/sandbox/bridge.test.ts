/**
 * The bridge from inside bwrap's sandbox (own network namespace, loopback only) to the host proxy: a
 * real bwrap with --unshare-net, ion from source in bridge mode, and a 127.0.0.1 server outside that
 * the command reaches only through the proxy — when its host is listed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BRIDGE_ENV, bridgeArgv, proxyEnv } from "../../src/sandbox/bridge.ts";
import { parseBridgeSpec } from "../../src/sandbox/bridge-main.ts";
import { type HostProxy, startHostProxy } from "../../src/sandbox/proxy.ts";

const BWRAP = Bun.which("bwrap");
const PORT = 3128;

describe("bridgeArgv and proxyEnv", () => {
  test("env sets the marker, then ion from source (bun + src/main.ts), then the command", () => {
    const argv = bridgeArgv("/d/proxy.sock", PORT, ["sh", "-c", "true"]);
    expect(argv.slice(0, 3)).toEqual([
      "/usr/bin/env",
      `${BRIDGE_ENV}=/d/proxy.sock:${PORT}`,
      process.execPath,
    ]);
    expect(argv[3]).toBe(join(import.meta.dir, "../../src/main.ts"));
    expect(argv.slice(4)).toEqual(["sh", "-c", "true"]);
  });

  test("every proxy variable points at the bridge; NO_PROXY emptied", () => {
    const env = proxyEnv(PORT);
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"])
      expect(env[name]).toBe(`http://127.0.0.1:${PORT}`);
    expect(env.NO_PROXY).toBe("");
    expect(env.no_proxy).toBe("");
  });

  test("the spec: the last colon splits path and port", () => {
    expect(parseBridgeSpec("/a:b/proxy.sock:3128")).toEqual({ socketPath: "/a:b/proxy.sock", port: 3128 });
    expect(parseBridgeSpec("/a/proxy.sock")).toBeUndefined();
    expect(parseBridgeSpec("/a/proxy.sock:0")).toBeUndefined();
  });
});

let dir: string;
let proxy: HostProxy;
let web: ReturnType<typeof Bun.serve>;

/** Runs `script` with sh under bwrap (network unshared, the proxy's dir bound) behind the bridge. */
async function sandboxed(script: string): Promise<{ out: string; err: string; code: number }> {
  const argv = [
    BWRAP as string,
    ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--bind", dir, dir, "--"],
    ...bridgeArgv(proxy.socketPath, PORT, ["sh", "-c", script]),
  ];
  const child = Bun.spawn(argv, {
    env: { ...process.env, ...proxyEnv(PORT) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { out, err, code };
}

describe.skipIf(!BWRAP)(
  BWRAP ? "inside bwrap --unshare-net" : "inside bwrap (skipped: no bwrap on PATH)",
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "ion-bridge-"));
      web = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (request) => new Response(`outside ${new URL(request.url).pathname}`),
      });
      proxy = await startHostProxy(["127.0.0.1"], dir);
    });

    afterAll(async () => {
      await proxy?.close();
      web?.stop(true);
      rmSync(dir, { recursive: true, force: true });
    });

    test("bun's fetch reaches a listed host through HTTP_PROXY; the marker is gone; the command's status is ion's", async () => {
      const fetchCode = `console.log(await (await fetch("http://127.0.0.1:${web.port}/in")).text())`;
      const result = await sandboxed(
        `bun -e '${fetchCode}' && echo "marker=\${${BRIDGE_ENV}:-unset}"; exit 7`,
      );
      expect(result.err).toBe("");
      expect(result.out).toBe("outside /in\nmarker=unset\n");
      expect(result.code).toBe(7);
    });

    test("a host not listed gets the proxy's 403 naming it", async () => {
      const fetchCode = `const r = await fetch("http://localhost:${web.port}/"); console.log(r.status, await r.text())`;
      const result = await sandboxed(`bun -e '${fetchCode}'`);
      expect(result.out).toBe("403 ion sandbox: localhost is not in sandbox.network\n\n");
      expect(result.code).toBe(0);
    });

    test("without the proxy variables there is no way out (own network namespace)", async () => {
      const fetchCode = `await fetch("http://127.0.0.1:${web.port}/")`;
      const result = await sandboxed(
        `env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy bun -e '${fetchCode}'`,
      );
      expect(result.code).not.toBe(0);
    });

    test.skipIf(!Bun.which("curl"))(
      "curl through the bridge: listed host served, another refused",
      async () => {
        const result = await sandboxed(
          `curl -sS http://127.0.0.1:${web.port}/curl; echo; curl -s http://127.0.0.2:${web.port}/`,
        );
        expect(result.out).toBe("outside /curl\nion sandbox: 127.0.0.2 is not in sandbox.network\n");
      },
    );

    // bridgeArgv starts the compiled binary itself there (process.execPath); this runs that binary the same way.
    test.skipIf(!process.env.ION_BIN)("the compiled binary as the bridge (ION_BIN)", async () => {
      const bin = resolve(import.meta.dir, "../..", process.env.ION_BIN as string);
      const fetchCode = `console.log(await (await fetch("http://127.0.0.1:${web.port}/bin")).text())`;
      const argv = [
        BWRAP as string,
        ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net"],
      ];
      argv.push("--bind", dir, dir, "--", "/usr/bin/env", `${BRIDGE_ENV}=${proxy.socketPath}:${PORT}`, bin);
      argv.push("sh", "-c", `bun -e '${fetchCode}'; exit 5`);
      const child = Bun.spawn(argv, {
        env: { ...process.env, ...proxyEnv(PORT) },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(await new Response(child.stdout).text()).toBe("outside /bin\n");
      expect(await child.exited).toBe(5);
    });

    test("a command ended by a signal: 128 + its number", async () => {
      const result = await sandboxed("kill -TERM $$");
      expect(result.code).toBe(143);
    });
  },
);
