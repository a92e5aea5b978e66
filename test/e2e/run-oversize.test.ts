/**
 * End to end: input that cannot fit the model's context window (10 MB on stdin, a huge -f file) is a
 * clear error before any request is made — naming its size and the window — and large input that fits
 * goes through.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { ResultSchema } from "../support/output-schemas.ts";

const { server, env } = useOpenAIServer("test-key-oversize");

describe("input larger than the window", () => {
  test("10 MB of piped stdin: refused before any request, naming the size and the window", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: "openai/gpt-4o-mini", context_window: 128_000 });
    const before = server.requests.length;
    const run = await box.run(["run", "-o", "json", "summarise this"], {
      env,
      stdin: "0123456789abcdef\n".repeat((10 * 1024 * 1024) / 17),
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(64);
    expect(server.requests.length).toBe(before);
    // Only what could fit is read (window × 12 bytes), not all 10 MB.
    expect(run.stderr).toMatch(
      /^ion: stdin holds more than 1\.5 MB of text, over 128k tokens; openai\/gpt-4o-mini takes 128k \(the rest was not read\)\n/,
    );
    expect(run.stderr).not.toContain("    at ");
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.errors[0]).toContain("takes 128k");
  });

  test("1 MB of piped stdin, read whole: refused with its estimated size", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: "openai/gpt-4o-mini", context_window: 128_000 });
    const before = server.requests.length;
    const run = await box.run(["run", "summarise this"], {
      env,
      stdin: "0123456789abcdef\n".repeat(2 ** 20 / 17),
    });
    expect(run.code).toBe(64);
    expect(server.requests.length).toBe(before);
    expect(run.stderr).toMatch(
      /^ion: the message is about 26\dk tokens \(1\.0 MB of text\); openai\/gpt-4o-mini takes 128k/,
    );
  });

  test("a -f file too large for the window is refused; one that fits is sent", async () => {
    using box = new Sandbox();
    await box.writeConfig({ model: "openai/gpt-4o-mini", context_window: 16_000 });
    writeFileSync(join(box.workspace, "big.txt"), "word ".repeat(40_000));
    writeFileSync(join(box.workspace, "fits.txt"), "word ".repeat(2_000));
    const before = server.requests.length;
    const big = await box.run(["run", "-f", "big.txt", "what is this?"], { env });
    expect(big.code).toBe(64);
    expect(big.stderr).toContain("takes 16k");
    expect(server.requests.length).toBe(before);

    server.enqueueReply("openai", { text: "words" });
    const fits = await box.run(["run", "-f", "fits.txt", "what is this?"], { env });
    expect(fits.code).toBe(0);
    expect(fits.stdout).toBe("words\n");
  });
});
