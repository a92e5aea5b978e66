import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressInfo, createServer } from "node:net";
import { MAX_FETCH_BYTES, MAX_FETCH_CHARS, webFetchTool } from "../../src/tools/web-fetch.ts";
import { useToolWorkspace } from "../support/tool-workspace.ts";

const ws = useToolWorkspace("ion-web-fetch-");

/** How many bytes of the too-large body the server got to send before the client stopped reading. */
let largeSent = 0;

const PAGE = `<!doctype html><html><head><title>T</title><style>p{color:red}</style>
<script>alert("x")</script></head><body><h1>Hello</h1><p>Some <strong>bold</strong> text with
<a href="/next">a link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>`;

function largeBody(): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode(`${"x".repeat(65_535)}\n`);
  largeSent = 0;
  return new ReadableStream({
    pull(controller) {
      // Endless unless the client stops reading: proves the body is read only up to the cap.
      if (largeSent > MAX_FETCH_BYTES * 4) return controller.close();
      largeSent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

let server: ReturnType<typeof Bun.serve>;
let base = "";

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url);
      const hop = /^\/hop\/(\d+)$/.exec(pathname);
      if (hop) {
        const n = Number(hop[1]);
        return new Response(null, { status: 302, headers: { location: n > 1 ? `/hop/${n - 1}` : "/page" } });
      }
      switch (pathname) {
        case "/page":
          return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
        case "/plain":
          return new Response("plain <b>text</b>\n\x1b[31mred\x1b[0m\n", {
            headers: { "content-type": "text/plain" },
          });
        case "/json":
          return Response.json({ a: 1, b: ["<x>"] });
        case "/large":
          return new Response(largeBody(), { headers: { "content-type": "text/plain" } });
        case "/long":
          return new Response("y".repeat(MAX_FETCH_CHARS * 2), { headers: { "content-type": "text/plain" } });
        case "/image":
          return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]), {
            headers: { "content-type": "image/png" },
          });
        case "/untyped-binary":
          return new Response(new Uint8Array([1, 0, 2, 0, 3]));
        case "/to-file":
          return new Response(null, { status: 301, headers: { location: "file:///etc/passwd" } });
        case "/slow":
          return new Promise<Response>(() => {}); // never answers: only the abort ends it
        case "/stall-body":
          // Headers and a first line, then nothing more: the body never ends.
          return new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode("first line\n"));
              },
            }),
            { headers: { "content-type": "text/plain" } },
          );
        default:
          return new Response("<p>nothing here</p>", {
            status: 404,
            headers: { "content-type": "text/html" },
          });
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

const fetchUrl = (url: string) => webFetchTool.execute({ url }, ws.ctx);

