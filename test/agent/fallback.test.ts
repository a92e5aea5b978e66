import { expect, test } from "bun:test";
import { ModelFallback } from "../../src/agent/fallback.ts";
import type { ModelTarget } from "../../src/agent/session-setup.ts";
import type { StreamEvent, StreamFn, StreamRequest } from "../../src/providers/types.ts";
import { testProvider, testRequest, usageOf } from "../support/stream-helpers.ts";

/** The failure paths of --fallback-model; the switch that succeeds is covered end to end. */

const target = (model: string): ModelTarget => ({
  provider: testProvider(),
  model,
  facts: { contextWindow: undefined, price: (usage) => usage.input_tokens / 1e6 },
});
const primary = target("big");
const fallback = target("small");

const overloaded: StreamEvent = {
  type: "error",
  error: { kind: "overloaded", message: "overloaded from fake", status: 529 },
};

/** A provider that answers each model with its scripted events, and records which models were asked. */
function provider(script: Record<string, StreamEvent[]>) {
  const asked: string[] = [];
  const stream: StreamFn = async function* (request: StreamRequest) {
    asked.push(request.model);
    yield* script[request.model] ?? [];
  };
  return { stream, asked };
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

test("the fallback overloaded too: its error ends the request, after one switch and one notice", async () => {
  const { stream, asked } = provider({ big: [overloaded], small: [overloaded] });
  const notices: string[] = [];
  const fallbacks = new ModelFallback(primary, fallback, stream, (line) => notices.push(line));
  const events = await collect(fallbacks.stream(testRequest({ model: "big" })));
  expect(asked).toEqual(["big", "small"]);
  expect(events).toEqual([overloaded]);
  expect(notices).toEqual(["overloaded from fake; continuing on fake/small (--fallback-model)"]);
  // Every later request goes to the fallback, never back to the primary.
  await collect(fallbacks.stream(testRequest({ model: "big" })));
  expect(asked).toEqual(["big", "small", "small"]);
});

test("an overload after the answer began is the run's error: nothing is asked of the fallback", async () => {
  const began: StreamEvent = { type: "text_delta", text: "Hel" };
  const { stream, asked } = provider({ big: [began, overloaded] });
  const notices: string[] = [];
  const fallbacks = new ModelFallback(primary, fallback, stream, (line) => notices.push(line));
  expect(await collect(fallbacks.stream(testRequest({ model: "big" })))).toEqual([began, overloaded]);
  expect(asked).toEqual(["big"]);
  expect(notices).toEqual([]);
});

test("an interrupted request does not switch: the fallback would only be cancelled too", async () => {
  const { stream, asked } = provider({ big: [overloaded] });
  const controller = new AbortController();
  controller.abort();
  const fallbacks = new ModelFallback(primary, fallback, stream, () => undefined);
  const events = await collect(fallbacks.stream(testRequest({ model: "big", signal: controller.signal })));
  expect(events).toEqual([overloaded]);
  expect(asked).toEqual(["big"]);
});

test("the result after a switch prices each model's usage at its own price", async () => {
  const done = (input: number): StreamEvent => ({
    type: "done",
    stop_reason: "end_turn",
    usage: usageOf(input, 0),
  });
  const { stream } = provider({ big: [{ ...overloaded, usage: usageOf(1000, 0) }], small: [done(500)] });
  const fallbacks = new ModelFallback(primary, fallback, stream, () => undefined);
  await collect(fallbacks.stream(testRequest({ model: "big" })));
  expect(fallbacks.price(usageOf(0, 0))).toBeCloseTo(1500 / 1e6, 12);
});
