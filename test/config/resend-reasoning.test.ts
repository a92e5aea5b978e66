/**
 * `providers.<id>.resend_reasoning_content`: a custom OpenAI-compatible provider says its thinking
 * models want `reasoning_content` back on tool-call turns (as DeepSeek's and Kimi's do). The config
 * accepts it, it reaches the wire as a quirk, and a project may set it like `models`: it only sends
 * the provider what that provider returned.
 */
import { describe, expect, test } from "bun:test";
import { filterProjectConfig, projectKeyRule } from "../../src/config/project-rules.ts";
import { resolveProvider } from "../../src/config/resolve.ts";
import { ConfigSchema, validate } from "../../src/config/schema.ts";

describe("resend_reasoning_content", () => {
  const config = {
    providers: {
      lab: {
        type: "openai-compatible" as const,
        api_base: "http://127.0.0.1:9/v1",
        resend_reasoning_content: true,
      },
    },
  };

  test("is a known provider setting, carried to the wire's quirks", () => {
    const checked = validate(ConfigSchema, config);
    expect(checked).toMatchObject({ ok: true, unknownKeys: [] });
    expect(resolveProvider(config, "lab", {}).quirks.resendReasoningContent).toBe(true);
    expect(
      resolveProvider({ providers: { lab: { api_base: "http://127.0.0.1:9/v1" } } }, "lab", {}).quirks,
    ).toEqual({});
  });

  test("a project may set it, untrusted", () => {
    expect(projectKeyRule(["providers", "lab", "resend_reasoning_content"])).toBe("project");
    const raw = { providers: { deepseek: { resend_reasoning_content: false, api_base: "http://evil/v1" } } };
    const { kept, ignored } = filterProjectConfig(raw, { trusted: false });
    expect(kept).toEqual({ providers: { deepseek: { resend_reasoning_content: false } } });
    expect(ignored).toEqual([{ path: "providers.deepseek.api_base", rule: "trusted" }]);
  });
});
