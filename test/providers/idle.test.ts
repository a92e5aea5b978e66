/**
 * The idle timeout on every wire, through the real SDKs against the fake server: silence before the
 * first byte or before any content is retried by the retry policy; silence after content ends the
 * stream with one error naming the provider and the configured seconds. A short timeout keeps it fast.
 */
import { describe, expect, test } from "bun:test";
import { streamAnthropic } from "../../src/providers/anthropic.ts";
import { idleFetch } from "../../src/providers/idle.ts";
import { streamMistral } from "../../src/providers/mistral.ts";
import { streamOpenAI } from "../../src/providers/openai.ts";
import { type RetryPolicy, withRetries } from "../../src/providers/retry.ts";
import type { StreamEvent, StreamFn } from "../../src/providers/types.ts";
import { collectEvents, testProvider, useAdapterHarness } from "../support/stream-helpers.ts";
import { stallMidStream, streamReply, type Wire, wirePathSuffix } from "../support/wire-scripts.ts";

const IDLE_MS = 500;
const FAST: RetryPolicy = { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 10, maxServerDelayMs: 10 };

const WIRES: { wire: Wire; id: string; stream: StreamFn; model: string }[] = [
  { wire: "openai", id: "openai", stream: streamOpenAI, model: "gpt-4o" },
  { wire: "anthropic", id: "anthropic", stream: streamAnthropic, model: "claude-sonnet-4-5" },
  { wire: "mistral", id: "mistral", stream: streamMistral, model: "mistral-small-latest" },
];

function texts(events: StreamEvent[]): string {
  return events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
}

for (const { wire, id, stream, model } of WIRES) {
  describe(`${wire} wire: idle timeout`, () => {
    const { server, provider, request } = useAdapterHarness(id, stream, {
      apiKey: "sk-test-idle-key-0000",
      model,
      prompt: "hi",
      resetRequestsEachTest: true,
    });
    const run = () =>
      collectEvents(withRetries(stream, request({ provider: provider({ idleTimeoutMs: IDLE_MS }) }), FAST));

    test("silence before the first byte is retried, then the answer arrives", async () => {
      server.enqueue({ stallBeforeHeaders: true, pathSuffix: wirePathSuffix(wire) });
      server.enqueue(streamReply(wire, { text: "after the stall" }));
      const events = await run();
      const retry = events.find((e) => e.type === "retry");
      expect(retry?.type === "retry" && retry.error).toEqual({
        kind: "idle_timeout",
        message: `${id} stopped sending for 0.5 s`,
      });
      expect(texts(events)).toBe("after the stall");
      expect(events.at(-1)?.type).toBe("done");
      expect(server.requests).toHaveLength(2);
    });

    test("headers, then silence before any content: retried too", async () => {
      server.enqueue({ ...streamReply(wire, { text: "never sent" }), stallAfterChunks: 0 });
      server.enqueue(streamReply(wire, { text: "second try" }));
      const events = await run();
      expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
      expect(texts(events)).toBe("second try");
      expect(server.requests).toHaveLength(2);
    });

    test("silence after content: one error with the provider and the seconds, no retry", async () => {
      server.enqueue(stallMidStream(wire, { text: "this answer stops half way through" }));
      const started = performance.now();
      const events = await run();
      expect(performance.now() - started).toBeGreaterThanOrEqual(IDLE_MS - 50);
      expect(texts(events)).not.toBe("");
      expect(events.filter((e) => e.type === "retry" || e.type === "done")).toHaveLength(0);
      const last = events.at(-1);
      expect(last?.type === "error" && last.error).toEqual({
        kind: "idle_timeout",
        message: `${id} stopped sending for 0.5 s`,
      });
      expect(server.requests).toHaveLength(1);
      // The stalled connection is closed, not left hanging.
      for (let i = 0; i < 50 && server.openConnections() > 0; i++) await Bun.sleep(10);
      expect(server.openConnections()).toBe(0);
    });
  });
}

describe("idleFetch", () => {
  const { server } = useAdapterHarness("openai", streamOpenAI, { apiKey: "k", model: "m", prompt: "p" });
  const fetchWith = (ms: number) => idleFetch(testProvider({ id: "lab", idleTimeoutMs: ms }));

  test("the clock restarts with every chunk: a slow but steady server is not cut off", async () => {
    server.enqueue({ chunks: ["a", "b", "c", "d", "e", "f"], chunkDelayMs: 150 });
    const response = await fetchWith(400)(`${server.url}/slow`);
    expect(await response.text()).toBe("abcdef");
  });

  test("a consumer that is busy elsewhere does not trip it: only waiting on the server counts", async () => {
    server.enqueue({ chunks: ["one", "two"] });
    const response = await fetchWith(200)(`${server.url}/busy`);
    const reader = response.body!.getReader();
    const first = await reader.read();
    await Bun.sleep(400);
    const second = await reader.read();
    const rest = await reader.read();
    expect(new TextDecoder().decode(first.value) + new TextDecoder().decode(second.value)).toBe("onetwo");
    expect(rest.done).toBe(true);
  });

  test("the caller's abort still aborts, with the caller's error", async () => {
    server.enqueue({ stallBeforeHeaders: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const error = await fetchWith(5000)(`${server.url}/abort`, { signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).name).toBe("AbortError");
  });
});
