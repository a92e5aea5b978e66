/**
 * A fake LLM server for tests: HTTP/1.1 on 127.0.0.1, port 0. Tests queue responses (raw bytes in a
 * wire's exact framing, usually built by `wire-scripts.ts` or read from ../shared/fixtures) and the
 * server answers requests in order, recording each one so tests can assert on what ion sent.
 *
 * It speaks HTTP over a raw `Bun.listen` socket rather than `Bun.serve` so that faults are exact and
 * quiet: a dropped stream writes its chunks, then closes the socket in the middle of the chunked body
 * (the client sees ECONNRESET / an incomplete body, nothing is printed), and a stalled stream simply
 * stops writing until the client goes away (after some chunks, or before even the status line).
 */
import { STATUS_CODES } from "node:http";
import type { Socket, TCPSocketListener } from "bun";
import { embeddingWireOf, fakeEmbeddingsAnswer } from "./fake-embeddings.ts";
import { jsonReply, type ScriptedReply, streamReply, type Wire, wirePathSuffix } from "./wire-scripts.ts";

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it is not JSON (undefined when empty). */
  body: unknown;
}

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  /** The body, sent as `chunks` (each written separately, chunked encoding) or as one string. */
  body?: string;
  chunks?: string[];
  /** Delay between chunks, in ms (default 0). */
  chunkDelayMs?: number;
  /** Close the connection abruptly after this many chunks have been written. */
  dropAfterChunks?: number;
  /**
   * Pause between the last chunk and the drop (default 25 ms), so the client has read what was sent;
   * with 0 the client may discard those chunks along with the failed body.
   */
  dropDelayMs?: number;
  /** After this many chunks, stop writing and hold the connection open until the client gives up. */
  stallAfterChunks?: number;
  /** Write nothing at all, not even the status line, and hold the connection open until the client gives up. */
  stallBeforeHeaders?: boolean;
  /** Only answer requests whose path (without the query) ends with this (default: any path). */
  pathSuffix?: string;
  /**
   * Build the response when the request arrives (e.g. to answer streaming or JSON depending on the
   * request body). The other fields of this response, except `pathSuffix`, are then ignored.
   */
  respond?: (request: RecordedRequest) => FakeResponse | Promise<FakeResponse>;
}

export interface FakeLLM {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Queue responses; each request takes the first queued response whose pathSuffix matches. */
  enqueue(...responses: FakeResponse[]): void;
  /**
   * Queue a scripted model reply for the wire's chat endpoint: streamed SSE when the request body has
   * `stream: true`, else the JSON body.
   */
  enqueueReply(wire: Wire, reply: ScriptedReply): void;
  /** Responses still queued. */
  pending(): number;
  /** Resolve once at least `count` requests have arrived (their bodies fully read); reject after the timeout. */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Client connections currently open (e.g. to check that an abort closed the stream). */
  openConnections(): number;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const CRLF = encoder.encode("\r\n");
const HEAD_END = encoder.encode("\r\n\r\n");

/** Per-connection state. */
interface Connection {
  buffer: Uint8Array;
  busy: boolean;
  closed: boolean;
  sentContinue: boolean;
  closeWaiters: (() => void)[];
  drainWaiters: (() => void)[];
}

type ParseResult = { request: RecordedRequest; consumed: number; close: boolean } | "incomplete";

class BadRequest extends Error {}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: keep the raw text so the test can see what was sent.
    return text;
  }
}

