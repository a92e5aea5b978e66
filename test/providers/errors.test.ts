import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { bodyMessage, classifyHttpError, networkError, retryAfterMs } from "../../src/providers/errors.ts";
import type { ProviderErrorKind, ResolvedProvider } from "../../src/providers/types.ts";
import { FIXTURES } from "../support/fake-llm.ts";
import { testProvider } from "../support/stream-helpers.ts";

// Put together at run time so no key-like text is committed.
const KEY = ["sk", "proj", "S3cr3tK3yMaterial0123456789wxyz"].join("-");

function provider(id: string, apiKey: string | undefined = KEY): ResolvedProvider {
  return testProvider({ id, name: id, apiKey, keySource: apiKey ? "env TEST_API_KEY" : "none" });
}

const ERRORS_DIR = `${FIXTURES}errors/`;

/** Every real error body in the fixtures, with the kind it must be classified as. */
const EXPECTED: Record<string, ProviderErrorKind> = {
  "anthropic-400-prompt-too-long.json": "context_overflow",
  "anthropic-401-authentication-error.json": "auth",
  "anthropic-429-rate-limit-error.json": "rate_limit",
  "anthropic-529-overloaded-error.json": "overloaded",
  "gemini-400-api-key-invalid.json": "auth",
  "gemini-400-input-token-count-exceeded.json": "context_overflow",
  "gemini-429-resource-exhausted-retry-info.json": "rate_limit",
  "mistral-401-unauthorized.json": "auth",
  "ollama-404-model-not-found.json": "model_not_found",
  "ollama-500-error.json": "server",
  "openai-400-context-length-exceeded.json": "context_overflow",
  "openai-400-unsupported-parameter.json": "bad_request",
  "openai-401-invalid-api-key.json": "auth",
  "openai-429-rate-limit-tokens.json": "rate_limit",
  "openrouter-401-user-not-found.json": "auth",
};

async function fixture(name: string): Promise<{ status: number; body: unknown; vendor: string }> {
  const [vendor, status] = name.split("-");
  return { vendor: vendor!, status: Number(status), body: await Bun.file(ERRORS_DIR + name).json() };
}

describe("classifyHttpError with the real error bodies", () => {
  test("every fixture file has an expected kind", () => {
    const files = readdirSync(ERRORS_DIR)
      .filter((f) => f.endsWith(".json"))
      .sort();
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, kind] of Object.entries(EXPECTED)) {
    test(`${name} → ${kind}`, async () => {
      const { vendor, status, body } = await fixture(name);
      const error = classifyHttpError(provider(vendor), "some-model", { status, body });
      expect(error.kind).toBe(kind);
      expect(error.status).toBe(status);
      expect(error.message).toContain(vendor);
      expect(error.message).not.toContain(KEY);
      if (kind !== "auth") expect(error.message).toContain(bodyMessage(body)!.slice(0, 20));
      if (kind === "model_not_found") expect(error.message).toContain('"some-model"');
    });
  }

  test("Gemini's 429 carries its RetryInfo wait", async () => {
    const { status, body } = await fixture("gemini-429-resource-exhausted-retry-info.json");
    expect(classifyHttpError(provider("google"), "gemini-2.5-pro", { status, body }).retryAfterMs).toBe(
      34_400,
    );
  });

  test("Anthropic's mid-stream error bodies (no HTTP status) classify by type", async () => {
    const overloaded = await fixture("anthropic-529-overloaded-error.json");
    const limited = await fixture("anthropic-429-rate-limit-error.json");
    expect(classifyHttpError(provider("anthropic"), "m", { body: overloaded.body }).kind).toBe("overloaded");
    expect(classifyHttpError(provider("anthropic"), "m", { body: limited.body }).kind).toBe("rate_limit");
  });

  test("the retry-after header is attached to the error", async () => {
    const { status, body } = await fixture("anthropic-429-rate-limit-error.json");
    const error = classifyHttpError(provider("anthropic"), "m", {
      status,
      body,
      headers: { "retry-after": "7" },
    });
    expect(error.retryAfterMs).toBe(7000);
  });

  test("a failure with no body falls back to the SDK message, then to the status", () => {
    expect(
      classifyHttpError(provider("openai"), "m", { status: 502, message: "Bad Gateway" }).message,
    ).toContain("Bad Gateway");
    const bare = classifyHttpError(provider("openai"), "m", { status: 503 });
    expect(bare).toMatchObject({ kind: "server", status: 503 });
    expect(bare.message).toContain("HTTP 503");
  });

  test("an HTML body from a proxy still classifies by status", () => {
    const error = classifyHttpError(provider("openai"), "m", {
      status: 504,
      body: "<html><body>Gateway Timeout</body></html>",
    });
    expect(error.kind).toBe("server");
  });

  test("403 is auth; other 4xx are bad_request", () => {
    expect(classifyHttpError(provider("openai"), "m", { status: 403, body: {} }).kind).toBe("auth");
    expect(
      classifyHttpError(provider("openai"), "m", { status: 422, body: { detail: "nope" } }),
    ).toMatchObject({
      kind: "bad_request",
      status: 422,
    });
  });
});

