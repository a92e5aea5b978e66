/**
 * Thinking on the Mistral wire goes only to models that reason, in the form each takes — proven against
 * the strict endpoint (test/support/strict-mistral.ts), which refuses what Mistral's API refuses.
 * Mistral, "Reasoning › Adjustable": "Adjustable reasoning is available on mistral-small-latest and
 * mistral-medium-3-5 via the reasoning_effort parameter", whose values are "high" and "none"; Magistral
 * models reason natively (prompt_mode "reasoning").
 */
import { describe, expect, test } from "bun:test";
import { streamMistral } from "../../src/providers/mistral.ts";
import type { StreamEvent, StreamRequest } from "../../src/providers/types.ts";
import { useAdapterHarness } from "../support/stream-helpers.ts";
import { checkMistralRequest, strictMistralReply } from "../support/strict-mistral.ts";

const { server, request, collect } = useAdapterHarness("mistral", streamMistral, {
  apiKey: "fake-mistral-key-thinking-000000000",
  model: "mistral-small-latest",
  prompt: "hi",
});

/** One request against the strict endpoint: what was sent, the notices, and any rejection. */
async function strictly(overrides: Partial<StreamRequest>) {
  const rejected: string[] = [];
  server.enqueue(strictMistralReply({ text: "Done." }, rejected));
  const events: StreamEvent[] = await collect(request(overrides));
  const sent = server.requests.at(-1)!.body as Record<string, unknown>;
  const notices = events.flatMap((e) => (e.type === "notice" ? [e.text] : []));
  const errors = events.filter((e) => e.type === "error");
  return { sent, notices, rejected, errors };
}

describe("the strict endpoint's thinking rules (the bugs this fixes)", () => {
  test("reasoning_effort to a model without adjustable reasoning, or medium, or prompt_mode off Magistral", () => {
    const messages = [{ role: "user", content: "hi" }];
    expect(
      checkMistralRequest({ model: "mistral-large-latest", reasoning_effort: "high", messages }),
    ).toEqual({
      message: "reasoning_effort is not supported for this model",
      type: "invalid_request_invalid_args",
      code: "3051",
    });
    expect(
      checkMistralRequest({ model: "mistral-small-latest", reasoning_effort: "medium", messages })?.message,
    ).toStartWith("reasoning_effort='medium' is not supported for this model. Must be one of");
    expect(
      checkMistralRequest({ model: "mistral-small-2603", prompt_mode: "reasoning", messages })?.message,
    ).toBe("Reasoning prompt mode is not enabled for this model");
    expect(
      checkMistralRequest({ model: "mistral-small-latest", reasoning_effort: "high", messages }),
    ).toBeUndefined();
  });
});

describe("thinking only where the model reasons, in the values it takes", () => {
  test("mistral-large-latest after thinking medium: no reasoning field, accepted, and a notice", async () => {
    const { sent, notices, rejected, errors } = await strictly({
      model: "mistral-large-latest",
      thinking: "medium",
    });
    expect([rejected, errors]).toEqual([[], []]);
    expect(sent.reasoning_effort).toBeUndefined();
    expect(sent.prompt_mode).toBeUndefined();
    expect(notices).toEqual([
      'mistral/mistral-large-latest does not reason, so the thinking level "medium" is not sent',
    ]);
  });

  test("the catalogue's word wins over the model id, either way", async () => {
    const known = await strictly({
      model: "mistral-small-latest",
      thinking: "high",
      modelInfo: { reasoning: false, tool_call: true },
    });
    expect(known.sent.reasoning_effort).toBeUndefined();
    expect(known.notices).toHaveLength(1);
    const listed = await strictly({
      model: "mistral-medium-3-5",
      thinking: "high",
      modelInfo: { reasoning: true, tool_call: true },
    });
    expect([listed.rejected, listed.sent.reasoning_effort, listed.notices]).toEqual([[], "high", []]);
  });

  test("mistral-small-latest: high as it is; low and medium sent as high, said", async () => {
    const high = await strictly({ thinking: "high" });
    expect([high.rejected, high.sent.reasoning_effort, high.notices]).toEqual([[], "high", []]);
    const medium = await strictly({ thinking: "medium" });
    expect([medium.rejected, medium.sent.reasoning_effort]).toEqual([[], "high"]);
    expect(medium.notices).toEqual([
      'mistral/mistral-small-latest takes thinking as "high", so "medium" is sent as that',
    ]);
  });

  test("Magistral gets prompt_mode and no reasoning_effort; a level is said to be sent as on", async () => {
    const { sent, notices, rejected } = await strictly({ model: "magistral-medium-latest", thinking: "low" });
    expect(rejected).toEqual([]);
    expect([sent.prompt_mode, sent.reasoning_effort]).toEqual(["reasoning", undefined]);
    expect(notices).toEqual([
      "mistral/magistral-medium-latest takes thinking on or off, not levels: thinking level low is sent as on",
    ]);
  });

  test("thinking off sends neither field and says nothing, whatever the model", async () => {
    for (const model of ["mistral-large-latest", "mistral-small-latest", "magistral-small-latest"]) {
      const { sent, notices } = await strictly({ model, thinking: "off" });
      expect([sent.reasoning_effort, sent.prompt_mode, notices]).toEqual([undefined, undefined, []]);
    }
  });
});
