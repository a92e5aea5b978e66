/**
 * What ion reads from Ollama's /api/show, the window it picks, the `think` it sends — and the strict
 * fake's own rule, so the end-to-end tests stand on a server that really truncates.
 */
import { describe, expect, test } from "bun:test";
import { thinkFor } from "../../src/providers/ollama-request.ts";
import {
  DEFAULT_WINDOW_CAP,
  ollamaCapabilities,
  ollamaWindow,
  parseShow,
} from "../../src/providers/ollama-show.ts";
import {
  DEFAULT_NUM_CTX,
  fitContext,
  GPT_OSS,
  LLAMA32,
  ollamaShowBody,
  QWEN3,
} from "../support/strict-ollama.ts";

describe("parseShow", () => {
  test("the context length under the model's architecture, num_ctx from parameters, capabilities", () => {
    const body = {
      ...ollamaShowBody(QWEN3),
      parameters: 'num_ctx                        65536\nstop "<|im_end|>"',
    };
    expect(parseShow(body)).toEqual({
      contextLength: 40960,
      numCtx: 65536,
      architecture: "qwen3",
      capabilities: ["completion", "tools", "thinking"],
    });
  });

  test("an older server's answer: no capabilities, thinking values when listed", () => {
    const body = { model_info: { "general.architecture": "llama", "llama.context_length": 8192 } };
    expect(parseShow(body)).toEqual({ contextLength: 8192, architecture: "llama" });
    const levels = { thinking: { values: ["low", "medium", "high"], default: "medium" } };
    expect(parseShow(levels).thinkValues).toEqual(["low", "medium", "high"]);
    expect(ollamaCapabilities(parseShow(body))).toEqual({
      reasoning: null,
      tool_call: null,
      image_input: null,
    });
    expect(
      ollamaCapabilities({ capabilities: ["completion", "thinking"], thinkValues: [false] }).reasoning,
    ).toBe(false);
  });
});

describe("ollamaWindow", () => {
  test("config wins, within the model's trained length", () => {
    expect(ollamaWindow(16384, { contextLength: 40960 })).toBe(16384);
    expect(ollamaWindow(65536, { contextLength: 40960 })).toBe(40960);
    expect(ollamaWindow(8192, undefined)).toBe(8192);
  });

  test("else the model's length up to the cap, or a larger Modelfile num_ctx", () => {
    expect(ollamaWindow(undefined, { contextLength: 131072 })).toBe(DEFAULT_WINDOW_CAP);
    expect(ollamaWindow(undefined, { contextLength: 8192 })).toBe(8192);
    expect(ollamaWindow(undefined, { contextLength: 131072, numCtx: 65536 })).toBe(65536);
    expect(ollamaWindow(undefined, undefined)).toBeUndefined();
  });
});

describe("thinkFor", () => {
  const qwen = parseShow(ollamaShowBody(QWEN3));
  test("on/off models get true or false; a level is said to be sent as on", () => {
    expect(thinkFor("off", "ollama/qwen3:8b", true, qwen)).toEqual({ think: false });
    expect(thinkFor("high", "ollama/qwen3:8b", true, qwen)).toEqual({
      think: true,
      notice: "ollama/qwen3:8b takes thinking on or off, not levels: thinking level high is sent as on",
    });
  });

  test("gpt-oss takes levels (by architecture, or by the values the server lists)", () => {
    expect(thinkFor("low", "m", true, parseShow(ollamaShowBody(GPT_OSS)))).toEqual({ think: "low" });
    expect(thinkFor("high", "m", true, { thinkValues: ["low", "high"] })).toEqual({ think: "high" });
  });

  test("a model that cannot think, or one Ollama says nothing about, gets no think", () => {
    expect(thinkFor("off", "m", false, parseShow(ollamaShowBody(LLAMA32)))).toEqual({});
    expect(thinkFor("medium", "m", false, undefined).notice).toContain("thinking level medium is ignored");
    expect(thinkFor("medium", "m", null, undefined).notice).toContain("is not requested");
  });
});

describe("the strict fake's rule", () => {
  test("without num_ctx, the oldest messages go first, silently; system messages and the last stay", () => {
    const messages = [
      { role: "system", content: "s".repeat(12_000) },
      { role: "user", content: "the task" },
      { role: "assistant", content: "", tool_calls: [{}] },
      { role: "tool", content: "r".repeat(6_000) },
    ];
    const fit = fitContext(messages, undefined, DEFAULT_NUM_CTX);
    expect(fit.dropped).toBe(2);
    expect(fit.messages.map((m) => m.role)).toEqual(["system", "tool"]);
    expect(fitContext(messages, undefined, 32768).dropped).toBe(0);
  });
});