/** Parse one HTTP/1.1 request from the front of `buffer`. */
function parseRequest(buffer: Uint8Array, conn: Connection, socket: Socket<Connection>): ParseResult {
  const headEnd = indexOf(buffer, HEAD_END);
  if (headEnd < 0) return "incomplete";
  const [requestLine = "", ...lines] = decoder.decode(buffer.subarray(0, headEnd)).split("\r\n");
  const [method, target, version] = requestLine.split(" ");
  if (!method || !target?.startsWith("/") || !version?.startsWith("HTTP/1.")) {
    throw new BadRequest(`malformed request line ${JSON.stringify(requestLine)}`);
  }
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new BadRequest(`malformed header line ${JSON.stringify(line)}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }

  let at = headEnd + HEAD_END.length;
  let body: Uint8Array;
  if (headers["transfer-encoding"]?.toLowerCase().includes("chunked")) {
    const parts: Uint8Array[] = [];
    for (;;) {
      const lineEnd = indexOf(buffer, CRLF, at);
      if (lineEnd < 0) return "incomplete";
      const size = Number.parseInt(decoder.decode(buffer.subarray(at, lineEnd)).split(";")[0]!, 16);
      if (Number.isNaN(size)) throw new BadRequest("malformed chunk size");
      at = lineEnd + CRLF.length;
      if (size === 0) {
        // Optional trailers, then an empty line.
        const trailersEnd = buffer[at] === 13 && buffer[at + 1] === 10 ? at : indexOf(buffer, HEAD_END, at);
        if (trailersEnd < 0) return "incomplete";
        at = trailersEnd === at ? at + CRLF.length : trailersEnd + HEAD_END.length;
        break;
      }
      if (buffer.length < at + size + CRLF.length) return "incomplete";
      parts.push(buffer.subarray(at, at + size));
      at += size + CRLF.length;
    }
    body = Buffer.concat(parts);
  } else {
    const length = Number(headers["content-length"] ?? 0);
    if (!Number.isInteger(length) || length < 0) throw new BadRequest("malformed content-length");
    if (buffer.length < at + length) {
      if (headers.expect?.toLowerCase() === "100-continue" && !conn.sentContinue) {
        conn.sentContinue = true;
        socket.write("HTTP/1.1 100 Continue\r\n\r\n");
      }
      return "incomplete";
    }
    body = buffer.subarray(at, at + length);
    at += length;
  }

  const url = new URL(target, "http://127.0.0.1");
  return {
    request: { method, path: url.pathname + url.search, headers, body: parseBody(decoder.decode(body)) },
    consumed: at,
    close: headers.connection?.toLowerCase() === "close",
  };
}

/** Thrown when the client went away while we were writing; the response just ends. */
class ClientGone extends Error {}

async function writeAll(socket: Socket<Connection>, bytes: Uint8Array): Promise<void> {
  const conn = socket.data;
  let rest = bytes;
  while (rest.length > 0) {
    if (conn.closed) throw new ClientGone("client closed the connection");
    const written = socket.write(rest);
    if (written < 0) throw new ClientGone("client closed the connection");
    rest = rest.subarray(written);
    if (rest.length > 0) await new Promise<void>((resolve) => conn.drainWaiters.push(resolve));
  }
}

function untilClosed(conn: Connection): Promise<void> {
  if (conn.closed) return Promise.resolve();
  return new Promise((resolve) => conn.closeWaiters.push(resolve));
}

function head(status: number, headers: Record<string, string>): Uint8Array {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return encoder.encode(`${lines.join("\r\n")}\r\n\r\n`);
}

/** Write `response` to the socket. Returns false when the connection must not be reused. */
async function writeResponse(
  socket: Socket<Connection>,
  response: FakeResponse,
  closeAfter: boolean,
): Promise<boolean> {
  if (response.stallBeforeHeaders) {
    await untilClosed(socket.data);
    return false;
  }
  const chunks = response.chunks ?? (response.body === undefined ? [] : [response.body]);
  const streaming =
    response.chunks !== undefined ||
    response.dropAfterChunks !== undefined ||
    response.stallAfterChunks !== undefined;
  const headers: Record<string, string> = { "content-type": "text/event-stream" };
  for (const [name, value] of Object.entries(response.headers ?? {})) headers[name.toLowerCase()] = value;
  headers.date = new Date().toUTCString();
  headers.connection = closeAfter ? "close" : "keep-alive";
  if (!streaming) {
    const body = encoder.encode(chunks.join(""));
    headers["content-length"] = String(body.length);
    await writeAll(socket, Buffer.concat([head(response.status ?? 200, headers), body]));
    return !closeAfter;
  }
  headers["transfer-encoding"] = "chunked";
  delete headers["content-length"];
  await writeAll(socket, head(response.status ?? 200, headers));

  for (let index = 0; ; index++) {
    if (response.dropAfterChunks !== undefined && index >= response.dropAfterChunks) {
      // FIN in the middle of the chunked body: what was written arrives, then the body is cut. The
      // pause first lets the client read those chunks: a fetch body that errors drops unread data.
      await Bun.sleep(response.dropDelayMs ?? 25);
      socket.end();
      return false;
    }
    if (response.stallAfterChunks !== undefined && index >= response.stallAfterChunks) {
      await untilClosed(socket.data);
      return false;
    }
    if (index >= chunks.length) break;
    if (index > 0 && response.chunkDelayMs) await Bun.sleep(response.chunkDelayMs);
    const bytes = encoder.encode(chunks[index]);
    // A zero-length chunk would end the body, so empty chunks are not written.
    if (bytes.length > 0) {
      await writeAll(
        socket,
        Buffer.concat([encoder.encode(`${bytes.length.toString(16)}\r\n`), bytes, CRLF]),
      );
    }
  }
  await writeAll(socket, encoder.encode("0\r\n\r\n"));
  return !closeAfter;
}

export async function startFakeLLM(): Promise<FakeLLM> {
  const queue: FakeResponse[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket<Connection>>();
  let requestWaiters: (() => void)[] = [];

  const take = (path: string): FakeResponse | undefined => {
    // An embeddings request takes only a response queued for its path; otherwise it is answered below.
    const embeddings = embeddingWireOf(path) !== undefined;
    const at = queue.findIndex((r) => (r.pathSuffix ? path.endsWith(r.pathSuffix) : !embeddings));
    return at < 0 ? undefined : queue.splice(at, 1)[0];
  };

  const answer = async (request: RecordedRequest): Promise<FakeResponse> => {
    const pathname = request.path.split("?")[0]!;
    const queued = take(pathname);
    const wire = queued ? undefined : embeddingWireOf(pathname);
    const vectors = wire && fakeEmbeddingsAnswer(wire, request.body);
    if (vectors) return { headers: { "content-type": "application/json" }, body: JSON.stringify(vectors) };
    if (!queued) {
      return {
        status: 599,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ error: { message: `fake server: nothing queued for ${pathname}` } }),
      };
    }
    return queued.respond ? await queued.respond(request) : queued;
  };

  const serve = async (socket: Socket<Connection>): Promise<void> => {
    const conn = socket.data;
    if (conn.busy) return;
    conn.busy = true;
    try {
      while (!conn.closed) {
        let parsed: ParseResult;
        try {
          parsed = parseRequest(conn.buffer, conn, socket);
        } catch (error) {
          if (!(error instanceof BadRequest)) throw error;
          const body = encoder.encode(
            JSON.stringify({ error: { message: `fake server: ${error.message}` } }),
          );
          const headers = { "content-type": "application/json", "content-length": String(body.length) };
          await writeAll(socket, Buffer.concat([head(400, { ...headers, connection: "close" }), body]));
          socket.end();
          return;
        }
        if (parsed === "incomplete") return;
        conn.buffer = conn.buffer.subarray(parsed.consumed);
        conn.sentContinue = false;
        requests.push(parsed.request);
        for (const wake of requestWaiters) wake();

        let response: FakeResponse;
        try {
          response = await answer(parsed.request);
        } catch (error) {
          // A `respond` callback failed: a bug in the test, so report it loudly to the client.
          response = {
            status: 599,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ error: { message: `fake server: respond() threw: ${String(error)}` } }),
          };
        }
        const keepAlive = await writeResponse(socket, response, parsed.close);
        if (!keepAlive) {
          if (!conn.closed) socket.end();
          return;
        }
      }
    } catch (error) {
      if (!(error instanceof ClientGone)) throw error;
      // The client hung up mid-response (e.g. it aborted): nothing left to do on this connection.
    } finally {
      conn.busy = false;
    }
  };

  const listener: TCPSocketListener<Connection> = Bun.listen<Connection>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = {
          buffer: new Uint8Array(0),
          busy: false,
          closed: false,
          sentContinue: false,
          closeWaiters: [],
          drainWaiters: [],
        };
        sockets.add(socket);
      },
      data(socket, data) {
        const conn = socket.data;
        conn.buffer = conn.buffer.length === 0 ? new Uint8Array(data) : Buffer.concat([conn.buffer, data]);
        void serve(socket);
      },
      drain(socket) {
        const waiters = socket.data.drainWaiters.splice(0);
        for (const wake of waiters) wake();
      },
      close(socket) {
        const conn = socket.data;
        conn.closed = true;
        sockets.delete(socket);
        for (const wake of [...conn.drainWaiters.splice(0), ...conn.closeWaiters.splice(0)]) wake();
      },
    },
  });

  const waitForRequests = (count: number, timeoutMs = 5000): Promise<RecordedRequest[]> => {
    if (requests.length >= count) return Promise.resolve(requests.slice());
    return new Promise((resolve, reject) => {
      const check = () => {
        if (requests.length < count) return;
        clearTimeout(timer);
        requestWaiters = requestWaiters.filter((w) => w !== check);
        resolve(requests.slice());
      };
      const timer = setTimeout(() => {
        requestWaiters = requestWaiters.filter((w) => w !== check);
        const seen = requests.map((r) => `${r.method} ${r.path}`).join(", ") || "none";
        reject(new Error(`fake server: expected ${count} request(s) within ${timeoutMs} ms, got: ${seen}`));
      }, timeoutMs);
      requestWaiters.push(check);
    });
  };

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      listener.stop(true);
      for (const socket of sockets) socket.end();
      // Let close events run so stalled responses finish before the caller moves on.
      await Bun.sleep(0);
    })();
    return stopped;
  };

  return {
    url: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    requests,
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    enqueueReply: (wire, reply) => {
      queue.push({
        pathSuffix: wirePathSuffix(wire),
        respond: (request) => {
          const body = request.body as { stream?: unknown } | undefined;
          return body?.stream === true ? streamReply(wire, reply) : jsonReply(wire, reply);
        },
      });
    },
    pending: () => queue.length,
    waitForRequests,
    openConnections: () => sockets.size,
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
