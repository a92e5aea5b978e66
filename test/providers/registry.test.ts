import { describe, expect, test } from "bun:test";
import { BUILTIN_PROVIDERS, builtinProvider, ollamaBaseURL } from "../../src/providers/registry.ts";

describe("builtinProvider", () => {
  test("finds each built-in by id", () => {
    expect(builtinProvider("openai")).toMatchObject({
      wire: "openai",
      baseURL: "https://api.openai.com/v1",
      keyEnv: ["OPENAI_API_KEY"],
      needsKey: true,
      quirks: { maxTokensParam: "max_completion_tokens" },
    });
    expect(builtinProvider("anthropic")).toMatchObject({
      wire: "anthropic",
      baseURL: "https://api.anthropic.com",
    });
    expect(builtinProvider("mistral")).toMatchObject({ wire: "mistral", baseURL: "https://api.mistral.ai" });
    expect(builtinProvider("google")?.keyEnv).toEqual(["GEMINI_API_KEY", "GOOGLE_API_KEY"]);
    expect(builtinProvider("ollama")).toMatchObject({
      wire: "ollama",
      baseURL: "http://127.0.0.1:11434/v1",
      keyEnv: [],
      baseURLEnv: "OLLAMA_HOST",
      needsKey: false,
    });
  });

  test("unknown ids, and near misses, are undefined", () => {
    expect(builtinProvider("nope")).toBeUndefined();
    expect(builtinProvider("OpenAI")).toBeUndefined();
    expect(builtinProvider("")).toBeUndefined();
  });

  test("the registry is consistent", () => {
    const ids = BUILTIN_PROVIDERS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of BUILTIN_PROVIDERS) {
      expect(URL.canParse(p.baseURL)).toBe(true);
      expect(p.baseURL.endsWith("/")).toBe(false);
      expect(p.needsKey).toBe(p.keyEnv.length > 0);
      expect(builtinProvider(p.id)).toBe(p);
    }
  });
});

describe("ollamaBaseURL", () => {
  const cases: [string, string][] = [
    ["127.0.0.1:11434", "http://127.0.0.1:11434/v1"],
    ["localhost", "http://localhost:11434/v1"],
    ["0.0.0.0", "http://0.0.0.0:11434/v1"],
    ["gpu-box:8080", "http://gpu-box:8080/v1"],
    ["http://localhost", "http://localhost:11434/v1"],
    ["http://localhost:11434", "http://localhost:11434/v1"],
    ["http://localhost:11434/", "http://localhost:11434/v1"],
    ["http://localhost:11434/v1", "http://localhost:11434/v1"],
    ["http://localhost:11434/v1/", "http://localhost:11434/v1"],
    ["http://host:80", "http://host/v1"],
    ["https://ollama.example.com", "https://ollama.example.com/v1"],
    ["https://ollama.example.com/", "https://ollama.example.com/v1"],
    ["https://example.com/ollama", "https://example.com/ollama/v1"],
    ["[::1]:11434", "http://[::1]:11434/v1"],
    ["  localhost:11434  ", "http://localhost:11434/v1"],
    ["HTTP://LocalHost:1234", "http://localhost:1234/v1"],
  ];
  for (const [host, expected] of cases) {
    test(`${JSON.stringify(host)} → ${expected}`, () => {
      expect(ollamaBaseURL(host)).toBe(expected);
    });
  }

  test("garbage throws (the config layer turns it into a config error)", () => {
    expect(() => ollamaBaseURL("")).toThrow();
    expect(() => ollamaBaseURL("localhost:port")).toThrow();
  });
});
