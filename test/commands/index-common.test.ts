import { describe, expect, test } from "bun:test";
import { updateWarnings } from "../../src/code-index/answer-lines.ts";
import type { UpdateSummary } from "../../src/code-index/store.ts";
import { progressBar, summaryLine } from "../../src/commands/index-common.ts";

const SUMMARY: UpdateSummary = {
  files: 1234,
  parsed: 56,
  parsedPaths: [],
  removed: 2,
  unreadable: [],
  limitReached: false,
  symbols: 9876,
  references: 30_000,
  languages: { typescript: 1000, tsx: 0, javascript: 200, python: 34, rust: 0, go: 0 },
  skipped: { binary: 2, "not-utf8": 0, "too-large": 3, unsupported: 0 },
  ms: 1432,
};

describe("ion index's output", () => {
  test("one summary line: files, parsed, removed, symbols, languages (largest first), skipped, time", () => {
    expect(summaryLine(SUMMARY)).toBe(
      "indexed 1,234 files (56 parsed, 2 removed): 9,876 symbols; typescript 1,000, javascript 200, python 34; " +
        "skipped 5 (too-large 3, binary 2); 1.4 s",
    );
    const quiet = { ...SUMMARY, skipped: { ...SUMMARY.skipped, binary: 0, "too-large": 0 }, ms: 12.4 };
    expect(summaryLine(quiet)).toEndWith("python 34; 12 ms");
  });

  test("what an update could not do is one warning line each; nothing when it did all", () => {
    expect(updateWarnings(SUMMARY)).toEqual([]);
    expect(updateWarnings({ unreadable: ["src/a.ts", "src/b.ts", "lib"], limitReached: true })).toEqual([
      "could not read src/a.ts and 2 more: not indexed",
      "the project has more entries than a walk visits: files past them are not indexed",
    ]);
  });

  test("the progress bar draws in place on a terminal, at most ten times a second, and clears itself", () => {
    const written: string[] = [];
    const stream = {
      isTTY: true,
      write: (text: string) => written.push(text),
    } as unknown as NodeJS.WriteStream;
    const bar = progressBar(stream);
    bar.update(0, 4);
    bar.update(1, 4); // within 100 ms of the last drawing: skipped
    bar.update(4, 4); // the last is always drawn
    bar.done();
    bar.done();
    expect(written).toEqual([
      "\r\x1b[2Kindexing [                        ] 0/4 files",
      "\r\x1b[2Kindexing [########################] 4/4 files",
      "\r\x1b[2K",
    ]);
  });

  test("no progress bar when stderr is not a terminal", () => {
    const written: string[] = [];
    const stream = {
      isTTY: false,
      write: (text: string) => written.push(text),
    } as unknown as NodeJS.WriteStream;
    const bar = progressBar(stream);
    bar.update(1, 2);
    bar.done();
    expect(written).toEqual([]);
  });
});

test("one file and one symbol are singular", () => {
  const line = summaryLine({ ...SUMMARY, files: 1, parsed: 1, symbols: 1 });
  expect(line).toStartWith("indexed 1 file (1 parsed, 2 removed): 1 symbol;");
});
