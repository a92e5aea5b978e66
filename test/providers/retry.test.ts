import { describe, expect, test } from "bun:test";
import { backoffMs, DEFAULT_RETRY, type RetryPolicy, withRetries } from "../../src/providers/retry.ts";
import type { ProviderError, ProviderErrorKind, StreamEvent, StreamFn } from "../../src/providers/types.ts";
import { abortedSignal, collectEvents, testRequest, usageOf } from "../support/stream-helpers.ts";

const USAGE = usageOf(1, 1);

/** Small delays so the whole file runs in milliseconds. */
const FAST: RetryPolicy = { maxRetries: 3, baseDelayMs: 4, maxDelayMs: 8, maxServerDelayMs: 20 };

/** Attempt N plays script N (the last one repeats); counts the attempts. */
function attempts(...scripts: StreamEvent[][]) {
  let calls = 0;
  const stream: StreamFn = () => {
    const script = scripts[Math.min(calls, scripts.length - 1)] ?? [];
    calls++;
    return (async function* () {
      yield* script;
    })();
  };
  return { stream, calls: () => calls };
}

const fail = (kind: ProviderErrorKind, extra: Partial<ProviderError> = {}): StreamEvent => ({
  type: "error",
  error: { kind, message: `${kind} failure`, ...extra },
});
const OK: StreamEvent[] = [
  { type: "text_delta", text: "hello" },
  { type: "done", stop_reason: "end_turn", usage: USAGE },
];

const retries = (events: StreamEvent[]) =>
  events.filter((e): e is Extract<StreamEvent, { type: "retry" }> => e.type === "retry");

