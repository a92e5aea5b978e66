import {
  isRetryable,
  type ProviderError,
  type StreamEvent,
  type StreamFn,
  type StreamRequest,
} from "./types.ts";

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff delay; doubles per attempt, with jitter, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server-requested wait longer than this is capped to it, so a run never hangs for minutes. */
  maxServerDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxServerDelayMs: 60_000,
};

/** Content means the user may have seen output: after that a failure is reported, not retried. */
function isContent(event: StreamEvent): boolean {
  return (
    event.type === "text_delta" ||
    event.type === "thinking_delta" ||
    event.type === "tool_call_start" ||
    event.type === "tool_call_delta" ||
    event.type === "tool_call"
  );
}

export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponential = Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
  return Math.round(exponential * (1 - random() * 0.25));
}

/** The wait before retry number `attempt + 1`: the server's requested wait (capped), else backoff. */
export function retryDelayMs(
  error: ProviderError,
  attempt: number,
  policy: RetryPolicy = DEFAULT_RETRY,
): number {
  const requested = error.retryAfterMs;
  return requested === undefined ? backoffMs(attempt, policy) : Math.min(requested, policy.maxServerDelayMs);
}

/** Resolves after `ms`, or at once when `signal` aborts (the caller checks which). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Retries 429/5xx/overloaded/connection failures with backoff that honours the server's requested
 * wait, but only while the failed attempt produced no content; emits a `retry` event before each wait.
 */
export async function* withRetries(
  stream: StreamFn,
  request: StreamRequest,
  policy: RetryPolicy = DEFAULT_RETRY,
): AsyncGenerator<StreamEvent> {
  for (let attempt = 0; ; attempt++) {
    let produced = false;
    let retry = false;
    for await (const event of stream(request)) {
      if (event.type === "error") {
        const canRetry = !produced && isRetryable(event.error) && attempt < policy.maxRetries;
        if (canRetry && !request.signal.aborted) {
          const delay = retryDelayMs(event.error, attempt, policy);
          yield {
            type: "retry",
            attempt: attempt + 1,
            max_retries: policy.maxRetries,
            delay_ms: delay,
            error: event.error,
          };
          await sleep(delay, request.signal);
          retry = true;
          break;
        }
        yield event;
        return;
      }
      if (isContent(event)) produced = true;
      yield event;
      if (event.type === "done") return;
    }
    if (!retry) return;
    if (request.signal.aborted) {
      yield {
        type: "error",
        error: { kind: "aborted", message: `request to ${request.provider.id} was cancelled` },
      };
      return;
    }
  }
}
