import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendHistory, HISTORY_SIZE, loadHistory, recordInHistory } from "../../src/chat/input-history.ts";

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "ion-input-history-"));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("input history", () => {
  test("a multi-line message is one entry, read back with its line breaks, newest first", () => {
    withDir((dir) => {
      const file = join(dir, "sub", "input_history.jsonl");
      appendHistory(file, "one");
      appendHistory(file, "first line\nsecond line");
      expect(readFileSync(file, "utf8")).toBe('"one"\n"first line\\nsecond line"\n');
      expect(loadHistory(file)).toEqual(["first line\nsecond line", "one"]);
    });
  });

  test("an older file reads the same; torn lines, non-strings and repeats are skipped", () => {
    withDir((dir) => {
      const file = join(dir, "input_history.jsonl");
      writeFileSync(file, '"old"\n"multi\\nline"\n42\n"old"\n"   "\n{"torn');
      expect(loadHistory(file)).toEqual(["old", "multi\nline"]);
      expect(loadHistory(join(dir, "missing.jsonl"))).toEqual([]);
      expect(loadHistory(undefined)).toEqual([]);
    });
  });

  test("recording puts the message first, once, and keeps the size", () => {
    const history = ["b", "a\nx", "c"];
    recordInHistory(history, "a\nx");
    expect(history).toEqual(["a\nx", "b", "c"]);
    recordInHistory(history, "  ");
    expect(history).toHaveLength(3);
    const full = Array.from({ length: HISTORY_SIZE }, (_, i) => `m${i}`);
    recordInHistory(full, "new");
    expect(full).toHaveLength(HISTORY_SIZE);
    expect(full[0]).toBe("new");
  });
});
