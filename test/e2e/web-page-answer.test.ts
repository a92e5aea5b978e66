/**
 * End to end: a 200 whose body is a web page (a site's catch-all route, a misconfigured proxy) is a
 * wrong base URL whatever its content type says. Labelled JSON, it used to read "ended mid-stream:
 * JSON Parse error"; it says what text/html already said, on both wires — and so does a page labelled
 * plain text, bytes or nothing, where it read "the stream ended before the model finished".
 */
import { describe, expect, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { streamReply } from "../support/wire-scripts.ts";

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

  test("labelled plain text or bytes, a page is still told as a web page; a stream's label is trusted", async () => {
    using box = new Sandbox();
    for (const type of ["text/plain; charset=utf-8", "application/octet-stream"]) {
      server.enqueue({
        status: 200,
        headers: { "content-type": type },
        body: PAGE,
        pathSuffix: "/chat/completions",
      });
      const run = await box.run(["run", "--no-session", "-m", "openai/gpt-4o", "hi"], { env });
      expect(run.code).toBe(1);
      expect(errorLines(run.stderr)).toEqual([
        `ion: openai answered with a web page (${type.split(";")[0]}), not an event stream: check the base URL: ${server.url}/v1`,
      ]);
    }
    // A real stream labelled plain text still streams.
    const reply = streamReply("openai", { text: "Streamed anyway." });
    server.enqueue({ ...reply, headers: { ...reply.headers, "content-type": "text/plain" } });
    const streamed = await box.run(["run", "--no-session", "-m", "openai/gpt-4o", "hi"], { env });
    expect(streamed.stdout).toBe("Streamed anyway.\n");
    expect(streamed.code).toBe(0);
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
