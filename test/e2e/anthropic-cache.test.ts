/**
 * End to end: Anthropic requests carry prompt-cache breakpoints on the tool list, the system prompt
 * and the newest message, and the system prompt's bytes do not change between turns — so a
 * continued conversation reads the cache, and the provider's cache reads show in the usage.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm.ts";
import { ResultSchema } from "../support/output-schemas.ts";

let server: FakeLLM;
beforeAll(async () => {
  server = await startFakeLLM();
});
afterAll(async () => {
  await server.stop();
});

type Block = { type: string; cache_control?: { type: string } };
type Body = {
  system: Block[];
  tools: (Block & { name: string })[];
  messages: { role: string; content: Block[] }[];
};

describe("Anthropic prompt caching", () => {
  test("breakpoints on tools, system and the last message; identical system prompt across turns", async () => {
    using box = new Sandbox();
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key-anthropic-cache" };
    const model = ["-m", "anthropic/claude-sonnet-4-5"];
    server.enqueueReply("anthropic", { text: "First.", usage: { input: 900, output: 3, cacheWrite: 2000 } });
    const first = await box.run(["run", ...model, "-o", "json", "one"], { env });
    expect(first.code).toBe(0);
    server.enqueueReply("anthropic", { text: "Second.", usage: { input: 12, output: 3, cacheRead: 2900 } });
    const second = await box.run(["run", ...model, "-c", "-o", "json", "two"], { env });
    expect(second.code).toBe(0);

    const [a, b] = server.requests.slice(-2).map((r) => r.body as Body);
    for (const body of [a!, b!]) {
      expect(body.system.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
      expect(body.tools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
      expect(body.tools.slice(0, -1).some((t) => t.cache_control)).toBe(false);
      expect(body.messages.at(-1)?.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    }
    expect(JSON.stringify(b!.system)).toBe(JSON.stringify(a!.system));
    expect(JSON.stringify(b!.tools)).toBe(JSON.stringify(a!.tools));
    // The earlier turn is sent again as it was, without its old breakpoint.
    expect(
      b!.messages
        .slice(0, -1)
        .flatMap((m) => m.content)
        .some((c) => c.cache_control),
    ).toBe(false);
    expect(ResultSchema.parse(JSON.parse(second.stdout)).usage.cache_read_input_tokens).toBe(2900);
  });
});
