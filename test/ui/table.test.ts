import { describe, expect, test } from "bun:test";
import { type Column, fitWidths, renderTable, truncate } from "../../src/ui/table.ts";

const COLUMNS: Column[] = [{ header: "NAME" }, { header: "DESCRIPTION" }, { header: "SIZE", align: "right" }];
const ROWS = [
  ["alpha", "the first letter of the Greek alphabet", "1"],
  ["beta", "second", "200"],
];

describe("truncate", () => {
  test("leaves text that fits alone", () => {
    expect(truncate("hello", 5)).toBe("hello");
    expect(truncate("", 0)).toBe("");
  });
  test("cuts with an ellipsis inside the width", () => {
    expect(truncate("hello world", 6)).toBe("hello…");
    expect(truncate("hello", 1)).toBe("…");
    expect(truncate("hello", 0)).toBe("");
  });
  test("counts wide characters as two columns", () => {
    expect(truncate("日本語テキスト", 5)).toBe("日本…");
    expect(Bun.stringWidth(truncate("日本語テキスト", 6))).toBeLessThanOrEqual(6);
  });
});

describe("renderTable", () => {
  test("aligns columns, right-aligns numbers, trims trailing spaces", () => {
    const out = renderTable(COLUMNS, ROWS);
    expect(out).toBe(
      [
        "NAME   DESCRIPTION                             SIZE",
        "alpha  the first letter of the Greek alphabet     1",
        "beta   second                                   200",
        "",
      ].join("\n"),
    );
  });

  test("without a width nothing is cut", () => {
    const out = renderTable(COLUMNS, ROWS);
    expect(out).toContain("the first letter of the Greek alphabet");
    expect(out).not.toContain("…");
  });

  test("fits the width by cutting the widest column", () => {
    const out = renderTable(COLUMNS, ROWS, { width: 30 });
    const lines = out.trimEnd().split("\n");
    for (const line of lines) expect(Bun.stringWidth(line)).toBeLessThanOrEqual(30);
    expect(lines[1]).toBe("alpha  the first letter…     1");
    expect(lines[2]).toBe("beta   second              200");
    // the other columns keep their widths
    expect(lines[0]).toStartWith("NAME   DESCRIPTION");
  });

  test("shrinks the widest column first, then whichever is widest", () => {
    expect(fitWidths([{ header: "A" }, { header: "B" }], [["aaaaaaaaaa", "bbbbbb"]], 12, 2)).toEqual([5, 5]);
    expect(fitWidths([{ header: "A" }, { header: "B" }], [["aaaaaaaaaa", "bbb"]], 12, 2)).toEqual([7, 3]);
  });

  test("never cuts below a column's floor", () => {
    const widths = fitWidths([{ header: "HEADER" }, { header: "X", minWidth: 3 }], [["h", "xxxxxx"]], 4);
    expect(widths).toEqual([6, 3]);
  });

  test("styles cells after cutting, never the padding, and plain tables have no ANSI", () => {
    const dim = (text: string) => `\x1b[2m${text}\x1b[22m`;
    const plain = renderTable(COLUMNS, ROWS);
    expect(plain).not.toContain("\x1b");
    const styled = renderTable(COLUMNS, [[{ text: "alpha", style: dim }, "x", "1"]], { width: 24 });
    expect(styled).toContain("\x1b[2malpha\x1b[22m  x");
    expect(Bun.stripANSI(styled)).toBe("NAME   DESCRIPTION  SIZE\nalpha  x               1\n");
    const cut = renderTable(COLUMNS, [[{ text: "alphabet", style: dim }, "x", "1"]], { width: 24 });
    expect(cut).toContain("\x1b[2malph…\x1b[22m  x");
  });

  test("replaces newlines and tabs in cells, and handles an empty table", () => {
    expect(renderTable([{ header: "A" }], [["one\ntwo\tthree"]])).toBe("A\none two three\n");
    expect(renderTable(COLUMNS, [])).toBe("NAME  DESCRIPTION  SIZE\n");
  });
});
