import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ModelInfo } from "../../src/catalog/catalog.ts";
import { costOf } from "../../src/catalog/cost.ts";
import type { Usage } from "../../src/providers/types.ts";
import { FIXTURES } from "../support/fake-llm.ts";

interface SnapshotModel {
  name: string;
  limit: { context: number; output: number };
  cost?: { input: number; output: number };
}

/** A ModelInfo priced as the models.dev snapshot prices it (the snapshot has no cache prices). */
async function fromSnapshot(provider: string, model: string): Promise<ModelInfo> {
  const snapshot = JSON.parse(await readFile(join(FIXTURES, "models-dev-snapshot.json"), "utf8")) as Record<
    string,
    { models: Record<string, SnapshotModel> }
  >;
  const entry = snapshot[provider]?.models[model];
  if (!entry) throw new Error(`${provider}/${model} is not in the snapshot`);
  return {
    id: `${provider}/${model}`,
    provider,
    model,
    name: entry.name,
    context: entry.limit.context,
    output: entry.limit.output,
    input_cost: entry.cost?.input ?? null,
    output_cost: entry.cost?.output ?? null,
    cache_read_cost: null,
    cache_write_cost: null,
    tool_call: true,
    reasoning: true,
    release_date: null,
    configured: true,
  };
}

function usage(partial: Partial<Usage>): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    ...partial,
  };
}

describe("costOf", () => {
  test("input and output at the snapshot's prices", async () => {
    const sonnet = await fromSnapshot("anthropic", "claude-sonnet-4-5-20250929");
    expect([sonnet.input_cost, sonnet.output_cost]).toEqual([3, 15]);
    // 1234 × $3/1M + 567 × $15/1M = (3702 + 8505) / 1e6
    expect(costOf(usage({ input_tokens: 1234, output_tokens: 567 }), sonnet)).toBe(0.012207);

    const gpt4o = await fromSnapshot("openai", "gpt-4o");
    // 1 000 001 × $2.5/1M + 3 × $10/1M = (2 500 002.5 + 30) / 1e6
    expect(costOf(usage({ input_tokens: 1_000_001, output_tokens: 3 }), gpt4o)).toBe(2.5000325);
  });

  test("cache reads and writes are priced separately", async () => {
    const sonnet = {
      ...(await fromSnapshot("anthropic", "claude-sonnet-4-5")),
      cache_read_cost: 0.3,
      cache_write_cost: 3.75,
    };
    const scripted = usage({
      input_tokens: 100,
      output_tokens: 200,
      cache_read_input_tokens: 10_000,
      cache_creation_input_tokens: 2_000,
    });
    // 100×3 + 200×15 + 10 000×0.3 + 2 000×3.75 = 300 + 3000 + 3000 + 7500 = 13 800 → $0.0138
    expect(costOf(scripted, sonnet)).toBe(0.0138);
  });

  test("null when a needed price is unknown, never a guessed 0", async () => {
    const sonnet = await fromSnapshot("anthropic", "claude-sonnet-4-5");
    expect(costOf(usage({ input_tokens: 10, cache_read_input_tokens: 5 }), sonnet)).toBeNull();
    expect(costOf(usage({ input_tokens: 10, cache_creation_input_tokens: 5 }), sonnet)).toBeNull();
    expect(costOf(usage({ input_tokens: 10 }), undefined)).toBeNull();
    expect(costOf(usage({ input_tokens: 10 }), { ...sonnet, input_cost: null })).toBeNull();
    expect(costOf(usage({ output_tokens: 10 }), { ...sonnet, output_cost: null })).toBeNull();
  });

  test("zero tokens of a kind need no price", async () => {
    const sonnet = await fromSnapshot("anthropic", "claude-sonnet-4-5");
    expect(costOf(usage({ output_tokens: 1000 }), { ...sonnet, input_cost: null })).toBe(0.015);
    expect(costOf(usage({}), sonnet)).toBe(0);
  });

  test("rounded to a nano-dollar, free of floating-point noise", async () => {
    const cheap = { ...(await fromSnapshot("openai", "gpt-4o")), input_cost: 0.1, output_cost: 0.2 };
    // 3 × 0.1 is 0.30000000000000004 in floating point.
    expect(costOf(usage({ input_tokens: 3 }), cheap)).toBe(3e-7);
    expect(costOf(usage({ input_tokens: 1, output_tokens: 1 }), cheap)).toBe(3e-7);
  });
});
