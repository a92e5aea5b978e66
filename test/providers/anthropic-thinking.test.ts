/**
 * Thinking on the Anthropic wire, against a strict endpoint that refuses what the real API refuses.
 *
 * Anthropic, "Troubleshooting thinking": "Extended thinking (thinking.type: "enabled" with budget_tokens)
 * is deprecated on Claude Opus 4.6 and Claude Sonnet 4.6 (it still works there). Claude Opus 4.7, Claude
 * Opus 4.8, Claude Sonnet 5, Claude Fable 5, and Claude Mythos 5 do not support it and reject requests
 * that use it, returning a 400 error. On earlier models, including Claude Sonnet 4.5, Claude Opus 4.5, and
 * Claude Haiku 4.5, extended thinking is the only thinking mode. Claude Mythos Preview supports both
 * modes. Where both modes are available, use adaptive thinking instead."
 */
import { describe, expect, test } from "bun:test";
import { streamAnthropic } from "../../src/providers/anthropic.ts";
import { THINKING_BUDGET, thinkingForm } from "../../src/providers/anthropic-thinking.ts";
import type { StreamEvent } from "../../src/providers/types.ts";
import { testRequest, useAdapterHarness } from "../support/stream-helpers.ts";
import { MESSAGES, serveStrict, strictAnthropic } from "../support/strict-anthropic.ts";

const { server, request, collect } = useAdapterHarness("anthropic", streamAnthropic, {
  apiKey: "sk-ant-test-fake-0001",
  model: "claude-opus-4-7",
  prompt: "Hi",
  resetRequestsEachTest: true,
});

type Body = {
  max_tokens: number;
  thinking?: Record<string, unknown>;
  output_config?: Record<string, unknown>;
};
const bodies = () => server.requests.map((r) => r.body as Body);
const notices = (events: StreamEvent[]) => events.flatMap((e) => (e.type === "notice" ? [e.text] : []));
const done = (events: StreamEvent[]) => events.find((e) => e.type === "done");

describe("the thinking form per model", () => {
  test.each([
    ["claude-opus-4-7", "adaptive"],
    ["claude-opus-4-8", "adaptive"],
    ["claude-sonnet-5", "adaptive"],
    ["claude-sonnet-5-5", "adaptive"],
    ["claude-opus-5", "adaptive"],
    ["claude-fable-5", "adaptive"],
    ["claude-mythos-5", "adaptive"],
    ["claude-haiku-5-5", "adaptive"],
    // Both forms work on 4.6 and Mythos Preview; the docs say to use adaptive there.
    ["claude-opus-4-6", "adaptive"],
    ["claude-sonnet-4-6", "adaptive"],
    ["claude-mythos-preview", "adaptive"],
    ["claude-sonnet-4-5-20250929", "budget"],
    ["claude-opus-4-5", "budget"],
    ["claude-haiku-4-5", "budget"],
    ["claude-opus-4-1-20250805", "budget"],
    // A date suffix is not a minor version.
    ["claude-opus-4-20250514", "budget"],
    ["claude-sonnet-4-20250514", "budget"],
    ["claude-3-7-sonnet-20250219", "budget"],
    ["claude-3-5-haiku-20241022", "none"],
    ["claude-3-5-sonnet-latest", "none"],
    ["claude-3-opus-20240229", "none"],
    // A gateway's prefix, and an id the table does not know (a compatible server's own model).
    ["anthropic.claude-opus-4-7", "adaptive"],
    ["anthropic/claude-3-5-haiku", "none"],
    ["glm-4.6", "budget"],
  ] as const)("%s → %s", (model, form) => {
    expect(thinkingForm(testRequest({ model, thinking: "medium" }))).toBe(form);
  });

  test("the catalogue's word wins: no reasoning → none; reasoning → never none", () => {
    const req = (model: string, reasoning: boolean) =>
      testRequest({ model, thinking: "low", modelInfo: { reasoning, tool_call: true } });
    expect(thinkingForm(req("claude-sonnet-4-5", false))).toBe("none");
    expect(thinkingForm(req("claude-3-5-haiku-20241022", true))).toBe("budget");
  });
});

