/**
 * The idle timeout every wire shares: a `fetch` wrapper, handed to each SDK, that fails the attempt
 * when the server stays silent too long — while ion waits for the response headers, or for the next
 * piece of the body. It watches bytes, not parsed events, so SSE keep-alive comments (OpenRouter's
 * `: OPENROUTER PROCESSING`) keep a slow model's stream alive. The clock runs only while ion is
 * waiting on the server: a consumer that is busy elsewhere never trips it.
 *
 * Expiry aborts the connection and fails the request (or the body) with a StalledServerError, which
 * `errors.ts` turns into an `idle_timeout` ProviderError; the retry policy decides what happens next.
 */
import { DEFAULT_IDLE_TIMEOUT_MS, type ResolvedProvider } from "./types.ts";

export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Named so that no SDK's "timed out" pattern matches it (they would replace it with their own error). */
export class StalledServerError extends Error {
  override readonly name = "StalledServerError";
  constructor(
    readonly providerId: string,
    readonly timeoutMs: number,
  ) {
    super(`${providerId} stopped sending for ${timeoutMs / 1000} s`);
  }
}

/** Statuses whose Response may not carry a body (the constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** One timer at a time; `unref` so a forgotten timer never keeps the process alive. */
class Watchdog {
  private timer: ReturnType<typeof setTimeout> | undefined;
  constructor(private readonly ms: number) {}
  arm(onIdle: () => void): void {
    this.disarm();
    this.timer = setTimeout(onIdle, this.ms);
    this.timer.unref?.();
  }
  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** `inner` (global fetch by default) with the provider's idle timeout on the headers and every body read. */
export function idleFetch(provider: ResolvedProvider, inner: FetchFn = fetch): FetchFn {
  const ms = provider.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  return async (input, init) => {
    const local = new AbortController();
    // The caller's signal may come in `init` or inside a Request (Mistral's SDK passes one); a signal in
    // `init` replaces the Request's, so both are kept.
    const callers = [init?.signal, input instanceof Request ? input.signal : undefined];
    const signal = AbortSignal.any([...callers.filter((s): s is AbortSignal => s != null), local.signal]);
    const watchdog = new Watchdog(ms);
    // The idle error is delivered first, then the connection aborted: an abort settles the pending fetch
    // or read with the runtime's own AbortError, which must not be what the SDK sees.
    const expire = (deliver: (error: StalledServerError) => void): void => {
      const error = new StalledServerError(provider.id, ms);
      deliver(error);
      local.abort(error);
    };

    let response: Response;
    try {
      const silence = new Promise<never>((_, reject) => watchdog.arm(() => expire(reject)));
      response = await Promise.race([inner(input, { ...init, signal }), silence]);
    } finally {
      watchdog.disarm();
    }
    if (!response.body || NULL_BODY.has(response.status)) return response;

    const source = response.body.getReader();
    let expired: StalledServerError | undefined;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          watchdog.arm(() =>
            expire((error) => {
              expired = error;
              controller.error(error);
            }),
          );
          let chunk: Awaited<ReturnType<typeof source.read>>;
          try {
            chunk = await source.read();
          } catch (err) {
            // After expiry this read fails because of our own abort; the stream already holds the idle error.
            if (!expired) controller.error(err);
            return;
          } finally {
            watchdog.disarm();
          }
          if (expired) return;
          if (chunk.done) controller.close();
          else controller.enqueue(chunk.value);
        },
        cancel(reason) {
          watchdog.disarm();
          return source.cancel(reason);
        },
      },
      // Pull only when the consumer asks: the clock then measures the server, not the consumer.
      { highWaterMark: 0 },
    );
    const wrapped = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // SDKs log the URL; a constructed Response has none of its own.
    Object.defineProperty(wrapped, "url", { value: response.url });
    return wrapped;
  };
}
