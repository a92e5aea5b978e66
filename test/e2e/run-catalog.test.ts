/**
 * End to end: `ion run` with the model catalogue cached — cost from the catalogue's prices, unknown
 * ids refused with suggestions, and null (never 0) when a price is unknown.
 */
import { describe, expect, test } from "bun:test";
import { Sandbox } from "../support/cli.ts";
import { useOpenAIServer, warmCatalog } from "../support/e2e.ts";
import { ResultSchema } from "../support/output-schemas.ts";

const KEY = "sk-test-catalog-key-000000000000000321";
const { server, env } = useOpenAIServer(KEY, (url) => ({ ION_MODELS_URL: `${url}/api.json` }));

const warm = (box: Sandbox) => warmCatalog(server, box, env);

describe("ion run with a cached catalogue", () => {
  test("total_cost_usd comes from the catalogue's prices", async () => {
    using box = new Sandbox();
    await warm(box);
    server.enqueueReply("openai", { text: "priced", usage: { input: 1000, output: 500 } });
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "hi"], { env });
    expect(run.code).toBe(0);
    // gpt-4o in the snapshot: $2.50 in, $10 out per 1M tokens.
    expect(ResultSchema.parse(JSON.parse(run.stdout)).total_cost_usd).toBeCloseTo(0.0075, 9);
  });

  test("a price the catalogue does not know makes the cost null, never 0", async () => {
    using box = new Sandbox();
    await warm(box);
    // The snapshot has no cache-read price for gpt-4o, and this usage has cached tokens.
    server.enqueueReply("openai", { text: "cached", usage: { input: 100, output: 10, cacheRead: 900 } });
    const run = await box.run(["run", "-m", "openai/gpt-4o", "-o", "json", "hi"], { env });
    expect(run.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).total_cost_usd).toBeNull();
  });

  test("an unknown model id is refused before any request, with did-you-mean", async () => {
    using box = new Sandbox();
    await warm(box);
    const before = server.requests.length;
    const run = await box.run(["run", "-m", "openai/gpt-4o-mnii", "hi"], { env });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('unknown model "openai/gpt-4o-mnii"');
    expect(run.stderr).toContain("did you mean openai/gpt-4o-mini");
    expect(server.requests.length).toBe(before);
  });

  test("the same unknown id from the config file is a configuration error (exit 1), not a usage error", async () => {
    using box = new Sandbox();
    await warm(box);
    await box.writeConfig({ model: "openai/gpt-4o-mnii" });
    const before = server.requests.length;
    const run = await box.run(["run", "hi"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unknown model "openai/gpt-4o-mnii"');
    expect(server.requests.length).toBe(before);
  });

  test("without a cached catalogue the run goes ahead and the cost is unknown", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "no catalogue" });
    const run = await box.run(["run", "-m", "openai/brand-new-model", "-o", "json", "hi"], { env });
    expect(run.code).toBe(0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).total_cost_usd).toBeNull();
  });
});
