/**
 * What `ion memory` and `/memory` share (commands/memory-common.ts, memory-search.ts): dates as the
 * flags take them, a memory's one-line summary, and the score parts of a search.
 */
import { describe, expect, test } from "bun:test";
import { memorySummary, parseDate, parseLimit } from "../../src/commands/memory-common.ts";
import { scoreText } from "../../src/commands/memory-search.ts";
import { IonError } from "../../src/errors.ts";

describe("parseDate", () => {
  test("a day is local: its first millisecond for --since, its last for --as-of", () => {
    expect(parseDate("--since", "2026-11-26", "start")).toBe(new Date(2026, 10, 26).getTime());
    expect(parseDate("--as-of", "2026-11-26", "end")).toBe(new Date(2026, 10, 27).getTime() - 1);
  });

  test("an ISO time is taken as written", () => {
    expect(parseDate("--as-of", "2026-11-26T14:30:00Z", "end")).toBe(Date.UTC(2026, 10, 26, 14, 30));
  });

  test.each(["yesterday", "2026-02-30", "26/11/2026", "2026-11-26T99:00", ""])(
    "%p is a usage error",
    (text) => {
      expect(() => parseDate("--as-of", text, "end")).toThrow(IonError);
    },
  );

  test("--limit takes a positive whole number", () => {
    expect(parseLimit(undefined, 20)).toBe(20);
    expect(parseLimit("5", 20)).toBe(5);
    for (const bad of ["0", "-1", "2.5", "ten"]) expect(() => parseLimit(bad, 20)).toThrow(IonError);
  });
});

describe("how a memory and its score read", () => {
  test("one line: day, type, content cut to the width; forgotten ones say when", () => {
    const at = new Date(2026, 10, 26, 12).getTime();
    const memory = {
      id: "01a218de-1584-735f-8000-000000000000",
      content: "user: a long\nmessage that goes on and on",
      source: "s1",
      type: "episodic" as const,
      createdAt: at,
      validFrom: at,
      validTo: null,
      tokens: 10,
    };
    expect(memorySummary(memory, 20)).toBe("2026-11-26  episodic    user: a long messag…");
    expect(memorySummary({ ...memory, validTo: new Date(2026, 10, 27, 9).getTime() }, 80)).toEndWith(
      "(forgotten 2026-11-27)",
    );
  });

  test("score parts: the fused score, each list's rank, the recency prior", () => {
    expect(scoreText({ fused: 0.0325, bm25Rank: 1, bm25: -3.214, recency: 0.0012 })).toBe(
      "score 0.0325 · bm25 #1 (-3.21) · recency +0.0012",
    );
    expect(scoreText({ fused: 0.02, vectorRank: 4, similarity: 0.8123, recency: 0 })).toBe(
      "score 0.0200 · vector #4 (0.812) · recency +0.0000",
    );
  });
});