describe("withRetries", () => {
  for (const kind of ["rate_limit", "overloaded", "server", "network"] as const) {
    test(`retries ${kind} before any content`, async () => {
      const model = attempts([fail(kind, { retryAfterMs: 2 })], OK);
      const events = await collectEvents(withRetries(model.stream, testRequest(), FAST));
      expect(model.calls()).toBe(2);
      expect(events.map((e) => e.type)).toEqual(["retry", "text_delta", "done"]);
      expect(events[0]).toEqual({
        type: "retry",
        attempt: 1,
        max_retries: 3,
        delay_ms: 2,
        error: { kind, message: `${kind} failure`, retryAfterMs: 2 },
      });
    });
  }

  test("usage before the failure is not content: still retried", async () => {
    const model = attempts([{ type: "usage", usage: USAGE }, fail("overloaded", { retryAfterMs: 0 })], OK);
    const events = await collectEvents(withRetries(model.stream, testRequest(), FAST));
    expect(model.calls()).toBe(2);
    expect(events.at(-1)?.type).toBe("done");
  });

  test("honours the server's wait, capped by maxServerDelayMs", async () => {
    const model = attempts([fail("rate_limit", { retryAfterMs: 60_000 })], OK);
    const started = performance.now();
    const events = await collectEvents(withRetries(model.stream, testRequest(), FAST));
    const elapsed = performance.now() - started;
    expect(retries(events)[0]?.delay_ms).toBe(FAST.maxServerDelayMs);
    expect(elapsed).toBeGreaterThanOrEqual(FAST.maxServerDelayMs - 2);
    expect(elapsed).toBeLessThan(1000);
  });

  test("backs off exponentially with jitter when the server names no wait", async () => {
    const model = attempts([fail("server")], [fail("server")], [fail("server")], OK);
    const events = await collectEvents(withRetries(model.stream, testRequest(), FAST));
    const delays = retries(events).map((e) => e.delay_ms);
    expect(retries(events).map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(delays).toHaveLength(3);
    // base 4 → 4, 8, min(16, 8); each times a jitter in (0.75, 1].
    expect(delays[0]).toBeGreaterThanOrEqual(3);
    expect(delays[0]).toBeLessThanOrEqual(4);
    for (const delay of delays.slice(1)) {
      expect(delay).toBeGreaterThanOrEqual(6);
      expect(delay).toBeLessThanOrEqual(8);
    }
    expect(events.at(-1)?.type).toBe("done");
  });

  test("gives up after maxRetries and reports the last error", async () => {
    let n = 0;
    const stream: StreamFn = () => {
      n++;
      const attempt = n;
      return (async function* () {
        yield {
          type: "error",
          error: { kind: "server", message: `attempt ${attempt} failed`, status: 503, retryAfterMs: 0 },
        } satisfies StreamEvent;
      })();
    };
    const events = await collectEvents(withRetries(stream, testRequest(), { ...FAST, maxRetries: 2 }));
    expect(n).toBe(3);
    expect(retries(events).map((e) => [e.attempt, e.max_retries, e.error.message])).toEqual([
      [1, 2, "attempt 1 failed"],
      [2, 2, "attempt 2 failed"],
    ]);
    expect(events.at(-1)).toEqual({
      type: "error",
      error: { kind: "server", message: "attempt 3 failed", status: 503, retryAfterMs: 0 },
    });
  });

  test("maxRetries 0 never retries", async () => {
    const model = attempts([fail("rate_limit")], OK);
    const events = await collectEvents(withRetries(model.stream, testRequest(), { ...FAST, maxRetries: 0 }));
    expect(model.calls()).toBe(1);
    expect(events).toEqual([fail("rate_limit")]);
  });

  const contentFirst: [string, StreamEvent][] = [
    ["text", { type: "text_delta", text: "partial" }],
    ["thinking", { type: "thinking_delta", text: "hmm" }],
    ["a tool call start", { type: "tool_call_start", index: 0, id: "c", name: "bash" }],
    ["a tool call", { type: "tool_call", id: "c", name: "bash", input: {} }],
  ];
  for (const [what, first] of contentFirst) {
    test(`never retries after ${what} was produced`, async () => {
      const model = attempts([first, fail("overloaded", { retryAfterMs: 0 })], OK);
      const events = await collectEvents(withRetries(model.stream, testRequest(), FAST));
      expect(model.calls()).toBe(1);
      expect(events).toEqual([first, fail("overloaded", { retryAfterMs: 0 })]);
    });
  }

  for (const kind of [
    "auth",
    "bad_request",
    "context_overflow",
    "model_not_found",
    "stream_dropped",
    "aborted",
  ] as const) {
    test(`never retries ${kind}`, async () => {
      const model = attempts([fail(kind, { retryAfterMs: 0 })], OK);
      const events = await collectEvents(withRetries(model.stream, testRequest(), FAST));
      expect(model.calls()).toBe(1);
      expect(events).toEqual([fail(kind, { retryAfterMs: 0 })]);
    });
  }

  test("abort during the backoff wait ends promptly with an aborted error", async () => {
    const controller = new AbortController();
    const model = attempts([fail("rate_limit", { retryAfterMs: 30_000 })], OK);
    const policy = { ...FAST, maxServerDelayMs: 30_000 };
    const started = performance.now();
    setTimeout(() => controller.abort(), 15);
    const events = await collectEvents(
      withRetries(model.stream, testRequest({ signal: controller.signal }), policy),
    );
    expect(performance.now() - started).toBeLessThan(1000);
    expect(model.calls()).toBe(1);
    expect(events.map((e) => e.type)).toEqual(["retry", "error"]);
    const last = events.at(-1);
    expect(last?.type === "error" && last.error.kind).toBe("aborted");
  });

  test("an error after the signal fired is passed through, not retried", async () => {
    const model = attempts([fail("network")], OK);
    const events = await collectEvents(
      withRetries(model.stream, testRequest({ signal: abortedSignal() }), FAST),
    );
    expect(model.calls()).toBe(1);
    expect(events).toEqual([fail("network")]);
  });

  test("a clean stream passes through untouched", async () => {
    const model = attempts(OK);
    expect(await collectEvents(withRetries(model.stream, testRequest(), FAST))).toEqual(OK);
    expect(model.calls()).toBe(1);
  });
});

describe("backoffMs", () => {
  test("doubles per attempt up to maxDelayMs, jitter takes off at most a quarter", () => {
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffMs(a, DEFAULT_RETRY, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(backoffMs(0, DEFAULT_RETRY, () => 1)).toBe(375);
    expect(backoffMs(9, DEFAULT_RETRY, () => 0.999)).toBeGreaterThanOrEqual(6000);
  });
});
