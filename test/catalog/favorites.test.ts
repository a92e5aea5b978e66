import { describe, expect, test } from "bun:test";
import type { ModelInfo } from "../../src/catalog/catalog.ts";
import { favoriteIds, favoritesFirst, splitModelId, unlistedModel } from "../../src/catalog/favorites.ts";

const model = (id: string): ModelInfo => ({ ...unlistedModel(id, true), name: id });
const MODELS = ["anthropic/claude-sonnet-4-5-20250929", "openai/gpt-4o", "openai/gpt-4o-mini"].map(model);

describe("favourites against the catalogue", () => {
  test("the model id after the provider may hold slashes", () => {
    expect(splitModelId("openrouter/anthropic/claude")).toEqual({
      provider: "openrouter",
      model: "anthropic/claude",
    });
  });

  test("first in the user's order; an undated name stars its dated snapshot; unknown ones are skipped", () => {
    const favorites = ["openai/gpt-4o-mini", "openai/nosuch", "anthropic/claude-sonnet-4-5"];
    expect(favoritesFirst(MODELS, favorites).map((m) => m.id)).toEqual([
      "openai/gpt-4o-mini",
      "anthropic/claude-sonnet-4-5-20250929",
      "openai/gpt-4o",
    ]);
    expect([...favoriteIds(MODELS, favorites)].sort()).toEqual([
      "anthropic/claude-sonnet-4-5-20250929",
      "openai/gpt-4o-mini",
    ]);
  });

  test("no favourites: the same list, nothing starred", () => {
    expect(favoritesFirst(MODELS, undefined)).toBe(MODELS);
    expect(favoriteIds(MODELS, []).size).toBe(0);
  });
});