describe("auth messages never contain the key", () => {
  test("invalid key: names the provider and the key's source, never the key", () => {
    const error = classifyHttpError(provider("openai"), "m", {
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${KEY}.`, code: "invalid_api_key" } },
    });
    expect(error.kind).toBe("auth");
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain(KEY.slice(8, 30));
    expect(error.message).toContain("openai");
    expect(error.message).toContain("env TEST_API_KEY");
  });

  test("no key at all: says how to log in", () => {
    const error = classifyHttpError({ ...provider("mistral"), apiKey: undefined }, "m", {
      status: 401,
      body: {},
    });
    expect(error.message).toContain("no API key for mistral");
    expect(error.message).toContain("ion providers login mistral");
  });

  test("a key echoed in a non-auth error body is redacted", () => {
    const error = classifyHttpError(provider("openai"), "m", {
      status: 400,
      body: { error: { message: `bad header Authorization: Bearer ${KEY}` } },
    });
    expect(error.kind).toBe("bad_request");
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain("…wxyz");
  });

  test("a base URL's credentials and a secret header never reach the line", () => {
    const gateway = testProvider({
      id: "gw",
      apiKey: KEY,
      baseURL: "http://user:hunter2@127.0.0.1:9/v1?token=s3cret",
      headers: { "x-gateway-key": "abc123secret", "x-title": "ion" },
    });
    const notFound = classifyHttpError(gateway, "m", {
      status: 404,
      body: { error: { message: "no route; gateway key abc123secret, password hunter2" } },
    });
    const refused = networkError(gateway, new Error("connect failed to http://user:hunter2@127.0.0.1:9/v1"));
    for (const line of [notFound.message, refused.message]) {
      for (const secret of ["hunter2", "s3cret", "abc123secret"]) expect(line).not.toContain(secret);
    }
    expect(notFound.message).toContain("check the base URL: http://***@127.0.0.1:9/v1?token=***");
    expect(refused.message).toContain("cannot reach gw at http://***@127.0.0.1:9/v1?token=***");
  });
});

describe("retryAfterMs", () => {
  test("retry-after-ms (float ms) wins over retry-after", () => {
    expect(retryAfterMs({ headers: { "retry-after-ms": "1500", "retry-after": "9" } })).toBe(1500);
    expect(retryAfterMs({ headers: new Headers({ "retry-after-ms": "250.4" }) })).toBe(250);
  });

  test("retry-after in seconds, header names case-insensitive", () => {
    expect(retryAfterMs({ headers: { "Retry-After": "2" } })).toBe(2000);
    expect(retryAfterMs({ headers: new Headers({ "Retry-After": "1.5" }) })).toBe(1500);
    expect(retryAfterMs({ headers: { "retry-after": "0" } })).toBe(0);
  });

  test("retry-after as an HTTP date", () => {
    const inThirty = new Date(Date.now() + 30_000).toUTCString();
    const wait = retryAfterMs({ headers: { "retry-after": inThirty } });
    expect(wait).toBeGreaterThan(28_000);
    expect(wait).toBeLessThanOrEqual(30_000);
    expect(retryAfterMs({ headers: { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" } })).toBe(0);
  });

  test("Gemini RetryInfo in the body", () => {
    const body = {
      error: {
        details: [
          { "@type": "type.googleapis.com/google.rpc.QuotaFailure" },
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "12s" },
        ],
      },
    };
    expect(retryAfterMs({ body })).toBe(12_000);
    expect(retryAfterMs({ body: { error: { details: [{ retryDelay: "0.3s" }] } } })).toBe(300);
  });

  test("nothing usable → undefined", () => {
    expect(retryAfterMs({})).toBeUndefined();
    expect(retryAfterMs({ headers: { "retry-after": "soon" } })).toBeUndefined();
    expect(retryAfterMs({ headers: { "retry-after": null, "x-other": "1" } })).toBeUndefined();
    expect(retryAfterMs({ body: { error: { details: [{ retryDelay: "later" }] } } })).toBeUndefined();
  });

  test("an empty header is no wait request (not 0 ms)", () => {
    expect(retryAfterMs({ headers: { "retry-after-ms": "", "retry-after": " " } })).toBeUndefined();
  });
});

describe("bodyMessage", () => {
  test("reads every body shape the providers use", () => {
    expect(bodyMessage({ error: { message: "nested" } })).toBe("nested");
    expect(bodyMessage({ error: "flat" })).toBe("flat");
    expect(bodyMessage({ message: "top" })).toBe("top");
    expect(bodyMessage({ detail: "fastapi" })).toBe("fastapi");
    expect(bodyMessage({ error: { detail: "Not Found" } })).toBe("Not Found");
    expect(bodyMessage("  plain text \n")).toBe("plain text");
  });

  test("nothing readable → undefined", () => {
    expect(bodyMessage(undefined)).toBeUndefined();
    expect(bodyMessage(null)).toBeUndefined();
    expect(bodyMessage(42)).toBeUndefined();
    expect(bodyMessage("   ")).toBeUndefined();
    expect(bodyMessage(["a"])).toBeUndefined();
    expect(bodyMessage({ error: { code: 1 } })).toBeUndefined();
  });
});