describe("web_fetch", () => {
  test("HTML comes back as Markdown, without scripts or styles", async () => {
    const out = await fetchUrl(`${base}/page`);
    expect(out.is_error).toBe(false);
    expect(out.content).toContain(`URL: ${base}/page`);
    expect(out.content).toContain("Status: 200");
    expect(out.content).toContain("# Hello");
    expect(out.content).toContain("Some **bold** text with [a link](/next).");
    expect(out.content).toMatch(/^-\s+one$/m);
    expect(out.content).not.toContain("T \n");
    expect(out.content).not.toContain("alert");
    expect(out.content).not.toContain("color:red");
  });

  test("plain text and JSON are returned as they are", async () => {
    expect((await fetchUrl(`${base}/plain`)).content).toContain("plain <b>text</b>");
    expect((await fetchUrl(`${base}/json`)).content).toContain('{"a":1,"b":["<x>"]}');
  });

  test("a redirect chain is followed up to 5 hops, and no further", async () => {
    const ok = await fetchUrl(`${base}/hop/5`);
    expect(ok.is_error).toBe(false);
    expect(ok.content).toContain(`URL: ${base}/page`);
    expect(ok.content).toContain("# Hello");
    const tooMany = await fetchUrl(`${base}/hop/6`);
    expect(tooMany.is_error).toBe(true);
    expect(tooMany.content).toContain("too many redirects");
  });

  test("a redirect to another scheme is refused", async () => {
    const out = await fetchUrl(`${base}/to-file`);
    expect(out.is_error).toBe(true);
    expect(out.content).toContain("only fetches http and https URLs, not file:");
  });

  test("non-http schemes and invalid URLs are refused before anything is fetched", async () => {
    for (const url of [
      "file:///etc/passwd",
      "ftp://127.0.0.1/x",
      "data:text/plain,hi",
      "javascript:alert(1)",
    ]) {
      const out = await fetchUrl(url);
      expect(out.is_error).toBe(true);
      expect(out.content).toContain("only fetches http and https URLs");
    }
    const bad = await fetchUrl("not a url");
    expect(bad).toEqual({ is_error: true, content: "not a valid URL: not a url" });
  });

  test("a too-large body is read only up to the cap and the returned text is capped too", async () => {
    const out = await fetchUrl(`${base}/large`);
    expect(out.is_error).toBe(false);
    expect(out.content).toContain(`[the body was cut at ${MAX_FETCH_BYTES} bytes]`);
    expect(out.content).toContain("[… truncated:");
    expect(out.content.length).toBeLessThan(MAX_FETCH_CHARS + 500);
    // The server stopped well before its endless body's end: the client stopped reading.
    expect(largeSent).toBeLessThan(MAX_FETCH_BYTES * 3);
    const long = await fetchUrl(`${base}/long`);
    expect(long.content).toContain(`[… truncated: ${MAX_FETCH_CHARS} more characters not shown]`);
  });

  test("binary content is refused, by its type or by its bytes", async () => {
    const image = await fetchUrl(`${base}/image`);
    expect(image.is_error).toBe(true);
    expect(image.content).toContain("is not text (image/png)");
    const untyped = await fetchUrl(`${base}/untyped-binary`);
    expect(untyped.is_error).toBe(true);
    expect(untyped.content).toContain("binary");
  });

  test("an HTTP error status is an error result with the page's text", async () => {
    const out = await fetchUrl(`${base}/missing`);
    expect(out.is_error).toBe(true);
    expect(out.content).toContain("Status: 404");
    expect(out.content).toContain("nothing here");
  });

  test("the call's abort signal stops a fetch that hangs", async () => {
    const controller = new AbortController();
    const pending = webFetchTool.execute({ url: `${base}/slow` }, { ...ws.ctx, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const out = await pending;
    expect(out.is_error).toBe(true);
    expect(out.content).toContain("was cancelled");
  });

  test("the call's abort signal stops a server that stalls mid-body: an error result, not a crash", async () => {
    const controller = new AbortController();
    const pending = webFetchTool.execute(
      { url: `${base}/stall-body` },
      { ...ws.ctx, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 100);
    const out = await pending;
    expect(out.is_error).toBe(true);
    expect(out.content).toBe(`web_fetch of ${base}/stall-body was cancelled`);
  });

  test("a connection the server drops says so, without Bun's advice to pass `verbose: true` to fetch()", async () => {
    const dropper = createServer((socket) => socket.once("data", () => socket.destroy()));
    await new Promise<void>((resolve) => dropper.listen(0, "127.0.0.1", resolve));
    const { port } = dropper.address() as AddressInfo;
    try {
      const out = await fetchUrl(`http://127.0.0.1:${port}/`);
      expect(out.is_error).toBe(true);
      expect(out.content).toStartWith(`could not fetch http://127.0.0.1:${port}/: ECONNRESET`);
      expect(out.content).not.toContain("verbose");
      expect(out.content).not.toContain("fetch()");
    } finally {
      dropper.close();
    }
  });

  test("a closed port is an error result, not a crash", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}/`;
    closed.stop(true);
    const out = await fetchUrl(url);
    expect(out.is_error).toBe(true);
    expect(out.content).toContain(`could not fetch ${url}`);
  });
});
