/**
 * End to end: binary data on stdin (`head -c 3000 /dev/urandom | ion run`) is refused as `-f` refuses a
 * binary file — one line, exit 1, nothing sent — whether stdin is the prompt or context, a line of
 * `--input-format stream-json`, or a line of piped chat (the turns before it stand).
 */
import { describe, expect, test } from "bun:test";
import { collect, ionCommand, jsonLines, Sandbox } from "../support/cli.ts";
import { transcript, useOpenAIServer } from "../support/e2e.ts";

const KEY = "sk-test-stdin-binary-000000000000000042";
const MODEL = "openai/gpt-4o-mini";
const REFUSED = "ion: cannot read stdin: it is binary data (NUL bytes or invalid UTF-8), not text\n";
const { server, env } = useOpenAIServer(KEY);

/** 3000 random bytes, as `head -c 3000 /dev/urandom`, with a NUL and an invalid UTF-8 byte for certain. */
function randomBytes(): Uint8Array<ArrayBuffer> {
  const bytes = crypto.getRandomValues(new Uint8Array(3000));
  bytes[100] = 0x00;
  bytes[200] = 0xff;
  return bytes;
}

/** Latin-1 text: no NUL byte, but not UTF-8 either (é is 0xe9). */
const LATIN1 = new Uint8Array([...new TextEncoder().encode("caf"), 0xe9, 0x0a]);

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

/** Runs ion with `stdin` as its piped input; returns the run and the model requests it made. */
async function withStdin(box: Sandbox, args: string[], stdin: Uint8Array<ArrayBuffer>) {
  const before = server.requests.length;
  const child = Bun.spawn([...ionCommand(), ...args], {
    cwd: box.workspace,
    env: box.env(env),
    stdin: new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const run = await collect(child);
  clearTimeout(timer);
  return { ...run, requests: server.requests.slice(before) };
}

async function configured(): Promise<Sandbox> {
  const box = new Sandbox();
  await box.writeConfig({ model: MODEL });
  return box;
}

describe("binary stdin", () => {
  test("as the prompt or as context: one line, exit 1, and no request", async () => {
    using box = await configured();
    for (const stdin of [randomBytes(), LATIN1])
      for (const args of [["run"], ["run", "-"], ["run", "summarise this"]]) {
        const run = await withStdin(box, args, stdin);
        expect({ args, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
          args,
          code: 1,
          stdout: "",
          stderr: REFUSED,
        });
        expect(run.requests).toHaveLength(0);
      }
  });

  test("-o json: the error is the result's, exit 1", async () => {
    using box = await configured();
    const run = await withStdin(box, ["run", "-o", "json"], randomBytes());
    expect(run.code).toBe(1);
    const [result] = jsonLines(run.stdout);
    expect(result).toMatchObject({ type: "result", is_error: true, errors: [REFUSED.slice(5, -1)] });
    expect(run.requests).toHaveLength(0);
  });

  test("--input-format stream-json: the message before the binary line is answered, then exit 1", async () => {
    using box = await configured();
    server.enqueueReply("openai", { text: "First answered." });
    const message = JSON.stringify({ type: "user", message: { role: "user", content: "first" } });
    const stdin = concat(new TextEncoder().encode(`${message}\n`), randomBytes());
    const run = await withStdin(box, ["run", "--input-format", "stream-json", "-o", "stream-json"], stdin);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("ion: stdin line 2 is binary data (NUL bytes or invalid UTF-8), not text\n");
    expect(run.requests).toHaveLength(1);
    expect(transcript(run.requests[0]!)).toEqual(["user: first"]);
    const results = jsonLines(run.stdout).filter((line) => line.type === "result");
    expect(results.map((r) => [r.is_error, r.result])).toEqual([
      [false, "First answered."],
      [true, ""],
    ]);
  });

  test("piped chat: the turns before a binary line are answered, then exit 1", async () => {
    using box = await configured();
    server.enqueueReply("openai", { text: "Hello back." });
    const stdin = concat(
      new TextEncoder().encode("hello\n"),
      LATIN1,
      new TextEncoder().encode("never sent\n"),
    );
    const run = await withStdin(box, ["chat"], stdin);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("Hello back.\n");
    expect(run.stderr).toEndWith("ion: stdin line 2 is binary data (NUL bytes or invalid UTF-8), not text\n");
    expect(run.requests).toHaveLength(1);
    expect(transcript(run.requests[0]!)).toEqual(["user: hello"]);
  });
});
