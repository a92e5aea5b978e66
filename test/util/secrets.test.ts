import { describe, expect, test } from "bun:test";
import {
  holdsSecret,
  isSecretHeader,
  maskBaseURL,
  maskConfigSecrets,
  maskHeaderValue,
  maskKey,
  maskUrl,
  redactText,
} from "../../src/util/secrets.ts";

// Fake keys only, assembled so the source holds no key-shaped literal.
const KEY = ["sk", "proj", "S3cr3tK3yMaterial0123456789wxyz"].join("-");

describe("maskKey", () => {
  test("keeps only a prefix hint and the last four", () => {
    expect(maskKey(KEY)).toBe("sk-…wxyz");
    expect(maskKey("AIzaSyA-1234567890")).toBe("…7890");
    expect(maskKey("short")).toBe("…");
    expect(maskKey("12345678")).toBe("…");
  });
});

describe("maskUrl", () => {
  test("user info becomes *** and query values are masked, parameter names kept", () => {
    expect(maskUrl("http://user:hunter2@127.0.0.1:8080/v1?token=s3cret&api-version=2024")).toBe(
      "http://***@127.0.0.1:8080/v1?token=***&api-version=***",
    );
    expect(maskUrl("https://token@gw.example.com/v1")).toBe("https://***@gw.example.com/v1");
    expect(maskUrl("https://gw.example.com/v1?s3cret")).toBe("https://gw.example.com/v1?***");
    expect(maskUrl("https://gw.example.com/v1#s3cret")).toBe("https://gw.example.com/v1#***");
  });

  test("a URL without credentials comes back exactly as written", () => {
    for (const url of ["https://api.openai.com/v1", "http://127.0.0.1:11434/v1/", "https://x.io/p?empty="])
      expect(maskUrl(url)).toBe(url);
    expect(maskUrl("not a url: user:pw@host")).toBe("not a url: user:pw@host");
  });

  test("maskBaseURL hides user info and a query even in a base URL that is not a URL", () => {
    expect(maskBaseURL("htp:/user:pw@host/v1?token=abc")).toBe("***@host/v1?***");
    expect(maskBaseURL("127.0.0.1:11434")).toBe("127.0.0.1:11434");
    expect(maskBaseURL("http://u:pw@h/v1")).toBe("http://***@h/v1");
  });

  test("an @ in the path is not user info", () => {
    expect(maskUrl("https://host.example/v1/@scope/name")).toBe("https://host.example/v1/@scope/name");
  });
});

describe("maskHeaderValue", () => {
  test("secret-looking names are masked, keeping the auth scheme", () => {
    expect(maskHeaderValue("Authorization", `Bearer ${KEY}`)).toBe("Bearer sk-…wxyz");
    expect(maskHeaderValue("x-gateway-key", "abc123secret")).toBe("…cret");
    expect(maskHeaderValue("Cookie", "session=abcdefghijkl")).toBe("…ijkl");
    expect(maskHeaderValue("x-api-key", "short")).toBe("…");
  });

  test("other headers are shown as they are", () => {
    expect(maskHeaderValue("X-Title", "ion")).toBe("ion");
    expect(maskHeaderValue("HTTP-Referer", "https://example.com")).toBe("https://example.com");
  });

  test("what counts as secret", () => {
    for (const name of ["authorization", "proxy-authorization", "x-api-key", "api-key", "x-auth-token"])
      expect(isSecretHeader(name)).toBe(true);
    for (const name of ["x-client-secret", "x-password", "set-cookie", "openai-organization-key"])
      expect(isSecretHeader(name)).toBe(true);
    for (const name of ["x-title", "content-type", "user-agent"]) expect(isSecretHeader(name)).toBe(false);
  });
});

describe("redactText", () => {
  test("masks the known key and keeps the rest of the message", () => {
    const out = redactText(`Incorrect API key provided: ${KEY}. See the docs.`, [KEY]);
    expect(out).toBe("Incorrect API key provided: sk-…wxyz. See the docs.");
  });

  test("masks other key-shaped tokens a server echoes (a gateway's upstream key)", () => {
    const other = ["sk-ant", "api03", "AAAABBBBCCCCDDDDEEEE"].join("-");
    const groq = ["gsk", "0123456789abcdefWXYZ"].join("_");
    expect(redactText(`leaked ${other} here, and ${groq}.`, [KEY])).toBe("leaked sk-…EEEE here, and …WXYZ.");
  });

  test("OpenAI's own half-masked echo is masked the same way", () => {
    const echoed = `Incorrect API key provided: sk-VKMIs${"*".repeat(39)}wjh3. You can find your API key at x.`;
    expect(redactText(echoed)).toBe("Incorrect API key provided: sk-…wjh3. You can find your API key at x.");
  });

  test("non-sk keys and repeated occurrences", () => {
    const google = "AIzaSyA-1234567890abcdefGHIJ";
    expect(redactText(`${google} and again ${google}`, [google])).toBe("…GHIJ and again …GHIJ");
  });

  test("known secrets: header values, longest first; too short ones are left alone", () => {
    const out = redactText("x-gateway-key: abc123secret\nauthorization: Bearer abc123secret-long", [
      "abc123secret",
      "Bearer abc123secret-long",
      "abc",
    ]);
    expect(out).toBe("x-gateway-key: …cret\nauthorization: …long");
    expect(redactText("abc abc", ["abc", undefined])).toBe("abc abc");
  });

  test("a Bearer credential and URLs with credentials inside free text", () => {
    const text =
      "fetch http://user:hunter2@127.0.0.1:9/v1/chat?token=s3cret failed (see https://docs.example.com/errors). Authorization: Bearer abcdefghijklmnop";
    expect(redactText(text)).toBe(
      "fetch http://***@127.0.0.1:9/v1/chat?token=*** failed (see https://docs.example.com/errors). Authorization: Bearer …mnop",
    );
  });

  test("leaves text without secrets alone", () => {
    expect(redactText("nothing secret at https://api.openai.com/v1.")).toBe(
      "nothing secret at https://api.openai.com/v1.",
    );
  });
});

describe("config objects", () => {
  const config = () => ({
    model: "gw/m",
    api_key: KEY,
    api_base: "http://u:hunter2@h.example/v1",
    providers: {
      gw: {
        api_key: KEY,
        api_base: "https://h.example/v1?token=s3cret",
        headers: { "x-gateway-key": "abc123secret", "X-Title": "ion" },
      },
    },
  });

  test("maskConfigSecrets masks keys, URL credentials and secret headers in place", () => {
    const view = config();
    maskConfigSecrets(view);
    expect(view).toEqual({
      model: "gw/m",
      api_key: "sk-…wxyz",
      api_base: "http://***@h.example/v1",
      providers: {
        gw: {
          api_key: "sk-…wxyz",
          api_base: "https://h.example/v1?token=***",
          headers: { "x-gateway-key": "…cret", "X-Title": "ion" },
        },
      },
    });
  });

  test("holdsSecret: a key, a secret header or a password in api_base", () => {
    expect(holdsSecret(config())).toBe(true);
    expect(holdsSecret({ providers: { x: { api_key: "k" } } })).toBe(true);
    expect(holdsSecret({ providers: { x: { headers: { authorization: "Bearer t" } } } })).toBe(true);
    expect(holdsSecret({ api_base: "http://u:p@h/v1" })).toBe(true);
    expect(holdsSecret({ model: "openai/gpt-4o", providers: { x: { headers: { "X-Title": "ion" } } } })).toBe(
      false,
    );
    expect(holdsSecret({ api_key: "" })).toBe(false);
    expect(holdsSecret(undefined)).toBe(false);
  });
});