describe("requests a strict endpoint accepts", () => {
  test.each(["low", "medium", "high"] as const)(
    "%s on claude-opus-4-7: adaptive thinking with that effort, summarized, and a notice",
    async (level) => {
      const strict = strictAnthropic();
      strict.reply({ thinking: "Short.", text: "Hello" });
      serveStrict(server, strict, 1);
      const events = await collect(request({ thinking: level }));
      expect(strict.verdicts).toEqual([null]);
      expect(done(events)).toBeDefined();
      const [body] = bodies();
      expect(body?.thinking).toEqual({ type: "adaptive", display: "summarized" });
      expect(body?.output_config).toEqual({ effort: level });
      expect(body?.max_tokens).toBeGreaterThan(THINKING_BUDGET[level]);
      expect(notices(events)).toEqual([
        `${level} thinking sent to anthropic/claude-opus-4-7 as adaptive thinking at effort ${level}`,
      ]);
    },
  );

  test("claude-sonnet-4-5 gets the budget form, without a notice", async () => {
    const strict = strictAnthropic();
    strict.reply({ text: "Hello" });
    serveStrict(server, strict, 1);
    const events = await collect(request({ model: "claude-sonnet-4-5", thinking: "medium" }));
    expect(strict.verdicts).toEqual([null]);
    expect(bodies()[0]?.thinking).toEqual({ type: "enabled", budget_tokens: THINKING_BUDGET.medium });
    expect(bodies()[0]).not.toHaveProperty("output_config");
    expect(notices(events)).toEqual([]);
  });

  test("a model the catalogue says does not reason gets no thinking, and the user is told", async () => {
    const strict = strictAnthropic();
    strict.reply({ text: "Hello" });
    serveStrict(server, strict, 1);
    const events = await collect(
      request({
        model: "claude-3-5-haiku-20241022",
        thinking: "high",
        modelInfo: { reasoning: false, tool_call: true },
      }),
    );
    expect(bodies()[0]).not.toHaveProperty("thinking");
    expect(bodies()[0]).not.toHaveProperty("output_config");
    expect(notices(events)).toEqual([
      "thinking is off for anthropic/claude-3-5-haiku-20241022: the model does not reason",
    ]);
  });

  test("thinking off sends neither form, whatever the model", async () => {
    const strict = strictAnthropic();
    strict.reply({ text: "Hello" });
    serveStrict(server, strict, 1);
    const events = await collect(request({ thinking: "off" }));
    expect(bodies()[0]).not.toHaveProperty("thinking");
    expect(notices(events)).toEqual([]);
  });
});

describe("when the API names the other form", () => {
  test("enabled refused by a model newer than the table: retried once as adaptive, then remembered", async () => {
    const strict = strictAnthropic({ adaptiveOnly: ["claude-zeta-1"] });
    strict.reply({ text: "first" });
    strict.reply({ text: "second" });
    serveStrict(server, strict, 3);
    const first = await collect(request({ model: "claude-zeta-1", thinking: "medium" }));
    expect(strict.verdicts).toEqual([MESSAGES.enabledRejected, null]);
    expect(bodies().map((b) => b.thinking?.type)).toEqual(["enabled", "adaptive"]);
    expect(done(first)).toBeDefined();
    expect(first.some((e) => e.type === "error")).toBe(false);
    expect(notices(first)).toEqual([
      "medium thinking sent to anthropic/claude-zeta-1 as adaptive thinking at effort medium",
    ]);
    // The process remembers: the next request goes adaptive at once.
    await collect(request({ model: "claude-zeta-1", thinking: "low" }));
    expect(strict.verdicts).toEqual([MESSAGES.enabledRejected, null, null]);
    expect(bodies()[2]?.thinking?.type).toBe("adaptive");
  });

  test("adaptive refused (a server without it): retried once with a budget", async () => {
    const strict = strictAnthropic({ budgetOnly: ["claude-sonnet-4-6"] });
    strict.reply({ text: "ok" });
    serveStrict(server, strict, 2);
    const events = await collect(request({ model: "claude-sonnet-4-6", thinking: "high" }));
    expect(strict.verdicts).toEqual([MESSAGES.adaptiveRejected, null]);
    expect(bodies()[1]?.thinking).toEqual({ type: "enabled", budget_tokens: THINKING_BUDGET.high });
    expect(done(events)).toBeDefined();
  });

  test("only once: when the other form is refused too, the 400 is the answer", async () => {
    const strict = strictAnthropic({ adaptiveOnly: ["claude-omega"], budgetOnly: ["claude-omega"] });
    serveStrict(server, strict, 2);
    const events = await collect(request({ model: "claude-omega", thinking: "medium" }));
    expect(strict.verdicts).toEqual([MESSAGES.enabledRejected, MESSAGES.adaptiveRejected]);
    const error = events.find((e) => e.type === "error");
    expect(error?.type === "error" && error.error.kind).toBe("bad_request");
    expect(error?.type === "error" && error.error.message).toContain("adaptive thinking is not supported");
  });

  test("another 400 is not retried", async () => {
    server.enqueue({
      status: 400,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        type: "error",
        error: { type: "invalid_request_error", message: MESSAGES.maxTokens },
      }),
    });
    const events = await collect(request({ model: "claude-sonnet-4-5", thinking: "low" }));
    expect(server.requests).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("error");
  });
});
