/**
 * A fake LLM server for tests: `Bun.serve` on 127.0.0.1, port 0. Tests queue responses (raw bytes in
 * a wire's exact framing, usually built by `wire-scripts.ts` or read from ../shared/fixtures) and the
 * server answers requests in order, recording each one so tests can assert on what ion sent.
 */
import type { Server } from "bun";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  /** The body, sent as `chunks` (each written separately) or as one string. */
  body?: string;
  chunks?: string[];
  /** Delay between chunks, in ms (default 0). */
  chunkDelayMs?: number;
  /** Close the connection abruptly after this many chunks have been written. */
  dropAfterChunks?: number;
  /** After this many chunks, stop writing and hold the connection open until the client gives up. */
  stallAfterChunks?: number;
  /** Only answer requests whose path ends with this (default: any path). */
  pathSuffix?: string;
}

export interface FakeLLM {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Queue responses; each request takes the first queued response whose pathSuffix matches. */
  enqueue(...responses: FakeResponse[]): void;
  /** Responses still queued. */
  pending(): number;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const encoder = new TextEncoder();

function bodyStream(response: FakeResponse): ReadableStream<Uint8Array> {
  const chunks = response.chunks ?? (response.body === undefined ? [] : [response.body]);
  let index = 0;
  let stalled: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (response.dropAfterChunks !== undefined && index >= response.dropAfterChunks) {
        controller.error(new Error("fake server: connection dropped"));
        return;
      }
      if (response.stallAfterChunks !== undefined && index >= response.stallAfterChunks) {
        await new Promise<void>((resolve) => {
          stalled = resolve;
        });
        return;
      }
      if (index >= chunks.length) {
        controller.close();
        return;
      }
      if (index > 0 && response.chunkDelayMs) await Bun.sleep(response.chunkDelayMs);
      controller.enqueue(encoder.encode(chunks[index++]));
    },
    cancel() {
      stalled?.();
    },
  });
}

export async function startFakeLLM(): Promise<FakeLLM> {
  const queue: FakeResponse[] = [];
  const requests: RecordedRequest[] = [];

  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    // A dropped stream is an intended fault, not a server error worth logging.
    error: () => new Response(null, { status: 500 }),
    async fetch(req) {
      const url = new URL(req.url);
      const text = await req.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON: keep the raw text so the test can see what was sent.
      }
      const headers: Record<string, string> = {};
      req.headers.forEach((value, key) => {
        headers[key] = value;
      });
      requests.push({ method: req.method, path: url.pathname + url.search, headers, body });

      const at = queue.findIndex((r) => !r.pathSuffix || url.pathname.endsWith(r.pathSuffix));
      if (at < 0) {
        return new Response(
          JSON.stringify({ error: { message: `fake server: nothing queued for ${url.pathname}` } }),
          {
            status: 599,
            headers: { "content-type": "application/json" },
          },
        );
      }
      const response = queue.splice(at, 1)[0]!;
      return new Response(bodyStream(response), {
        status: response.status ?? 200,
        headers: { "content-type": "text/event-stream", ...response.headers },
      });
    },
  });

  const stop = async () => {
    await server.stop(true);
  };
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port ?? 0,
    requests,
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    pending: () => queue.length,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Split a fixture's SSE/NDJSON text into its events, keeping each event's exact bytes and framing. */
export function splitFrames(text: string): string[] {
  const frames = text.match(/[\s\S]*?(?:\r\n\r\n|\n\n|(?<!\n)\n(?=\{)|$)/g) ?? [text];
  return frames.filter((f) => f.length > 0);
}

export const FIXTURES = new URL("../../../shared/fixtures/", import.meta.url).pathname;

export async function fixtureText(relative: string): Promise<string> {
  return Bun.file(FIXTURES + relative).text();
}
