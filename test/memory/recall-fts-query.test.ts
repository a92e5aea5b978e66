import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { MAX_TERMS, toFtsQuery } from "../../src/memory/fts-query.ts";

describe("toFtsQuery", () => {
  test("quoted words OR-ed, lowercased, stopwords and lone letters dropped, repeats once", () => {
    expect(toFtsQuery("What port does the Staging server use? staging!")).toBe(
      '"port" OR "staging" OR "server"',
    );
    expect(toFtsQuery("a b c")).toBe("");
    expect(toFtsQuery("")).toBe("");
    expect(toFtsQuery("build 2 failed")).toBe('"build" OR "2" OR "failed"');
  });

  test("a long prompt is cut to MAX_TERMS words", () => {
    const text = Array.from({ length: 100 }, (_, i) => `word${i}`).join(" ");
    expect(toFtsQuery(text).split(" OR ")).toHaveLength(MAX_TERMS);
  });

  test("never throws, and SQLite accepts every expression it makes", () => {
    const db = new Database(":memory:");
    db.run("CREATE VIRTUAL TABLE f USING fts5 (c, tokenize = 'porter unicode61 remove_diacritics 2')");
    db.run("INSERT INTO f VALUES ('the café near the station, 猫 and naïve tests')");
    const nasty = [
      '"',
      '""',
      "'",
      "a*",
      "*",
      "NEAR(café station, 2)",
      "near",
      "AND OR NOT",
      "c : café",
      "c:café",
      "^café",
      "(café",
      "café)",
      "-café",
      "+café",
      "{c}: café",
      "\u0000\u0001",
      "x\u200by",
      "\u0301",
      "🙂🙂",
      "猫",
      "Naïve",
      "naive",
      "TESTS",
      "a".repeat(10_000),
      "\uD800 lone surrogate",
    ];
    // Plus random strings over a hostile alphabet.
    const alphabet = [
      '"',
      "*",
      "(",
      ")",
      ":",
      "^",
      "-",
      "+",
      " ",
      "a",
      "é",
      "N",
      "E",
      "A",
      "R",
      "猫",
      "\n",
      "'",
      "{",
      "}",
    ];
    let seed = 99;
    for (let i = 0; i < 300; i++) {
      let s = "";
      for (let j = 0; j < 12; j++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        s += alphabet[seed % alphabet.length];
      }
      nasty.push(s);
    }
    let matched = 0;
    for (const text of nasty) {
      const expression = toFtsQuery(text);
      if (expression === "") continue;
      const row = db.query("SELECT count(*) AS n FROM f WHERE f MATCH ?").get(expression) as { n: number };
      matched += row.n;
    }
    expect(matched).toBeGreaterThan(0);
    expect(db.query("SELECT count(*) AS n FROM f WHERE f MATCH ?").get(toFtsQuery("naive"))).toEqual({
      n: 1,
    });
    expect(db.query("SELECT count(*) AS n FROM f WHERE f MATCH ?").get(toFtsQuery("test"))).toEqual({ n: 1 });
    db.close();
  });
});
