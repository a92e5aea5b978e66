/**
 * End to end: a 200 whose body is a web page (a site's catch-all route, a misconfigured proxy) is a
 * wrong base URL whatever its content type says. Labelled JSON, it used to read "ended mid-stream:
 * JSON Parse error"; it says what text/html already said, on both wires.
 */
import { describe, expect, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const KEY = "sk-test-web-page-unused";
const { server, env } = useOpenAIServer(KEY);
const PAGE = "<!DOCTYPE html>\n<html><head><title>Welcome</title></head><body>Our site</body></html>";

function errorLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("ion: "));
}

describe("a web page labelled JSON", () => {
  test("OpenAI wire: it says to check the base URL", async () => {
    using box = new Sandbox();
    server.enqueue({
      status: 200,
      headers: { "content-type": "application/json" },
      body: PAGE,
      pathSuffix: "/chat/completions",
    });
    const run = await box.run(["run", "--no-session", "-m", "openai/gpt-4o", "hi"], { env });
    expect(run.code).toBe(1);
    expect(errorLines(run.stderr)).toEqual([
      `ion: openai answered with a web page (application/json), not an event stream: check the base URL: ${server.url}/v1`,
    ]);
  });

  test("Anthropic wire: the same words", async () => {
    using box = new Sandbox();
    server.enqueue({
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: PAGE,
      pathSuffix: "/v1/messages",
    });
    const run = await box.run(["run", "--no-session", "-m", "anthropic/claude-sonnet-4-5", "hi"], {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY },
    });
    expect(run.code).toBe(1);
    expect(errorLines(run.stderr)).toEqual([
      `ion: anthropic answered with a web page (application/json), not an event stream: check the base URL: ${server.url}`,
    ]);
  });
});
